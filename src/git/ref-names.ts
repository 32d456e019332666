// Ref names: where branches and tags live, their short names, and git's rules for branch and tag
// names (git-check-ref-format), checked before a name reaches git. Names starting with '-' are
// refused too, so no name can ever be read as an option.

export const BRANCH_PREFIX = 'refs/heads/'
export const TAG_PREFIX = 'refs/tags/'

/** `refs/heads/main` → `main`, `refs/tags/v1` → `v1`; any other ref stays whole. */
export function shortRefName(ref: string): string {
  return ref.startsWith(BRANCH_PREFIX) ? ref.slice(BRANCH_PREFIX.length) : ref.startsWith(TAG_PREFIX) ? ref.slice(TAG_PREFIX.length) : ref
}

/** The longest branch or tag name taken (and so the longest pattern for them). */
export const MAX_REF_NAME_LENGTH = 255

export function isValidRefName(name: string): boolean {
  if (name === '' || name === '@' || name.length > MAX_REF_NAME_LENGTH) return false
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'))
}

/**
 * A pattern for branch or tag names (protected refs, webhook branch filters): a valid name once
 * each `*` wildcard is filled in, so it is no longer than a name either.
 */
export function isValidRefPattern(pattern: string): boolean {
  return isValidRefName(pattern.replaceAll('*', 'x'))
}
