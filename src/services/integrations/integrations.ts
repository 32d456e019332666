// Saving and clearing a project's integrations (PUT and DELETE /projects/:id/services/<slug>), and
// reading the ones that are active for the code that acts on them. A PUT activates the integration
// and merges the settings it names into the stored ones, as the original updates its properties; a
// DELETE deactivates it and clears every setting. Settings the original validates on its model (a
// blank required value, a URL that is not one, a URL Ingot may not send to) answer its
// `400 Bad Request`.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import { readCacheOf } from '../../db/read-cache.js'
import type { IntegrationRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { badRequest } from '../../common/errors.js'
import type { SecretBox } from '../../common/secret-box.js'
import { checkOutboundUrl } from '../outbound/outbound-http.js'
import type { EventFlag, IntegrationKind } from './catalog.js'

export type SettingValue = string | number | boolean | null
export type IntegrationSettings = Record<string, SettingValue>

export interface IntegrationChanges {
  /** The kind's settings given (only its own fields). */
  settings: IntegrationSettings
  /** The event flags given (only those the kind takes). */
  events: Partial<Record<EventFlag, boolean>>
}

/** The original answers an integration its model refuses with exactly this. */
const refused = () => badRequest('400 Bad Request')

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/

/** The stored settings, opened from their sealed form (secrets at rest: common/secret-box.ts). */
export function parseSettings(secrets: SecretBox, row: IntegrationRow): IntegrationSettings {
  if (row.encrypted_properties === null) return {}
  const json = secrets.open('integrations.secrets', row.encrypted_properties)
  try {
    const parsed: unknown = JSON.parse(json)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed as IntegrationSettings : {}
  } catch {
    return {}
  }
}

/** The settings a new integration of `kind` starts with. */
export function initialSettings(kind: IntegrationKind): IntegrationSettings {
  const settings: IntegrationSettings = {}
  for (const field of kind.fields) if (field.initial !== undefined) settings[field.name] = field.initial
  return settings
}

/** The deprecated kind exists only for projects that have it active (the API answers 400, a page 404). */
export function integrationUnavailable(kind: IntegrationKind, row: IntegrationRow | null): boolean {
  return kind.deprecated === true && row?.active !== 1
}

export async function findIntegration(db: Db, projectId: number, kind: IntegrationKind): Promise<IntegrationRow | null> {
  return await db.selectFrom('integrations').selectAll()
    .where('project_id', '=', projectId).where('kind', '=', kind.slug).executeTakeFirst() ?? null
}

/** The project's active integrations of the given kinds (one query, by the (project_id, kind) index). */
/**
 * The project's active integrations of these kinds. Asked after every push and activity, so the
 * project's active ones are read through the read cache: most projects have none.
 */
export async function activeIntegrations(db: Db, projectId: number, slugs: readonly string[]): Promise<IntegrationRow[]> {
  if (slugs.length === 0) return []
  const cache = readCacheOf<IntegrationRow[]>(db, 'active-integrations', { tables: ['integrations'], maxWeight: 10_000 })
  const load = () => db.selectFrom('integrations').selectAll().where('project_id', '=', projectId).where('active', '=', 1).orderBy('id').execute()
  const active = cache === null ? await load() : await cache.get(String(projectId), load)
  return active.filter((row) => slugs.includes(row.kind))
}

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== ''
  } catch {
    return false
  }
}

/** Refuses what the original's model validations refuse (and addresses Ingot may not send to). */
async function validate(ctx: Pick<AppContext, 'db' | 'config'>, kind: IntegrationKind, settings: IntegrationSettings): Promise<void> {
  for (const field of kind.fields) {
    const value = settings[field.name]
    const blank = value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
    if (blank) {
      if (field.required) throw refused()
      continue
    }
    if (field.type !== 'url') continue
    if (typeof value !== 'string' || !isWebUrl(value)) throw refused()
    if (field.outbound && await checkOutboundUrl(ctx, value) !== null) throw refused()
  }
  if (kind.slug === 'emails-on-push') {
    const recipients = String(settings.recipients ?? '').split(/\s+/).filter((r) => r !== '')
    if (!recipients.every((recipient) => EMAIL.test(recipient))) throw refused()
  }
}

/**
 * PUT: creates or updates the project's integration of `kind`, active; returns the saved row. The
 * settings are checked before the write (a URL check may wait on DNS), and written in one upsert.
 */
export async function saveIntegration(
  ctx: Pick<AppContext, 'db' | 'config' | 'secrets'>, projectId: number, kind: IntegrationKind, changes: IntegrationChanges,
): Promise<IntegrationRow> {
  const existing = await findIntegration(ctx.db, projectId, kind)
  const settings = { ...(existing === null ? initialSettings(kind) : parseSettings(ctx.secrets, existing)), ...changes.settings }
  await validate(ctx, kind, settings)
  const now = Date.now()
  const flags = Object.fromEntries(Object.entries(changes.events).map(([name, on]) => [name, flag(on)]))
  const values = {
    active: flag(true), encrypted_properties: ctx.secrets.seal('integrations.secrets', JSON.stringify(settings)), ...flags, updated_at: now,
  }
  return ctx.db.insertInto('integrations')
    .values({ project_id: projectId, kind: kind.slug, created_at: now, ...values })
    .onConflict((oc) => oc.columns(['project_id', 'kind']).doUpdateSet(values))
    .returningAll().executeTakeFirstOrThrow()
}

/** DELETE: deactivates the integration and clears its settings (its event flags stay as they were). */
export async function clearIntegration(db: Db, projectId: number, kind: IntegrationKind): Promise<void> {
  await db.updateTable('integrations').set({ active: 0, encrypted_properties: null, updated_at: Date.now() })
    .where('project_id', '=', projectId).where('kind', '=', kind.slug).execute()
}
