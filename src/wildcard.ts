// Names matched against patterns where `*` stands for any run of characters (protected branch and
// tag names, webhook branch filters, sign-up domain rules): the whole name must match.
//
// Matched without a regular expression: `^a.*.*b$` backtracks exponentially in the stars, and a
// pattern is anyone's to write (a Maintainer of any project names protected branches), while every
// push, branch list and webhook fan-out matches against it.

/** Whether `name` matches `pattern`, each `*` matching any text (none included). */
export function matchesWildcard(pattern: string, name: string, options: { ignoreCase?: boolean } = {}): boolean {
  if (options.ignoreCase === true) {
    pattern = pattern.toLowerCase()
    name = name.toLowerCase()
  }
  if (!pattern.includes('*')) return pattern === name
  // Between the first and the last `*`, each literal part may as well match at its leftmost place
  // after the previous one: any later place leaves less room to the rest. So each part is looked
  // for once, from where the last one ended, and the parts' searches cover the name once; runs of
  // `*` are empty parts and cost nothing.
  const parts = pattern.split('*')
  const first = parts[0]!
  const last = parts[parts.length - 1]!
  if (first.length + last.length > name.length || !name.startsWith(first) || !name.endsWith(last)) return false
  const end = name.length - last.length
  let at = first.length
  for (const part of parts.slice(1, -1)) {
    if (part === '') continue
    const found = name.indexOf(part, at)
    if (found === -1 || found + part.length > end) return false
    at = found + part.length
  }
  return true
}
