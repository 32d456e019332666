// The project integration entity (spec: Project integrations (services); the original's
// ProjectService): id and timestamps (null for a kind never configured), title, `active`, every
// event flag, and `properties` — the kind's settings without its secrets. `slug` is the later
// releases' field: today's clients (python-gitlab's integrations) address an integration by it, so
// it is the slug the request named (Ingot's or the original's); `properties` are named as under it.
import { Type, type Static } from '@sinclair/typebox'
import type { IntegrationRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { EVENT_FLAGS, type EventFlag, type IntegrationSlug } from '../services/integrations/catalog.js'
import type { IntegrationSettings } from '../services/integrations/integrations.js'
import { NullableDateTime, NullableInteger } from './common.js'

const SettingValue = Type.Unsafe<string | number | boolean | null>({ type: ['string', 'number', 'boolean', 'null'] })

export const ProjectIntegration = Type.Object({
  id: NullableInteger,
  title: Type.String(),
  slug: Type.String(),
  created_at: NullableDateTime,
  updated_at: NullableDateTime,
  active: Type.Boolean(),
  push_events: Type.Boolean(),
  issues_events: Type.Boolean(),
  confidential_issues_events: Type.Boolean(),
  merge_requests_events: Type.Boolean(),
  tag_push_events: Type.Boolean(),
  note_events: Type.Boolean(),
  confidential_note_events: Type.Boolean(),
  pipeline_events: Type.Boolean(),
  wiki_page_events: Type.Boolean(),
  job_events: Type.Boolean(),
  properties: Type.Record(Type.String(), SettingValue),
})
export type ProjectIntegrationEntity = Static<typeof ProjectIntegration>

/** The original's column defaults, shown for a kind the project never configured. */
const DEFAULT_FLAGS: Record<EventFlag, boolean> = {
  push_events: true, issues_events: true, confidential_issues_events: true, merge_requests_events: true,
  tag_push_events: true, note_events: true, confidential_note_events: true, pipeline_events: false,
  wiki_page_events: true, job_events: false,
}

/** The settings a response may show: the kind's own fields, never a secret one. */
function visibleSettings(named: IntegrationSlug, settings: IntegrationSettings): ProjectIntegrationEntity['properties'] {
  const shown: ProjectIntegrationEntity['properties'] = {}
  for (const field of named.kind.fields) {
    if (!field.secret && field.name in settings) shown[named.paramName(field)] = settings[field.name] ?? null
  }
  return shown
}

/**
 * `named` is the slug the request named; `row` is the project's integration of its kind, or null
 * when it was never configured; `settings` are its stored settings, or the ones a new integration
 * starts with.
 */
export function presentIntegration(named: IntegrationSlug, row: IntegrationRow | null, settings: IntegrationSettings): ProjectIntegrationEntity {
  const { kind } = named
  const flags = Object.fromEntries(EVENT_FLAGS.map((name) => [name, row === null ? DEFAULT_FLAGS[name] : row[name] === 1])) as Record<EventFlag, boolean>
  const customTitle = kind.titleSetting === true && typeof settings.title === 'string' && settings.title.trim() !== '' ? settings.title : null
  return {
    id: row?.id ?? null,
    title: customTitle ?? kind.title,
    slug: named.slug,
    created_at: row === null ? null : isoTime(row.created_at),
    updated_at: row === null ? null : isoTime(row.updated_at),
    active: row?.active === 1,
    ...flags,
    properties: visibleSettings(named, settings),
  }
}
