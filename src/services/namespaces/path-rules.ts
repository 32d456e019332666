// The naming rules shared by usernames, group paths and project paths and names, with the
// original's validation messages.
const NAMESPACE_PATH = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$/
const PROJECT_PATH = /^[a-zA-Z0-9_][a-zA-Z0-9_\-.]*$/
const PROJECT_NAME = /^[\p{L}\p{N}\p{Emoji_Presentation}_][\p{L}\p{N}\p{Emoji_Presentation}_. +-]*$/u
const FORBIDDEN_ENDINGS = /\.(git|atom)$/i

/** First path segments that are routes of Ingot itself (or of the original) and so no namespace's. */
const RESERVED_TOP_LEVEL = new Set([
  '-', '.well-known', '404.html', '422.html', '500.html', '502.html', '503.html', 'abuse_reports', 'admin', 'api',
  'apple-touch-icon-precomposed.png', 'apple-touch-icon.png', 'assets', 'autocomplete', 'ci', 'dashboard',
  'deploy.html', 'explore', 'favicon.ico', 'favicon.png', 'files', 'groups', 'health_check', 'help', 'import',
  'invites', 'jwt', 'login', 'notification_settings', 'oauth', 'profile', 'projects', 'public', 'robots.txt', 's',
  'search', 'sent_notifications', 'slash-command-logo.png', 'snippets', 'unsubscribes', 'uploads', 'users', 'v2',
])

/** Whether a first path segment is one of Ingot's own routes rather than a namespace's. */
export function isReservedTopLevel(segment: string): boolean {
  return RESERVED_TOP_LEVEL.has(segment.toLowerCase())
}

/** Names that would clash with a group's own routes when used as a subgroup path. */
const RESERVED_IN_GROUP = new Set(['-'])

const PATH_MESSAGE = "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'."

/** Problems with a username or a group path; `topLevel` when it is the first segment of URLs. */
export function namespacePathErrors(path: string, topLevel: boolean): string[] {
  const errors: string[] = []
  if (path.length > 255) errors.push('is too long (maximum is 255 characters)')
  if (!NAMESPACE_PATH.test(path) || FORBIDDEN_ENDINGS.test(path)) errors.push(PATH_MESSAGE)
  const reserved = topLevel ? RESERVED_TOP_LEVEL : RESERVED_IN_GROUP
  if (reserved.has(path.toLowerCase())) errors.push(`${path} is a reserved name`)
  return errors
}

export function projectPathErrors(path: string): string[] {
  const errors: string[] = []
  if (path.length > 255) errors.push('is too long (maximum is 255 characters)')
  if (!PROJECT_PATH.test(path) || FORBIDDEN_ENDINGS.test(path)) {
    errors.push("can contain only letters, digits, '_', '-' and '.'. Cannot start with '-', end in '.git' or end in '.atom'")
  }
  return errors
}

export function projectNameErrors(name: string): string[] {
  const errors: string[] = []
  if (name.length > 255) errors.push('is too long (maximum is 255 characters)')
  if (!PROJECT_NAME.test(name)) {
    errors.push("can contain only letters, digits, emojis, '_', '.', dash, space. It must start with letter, digit, emoji or '_'.")
  }
  return errors
}

/** A path made from a name, as the original derives a project path when only a name is given. */
export function pathFromName(name: string): string {
  return name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '').replace(/-{2,}/g, '-')
}
