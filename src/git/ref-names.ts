// Ref names: where branches and tags live, their short names, and git's rules for branch and tag
// names (git-check-ref-format), checked before a name reaches git. Names starting with '-' are
// refused too, so no name can ever be read as an option.

export const BRANCH_PREFIX = 'refs/heads/'
export const TAG_PREFIX = 'refs/tags/'

/** `refs/heads/main` → `main`, `refs/tags/v1` → `v1`; any other ref stays whole. */
export function shortRefName(ref: string): string {
  return ref.startsWith(BRANCH_PREFIX) ? ref.slice(BRANCH_PREFIX.length) : ref.startsWith(TAG_PREFIX) ? ref.slice(TAG_PREFIX.length) : ref
}

export function isValidRefName(name: string): boolean {
  if (name === '' || name === '@' || name.length > 255) return false
  if (name.startsWith('-') || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'))
}
