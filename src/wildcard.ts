// Names matched against patterns where `*` stands for any run of characters (protected branch and
// tag names, webhook branch filters, sign-up domain rules): the whole name must match.

/** Whether `name` matches `pattern`, each `*` matching any text (none included). */
export function matchesWildcard(pattern: string, name: string, options: { ignoreCase?: boolean } = {}): boolean {
  const ignoreCase = options.ignoreCase === true
  if (!pattern.includes('*')) return ignoreCase ? pattern.toLowerCase() === name.toLowerCase() : pattern === name
  const regex = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')
  return new RegExp(`^${regex}$`, ignoreCase ? 'i' : '').test(name)
}
