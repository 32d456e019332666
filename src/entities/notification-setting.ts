// Notification setting entities (spec: Notification settings): `{level}` for a group or project,
// `{level, notification_email}` for the global setting, and `events` (the 14 email events' flags)
// between them whenever the level is custom, as the original's NotificationSetting and
// GlobalNotificationSetting entities show them.
import { Type, type Static } from '@sinclair/typebox'
import type { NotificationLevel } from '../db/schema.js'

export const NOTIFICATION_LEVELS: readonly NotificationLevel[] = ['disabled', 'participating', 'watch', 'global', 'mention', 'custom']

/** The email events in the original's order (NotificationSetting::EMAIL_EVENTS). */
export const EMAIL_EVENTS = [
  'new_note', 'new_issue', 'reopen_issue', 'close_issue', 'reassign_issue', 'issue_due', 'new_merge_request',
  'push_to_merge_request', 'reopen_merge_request', 'close_merge_request', 'reassign_merge_request',
  'merge_merge_request', 'failed_pipeline', 'success_pipeline',
] as const
export type EmailEvent = typeof EMAIL_EVENTS[number]
export type EmailEvents = Record<EmailEvent, boolean>

const Events = Type.Object(Object.fromEntries(EMAIL_EVENTS.map((event) => [event, Type.Boolean()])) as Record<EmailEvent, ReturnType<typeof Type.Boolean>>)

export const NotificationSetting = Type.Object({
  level: Type.String(),
  events: Type.Optional(Events),
})
export type NotificationSettingEntity = Static<typeof NotificationSetting>

export const GlobalNotificationSetting = Type.Object({
  level: Type.String(),
  events: Type.Optional(Events),
  notification_email: Type.String(),
})
export type GlobalNotificationSettingEntity = Static<typeof GlobalNotificationSetting>

/** What a stored or default setting holds, whatever its source. */
export interface NotificationSettingView {
  level: NotificationLevel
  events: EmailEvents
}

export function presentNotificationSetting(setting: NotificationSettingView): NotificationSettingEntity {
  return setting.level === 'custom' ? { level: setting.level, events: setting.events } : { level: setting.level }
}

export function presentGlobalNotificationSetting(setting: NotificationSettingView, notificationEmail: string): GlobalNotificationSettingEntity {
  return { ...presentNotificationSetting(setting), notification_email: notificationEmail }
}
