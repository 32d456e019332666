// Reading and changing notification settings (GET/PUT …/notification_settings), and the effective
// level that decides a user's email about a project: the project's setting, else (when it says
// `global`) the nearest group's up the hierarchy, else the user's global setting — participating
// when they never chose one.
import type { Db } from '../../db/index.js'
import type { NotificationLevel, NotificationSettingsTable, UserRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import type { Selectable } from 'kysely'
import { badRequest, validationFailed } from '../../common/errors.js'
import { EMAIL_EVENTS, NOTIFICATION_LEVELS, type EmailEvent, type EmailEvents, type NotificationSettingView } from '../../entities/notification-setting.js'

export type NotificationSettingRow = Selectable<NotificationSettingsTable>

export type NotificationSource =
  | { type: 'global' }
  | { type: 'group'; id: number }
  | { type: 'project'; id: number }

/** The events of a setting never stored: every one off except failed_pipeline (the migration's defaults). */
const DEFAULT_EVENTS: EmailEvents = Object.fromEntries(EMAIL_EVENTS.map((event) => [event, event === 'failed_pipeline'])) as EmailEvents

export function defaultLevel(source: NotificationSource): NotificationLevel {
  return source.type === 'global' ? 'participating' : 'global'
}

export function settingView(row: NotificationSettingRow | undefined, source: NotificationSource): NotificationSettingView {
  if (row === undefined) return { level: defaultLevel(source), events: { ...DEFAULT_EVENTS } }
  return { level: row.level, events: Object.fromEntries(EMAIL_EVENTS.map((event) => [event, row[event] === 1])) as EmailEvents }
}

export async function findNotificationSetting(db: Db, userId: number, source: NotificationSource): Promise<NotificationSettingRow | undefined> {
  let query = db.selectFrom('notification_settings').selectAll().where('user_id', '=', userId)
  query = source.type === 'project' ? query.where('project_id', '=', source.id)
    : source.type === 'group' ? query.where('namespace_id', '=', source.id)
      : query.where('project_id', 'is', null).where('namespace_id', 'is', null)
  return query.executeTakeFirst()
}

/**
 * Where the user's notification email goes: the address they chose while it is still one of theirs
 * (an email change leaves it behind, as the original resets it), else their primary email.
 */
export function notificationEmailOf(user: Pick<UserRow, 'email'>, global: NotificationSettingRow | undefined): string {
  const chosen = global?.notification_email ?? null
  return chosen !== null && ownsEmail(user, chosen) ? chosen : user.email
}

/** The addresses a user owns: only the primary email, as Ingot keeps no secondary ones. */
function ownsEmail(user: Pick<UserRow, 'email'>, address: string): boolean {
  return user.email.toLowerCase() === address.toLowerCase()
}

const EMAIL_FORMAT = /^[^\s@]+@[^\s@]+$/

export interface NotificationSettingChanges {
  /** Any string: a level outside the six is refused with the original's message. */
  level?: string
  events?: Partial<EmailEvents>
  /** Global setting only; '' returns to the primary email. */
  notificationEmail?: string
}

/** Writes the user's setting for the source (creating its row) and returns it. */
export async function updateNotificationSetting(
  db: Db, user: UserRow, source: NotificationSource, changes: NotificationSettingChanges,
): Promise<NotificationSettingRow> {
  const level = changes.level
  if (level !== undefined && !(NOTIFICATION_LEVELS as readonly string[]).includes(level)) throw badRequest(`'${level}' is not a valid level`)
  let notificationEmail: string | null | undefined
  if (changes.notificationEmail !== undefined && source.type === 'global') {
    const address = changes.notificationEmail.trim()
    if (address === '') notificationEmail = null
    else if (!ownsEmail(user, address)) {
      throw validationFailed({ notification_email: [...(EMAIL_FORMAT.test(address) ? [] : ['is invalid']), 'is not an email you own'] })
    } else notificationEmail = address
  }
  const eventColumns: Partial<Record<EmailEvent, 0 | 1>> = {}
  for (const event of EMAIL_EVENTS) {
    const value = changes.events?.[event]
    if (value !== undefined) eventColumns[event] = flag(value)
  }
  const now = Date.now()
  const set = {
    ...(level === undefined ? {} : { level: level as NotificationLevel }),
    ...eventColumns,
    ...(notificationEmail === undefined ? {} : { notification_email: notificationEmail }),
    updated_at: now,
  }
  const row = {
    user_id: user.id,
    project_id: source.type === 'project' ? source.id : null,
    namespace_id: source.type === 'group' ? source.id : null,
    level: (level as NotificationLevel | undefined) ?? defaultLevel(source),
    ...eventColumns,
    notification_email: notificationEmail ?? null,
    created_at: now,
    updated_at: now,
  }
  return db.insertInto('notification_settings').values(row)
    .onConflict((oc) => {
      const target = source.type === 'project' ? oc.columns(['project_id', 'user_id']).where('project_id', 'is not', null)
        : source.type === 'group' ? oc.columns(['namespace_id', 'user_id']).where('namespace_id', 'is not', null)
          : oc.column('user_id').where('project_id', 'is', null).where('namespace_id', 'is', null)
      return target.doUpdateSet(set)
    })
    .returningAll().executeTakeFirstOrThrow()
}

/** The rows that decide the given users' effective level on a project: its own, its groups', their global ones. */
export interface ProjectPlace {
  projectId: number
  /** The project's group and that group's ancestors, nearest first; empty in a personal namespace. */
  groupChain: readonly number[]
}

export interface EffectiveSetting {
  level: Exclude<NotificationLevel, 'global'>
  events: EmailEvents
  /** The user's global row (for their notification email). */
  global: NotificationSettingRow | undefined
}

/** The groups a project sits in, nearest first. */
export async function projectPlace(db: Db, project: { id: number; namespace_id: number }): Promise<ProjectPlace> {
  const chain: number[] = []
  let namespaceId: number | null = project.namespace_id
  // Groups nest a few levels deep (the original allows 20): one indexed read per level.
  while (namespaceId !== null && chain.length < 21) {
    const namespace: { id: number; kind: string; parent_id: number | null } | undefined = await db.selectFrom('namespaces')
      .select(['id', 'kind', 'parent_id']).where('id', '=', namespaceId).executeTakeFirst()
    if (namespace === undefined || namespace.kind !== 'group') break
    chain.push(namespace.id)
    namespaceId = namespace.parent_id
  }
  return { projectId: project.id, groupChain: chain }
}

/** Every notification row of the place (project, its groups) and the global rows of those users, in one query. */
export async function settingsAt(db: Db, place: ProjectPlace, userIds: readonly number[] | null): Promise<NotificationSettingRow[]> {
  if (userIds !== null && userIds.length === 0) return []
  return db.selectFrom('notification_settings').selectAll()
    .where((eb) => {
      const here = eb.or([
        eb('project_id', '=', place.projectId),
        ...(place.groupChain.length > 0 ? [eb('namespace_id', 'in', place.groupChain)] : []),
      ])
      if (userIds !== null) {
        return eb.and([eb('user_id', 'in', userIds), eb.or([here, eb.and([eb('project_id', 'is', null), eb('namespace_id', 'is', null)])])])
      }
      // Users who set something here, with their global rows.
      const setHere = eb.selectFrom('notification_settings as s').select('s.user_id').where((inner) => inner.or([
        inner('s.project_id', '=', place.projectId),
        ...(place.groupChain.length > 0 ? [inner('s.namespace_id', 'in', place.groupChain)] : []),
      ]))
      return eb.or([here, eb.and([eb('project_id', 'is', null), eb('namespace_id', 'is', null), eb('user_id', 'in', setHere)])])
    })
    .execute()
}

/** Each user's effective setting on the place, from the rows settingsAt() read (users without rows: participating). */
export function effectiveSettings(place: ProjectPlace, rows: readonly NotificationSettingRow[], userIds: Iterable<number>): Map<number, EffectiveSetting> {
  const byUser = new Map<number, NotificationSettingRow[]>()
  for (const row of rows) {
    const list = byUser.get(row.user_id) ?? []
    list.push(row)
    byUser.set(row.user_id, list)
  }
  const result = new Map<number, EffectiveSetting>()
  for (const userId of userIds) {
    const own = byUser.get(userId) ?? []
    const global = own.find((row) => row.project_id === null && row.namespace_id === null)
    const chosen = [
      own.find((row) => row.project_id === place.projectId),
      ...place.groupChain.map((groupId) => own.find((row) => row.namespace_id === groupId)),
    ].find((row) => row !== undefined && row.level !== 'global')
    const decisive = chosen ?? global
    const view = settingView(decisive, { type: 'global' })
    result.set(userId, { level: view.level === 'global' ? 'participating' : view.level, events: view.events, global })
  }
  return result
}
