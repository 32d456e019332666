// Creating, changing and deleting project hooks and system hooks. A hook's URL is checked when it is
// saved (and again at every delivery): http or https, and for project hooks no local address unless
// the instance allows it. System hooks are an administrator's, so they may point anywhere, as in
// the original's release 11.5.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { WebHookRow } from '../../db/schema.js'
import { flag } from '../../db/values.js'
import { apiError, validationFailed } from '../../common/errors.js'
import { isValidRefPattern } from '../../git/ref-names.js'
import { checkOutboundUrl } from '../outbound/outbound-http.js'

export const PROJECT_HOOK_EVENTS = [
  'push_events', 'tag_push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events',
  'note_events', 'job_events', 'pipeline_events', 'wiki_page_events',
] as const
export type ProjectHookEvent = (typeof PROJECT_HOOK_EVENTS)[number]

export const SYSTEM_HOOK_EVENTS = ['push_events', 'tag_push_events', 'merge_requests_events', 'repository_update_events'] as const
export type SystemHookEvent = (typeof SYSTEM_HOOK_EVENTS)[number]

export interface HookInput<E extends string> {
  url: string
  token?: string
  enable_ssl_verification?: boolean
  events: Partial<Record<E, boolean>>
}

export interface ProjectHookInput extends HookInput<ProjectHookEvent> {
  push_events_branch_filter?: string
}

function eventColumns<E extends string>(events: Partial<Record<E, boolean>>): Partial<Record<E, 0 | 1>> {
  const columns: Partial<Record<E, 0 | 1>> = {}
  for (const [event, on] of Object.entries(events) as [E, boolean | undefined][]) {
    if (on !== undefined) columns[event] = flag(on)
  }
  return columns
}

/** The original's rule: a branch name once `*` wildcards are filled in; blank means every branch. */
function branchFilterValid(filter: string): boolean {
  return filter === '' || isValidRefPattern(filter)
}

/**
 * A refused URL is the original's 422 with its fixed sentence; a bad branch filter a field error
 * (400), as bad input is everywhere (the original answered it with a 404 naming the errors).
 */
async function checkProjectHookInput(ctx: AppContext, input: ProjectHookInput): Promise<void> {
  if (await checkOutboundUrl(ctx, input.url) !== null) throw apiError(422, 'Invalid url given')
  if (input.push_events_branch_filter !== undefined && !branchFilterValid(input.push_events_branch_filter)) {
    throw validationFailed({ push_events_branch_filter: ['is invalid'] })
  }
}

function hookColumns(ctx: AppContext, input: ProjectHookInput | HookInput<SystemHookEvent>) {
  return {
    url: input.url,
    ...(input.token === undefined ? {} : { encrypted_token: input.token === '' ? null : ctx.secrets.seal('web_hooks.token', input.token) }),
    ...(input.enable_ssl_verification === undefined ? {} : { enable_ssl_verification: flag(input.enable_ssl_verification) }),
    ...('push_events_branch_filter' in input && input.push_events_branch_filter !== undefined
      ? { push_events_branch_filter: input.push_events_branch_filter === '' ? null : input.push_events_branch_filter } : {}),
    ...eventColumns<string>(input.events),
  }
}

export async function createProjectHook(ctx: AppContext, projectId: number, input: ProjectHookInput): Promise<WebHookRow> {
  await checkProjectHookInput(ctx, input)
  const now = Date.now()
  return ctx.db.insertInto('web_hooks').values({ project_id: projectId, ...hookColumns(ctx, input), created_at: now, updated_at: now })
    .returningAll().executeTakeFirstOrThrow()
}

export async function updateProjectHook(ctx: AppContext, hook: WebHookRow, input: ProjectHookInput): Promise<WebHookRow> {
  await checkProjectHookInput(ctx, input)
  // An edited hook (a fixed URL, most likely) gets its deliveries back at once.
  return ctx.db.updateTable('web_hooks').set({ ...hookColumns(ctx, input), failures_in_a_row: 0, backoff_until: null, updated_at: Date.now() })
    .where('id', '=', hook.id).returningAll().executeTakeFirstOrThrow()
}

/** System hooks answer 400 with field errors, as the original's render_validation_error!. */
async function checkSystemHookUrl(ctx: AppContext, url: string): Promise<void> {
  const problem = await checkOutboundUrl(ctx, url, { allowLocal: true })
  if (problem !== null) throw validationFailed({ url: [`is blocked: ${problem}`] })
}

export async function createSystemHook(ctx: AppContext, input: HookInput<SystemHookEvent>): Promise<WebHookRow> {
  await checkSystemHookUrl(ctx, input.url)
  const now = Date.now()
  return ctx.db.insertInto('web_hooks').values({
    project_id: null,
    // The original's defaults for system hooks differ from project hooks'.
    push_events: 0,
    repository_update_events: 1,
    ...hookColumns(ctx, input),
    created_at: now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow()
}

/** The admin area's edit of a system hook (the API of release 11.5 has none); no token given keeps the one set. */
export async function updateSystemHook(ctx: AppContext, hook: WebHookRow, input: HookInput<SystemHookEvent>): Promise<WebHookRow> {
  await checkSystemHookUrl(ctx, input.url)
  return ctx.db.updateTable('web_hooks').set({ ...hookColumns(ctx, input), failures_in_a_row: 0, backoff_until: null, updated_at: Date.now() })
    .where('id', '=', hook.id).where('project_id', 'is', null).returningAll().executeTakeFirstOrThrow()
}

export async function deleteHook(db: Db, hook: WebHookRow): Promise<void> {
  await db.deleteFrom('web_hooks').where('id', '=', hook.id).execute()
}
