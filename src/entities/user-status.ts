// User status entity (spec: User, user status): emoji, message, and message_html (the message as
// HTML). A user without a status shows null emoji and message and an empty message_html.
import { Type, type Static } from '@sinclair/typebox'
import type { UserRow } from '../db/schema.js'
import { NullableString } from './common.js'

export const UserStatus = Type.Object({
  emoji: NullableString,
  message: NullableString,
  message_html: Type.String(),
})
export type UserStatusEntity = Static<typeof UserStatus>

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)
}

export function presentUserStatus(user: Pick<UserRow, 'status_emoji' | 'status_message'>): UserStatusEntity {
  const message = user.status_message
  return {
    emoji: user.status_emoji,
    message,
    message_html: message === null || message === '' ? '' : `<p dir="auto">${escapeHtml(message)}</p>`,
  }
}
