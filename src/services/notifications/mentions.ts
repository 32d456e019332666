// `@username` references in Markdown text, as the original finds the users a text mentions:
// not inside code (fenced blocks or inline spans), not part of an email address.
const FENCED_CODE = /^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm
const INLINE_CODE = /`[^`\n]*`/g
const MENTION = /(?<![\w@.+-])@([A-Za-z0-9_][A-Za-z0-9_.-]*)/g

/** Lower-cased usernames mentioned in the texts. */
export function mentionedUsernames(texts: readonly (string | null)[]): Set<string> {
  const names = new Set<string>()
  for (const text of texts) {
    if (text === null || !text.includes('@')) continue
    const prose = text.replace(FENCED_CODE, '').replace(INLINE_CODE, '')
    for (const match of prose.matchAll(MENTION)) {
      // A sentence's full stop is not part of the name.
      names.add(match[1]!.replace(/[.-]+$/, '').toLowerCase())
    }
  }
  return names
}
