// Project hook and system hook entities (the original's ProjectHook and Hook of release 11.5): the
// URL and the events a hook is sent for; the token is never shown.
import { Type, type Static } from '@sinclair/typebox'
import type { WebHookRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, NullableString } from './common.js'

export const SystemHook = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  created_at: IsoDateTime,
  push_events: Type.Boolean(),
  tag_push_events: Type.Boolean(),
  merge_requests_events: Type.Boolean(),
  repository_update_events: Type.Boolean(),
  enable_ssl_verification: Type.Boolean(),
})
export type SystemHookEntity = Static<typeof SystemHook>

export const ProjectHook = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  project_id: Type.Integer(),
  push_events: Type.Boolean(),
  push_events_branch_filter: NullableString,
  issues_events: Type.Boolean(),
  confidential_issues_events: Type.Boolean(),
  merge_requests_events: Type.Boolean(),
  tag_push_events: Type.Boolean(),
  note_events: Type.Boolean(),
  job_events: Type.Boolean(),
  pipeline_events: Type.Boolean(),
  wiki_page_events: Type.Boolean(),
  enable_ssl_verification: Type.Boolean(),
  created_at: IsoDateTime,
})
export type ProjectHookEntity = Static<typeof ProjectHook>

export function presentSystemHook(hook: WebHookRow): SystemHookEntity {
  return {
    id: hook.id,
    url: hook.url,
    created_at: isoTime(hook.created_at),
    push_events: hook.push_events === 1,
    tag_push_events: hook.tag_push_events === 1,
    merge_requests_events: hook.merge_requests_events === 1,
    repository_update_events: hook.repository_update_events === 1,
    enable_ssl_verification: hook.enable_ssl_verification === 1,
  }
}

export function presentProjectHook(hook: WebHookRow): ProjectHookEntity {
  return {
    id: hook.id,
    url: hook.url,
    project_id: hook.project_id ?? 0,
    push_events: hook.push_events === 1,
    push_events_branch_filter: hook.push_events_branch_filter,
    issues_events: hook.issues_events === 1,
    confidential_issues_events: hook.confidential_issues_events === 1,
    merge_requests_events: hook.merge_requests_events === 1,
    tag_push_events: hook.tag_push_events === 1,
    note_events: hook.note_events === 1,
    job_events: hook.job_events === 1,
    pipeline_events: hook.pipeline_events === 1,
    wiki_page_events: hook.wiki_page_events === 1,
    enable_ssl_verification: hook.enable_ssl_verification === 1,
    created_at: isoTime(hook.created_at),
  }
}
