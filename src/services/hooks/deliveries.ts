// Webhook and system hook deliveries. Listeners on the push and activity hook points ask one indexed
// question — has this project (or the instance) a hook for this event? — and, only when one does,
// enqueue one fan-out job (the kinds are in jobs.ts). That job builds the payload once and enqueues
// one delivery job per hook; a delivery job POSTs it with X-Service-Event and X-Service-Token (and
// the original's X-Gitlab-Event and X-Gitlab-Token), and a non-2xx answer or an error fails the
// job, so the queue retries it with backoff. Deliveries go
// through outbound-http: each takes a job slot for at most the outbound timeout, and the process
// never has more than its cap of requests in flight. A dead receiver must not cost a slot once per
// event: after FAILURES_BEFORE_BACKOFF failures in a row its hook backs off (one minute, doubling
// up to a day), and deliveries due meanwhile are skipped without a request, as later releases of
// the original disable failing hooks for a while; a success or an edit of the hook ends the back-off.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { UserRow, WebHookRow } from '../../db/schema.js'
import { readCacheOf } from '../../db/read-cache.js'
import { matchesWildcard } from '../../wildcard.js'
import { NULL_OID, type GitRepository } from '../../git/repository.js'
import { pushedCommitIds } from '../../git/pushed-commits.js'
import type { Activity, IssueActivity, MergeRequestActivity, NoteActivity, SystemActivity, WikiPageActivity } from '../activity/activity.js'
import type { CompletedPush } from '../push/after-push.js'
import { BRANCH_PREFIX, TAG_PREFIX, shortRefName } from '../../git/ref-names.js'
import { OutboundError, postJson, type OutboundResponse } from '../outbound/outbound-http.js'
import { FAN_OUT_WEB_HOOKS } from './jobs.js'
import { jobPayload, pipelinePayload } from './ci-payloads.js'
import {
  hookPresentContext, issuePayload, loadProjectRef, mergeRequestPayload, notePayload, projectHookAttrs, pushPayload,
  userHookAttrs, wikiPagePayload, type HookPayload, type ProjectRef, type PushSelection,
} from './payloads.js'

/** Failures in a row after which a hook backs off, and how long the first and the longest back-off last. */
const FAILURES_BEFORE_BACKOFF = 4
const FIRST_BACKOFF_MS = 60_000
const LONGEST_BACKOFF_MS = 24 * 60 * 60_000
/** Commits a push payload lists, the newest ones (total_commits_count counts them all). */
const PUSH_COMMIT_LIMIT = 20

/** The flag columns a hook is chosen by. */
type HookFlag =
  | 'push_events' | 'tag_push_events' | 'issues_events' | 'confidential_issues_events' | 'merge_requests_events'
  | 'note_events' | 'job_events' | 'pipeline_events' | 'wiki_page_events' | 'repository_update_events'

/** X-Service-Event of each kind of delivery (the original's hook names, titleized). */
export const HOOK_EVENT_HEADERS = {
  push_events: 'Push Hook',
  tag_push_events: 'Tag Push Hook',
  issues_events: 'Issue Hook',
  confidential_issues_events: 'Confidential Issue Hook',
  note_events: 'Note Hook',
  merge_requests_events: 'Merge Request Hook',
  job_events: 'Job Hook',
  pipeline_events: 'Pipeline Hook',
  wiki_page_events: 'Wiki Page Hook',
} as const
const SYSTEM_HOOK_HEADER = 'System Hook'

/** Which hooks an event goes to: a project's hooks with any of `project` on, system hooks with any of `system` on (`all`: every one). */
interface Audience {
  projectId: number | null
  project: readonly HookFlag[]
  system: readonly HookFlag[] | 'all'
}

const HOOK_FLAGS: readonly HookFlag[] = [
  'push_events', 'tag_push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events',
  'note_events', 'job_events', 'pipeline_events', 'wiki_page_events', 'repository_update_events',
]

/** The events some hook listens to: the project's hooks' flags, and the system hooks' (any: one exists). */
interface ListenedEvents {
  project: ReadonlySet<HookFlag>
  system: ReadonlySet<HookFlag>
  anySystemHook: boolean
}

async function loadListenedEvents(db: Db, projectId: number | null): Promise<ListenedEvents> {
  const hooks = await db.selectFrom('web_hooks').select(['project_id', ...HOOK_FLAGS])
    .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb.or([eb('project_id', '=', projectId), eb('project_id', 'is', null)])))
    .execute()
  const flagsOf = (rows: typeof hooks) => new Set(HOOK_FLAGS.filter((flag) => rows.some((hook) => hook[flag] === 1)))
  const system = hooks.filter((hook) => hook.project_id === null)
  return { project: flagsOf(hooks.filter((hook) => hook.project_id !== null)), system: flagsOf(system), anySystemHook: system.length > 0 }
}

/**
 * Whether any hook would receive the event. Asked after every push and activity, so it is read
 * through the read cache: most projects have no hooks, and asking costs them no query.
 */
async function hasAudience(db: Db, audience: Audience): Promise<boolean> {
  const cache = readCacheOf<ListenedEvents>(db, 'web-hook-events', { tables: ['web_hooks'], maxWeight: 10_000 })
  const load = () => loadListenedEvents(db, audience.projectId)
  const listened = cache === null ? await load() : await cache.get(String(audience.projectId), load)
  if (audience.project.some((flag) => listened.project.has(flag))) return true
  return audience.system === 'all' ? listened.anySystemHook : audience.system.some((flag) => listened.system.has(flag))
}

function audienceOf(activity: Activity): Audience {
  switch (activity.kind) {
    case 'issue': return { projectId: activity.projectId, project: ['issues_events', 'confidential_issues_events'], system: [] }
    case 'merge_request': return { projectId: activity.projectId, project: ['merge_requests_events'], system: ['merge_requests_events'] }
    case 'note': return { projectId: activity.projectId, project: ['note_events'], system: [] }
    case 'wiki_page': return { projectId: activity.projectId, project: ['wiki_page_events'], system: [] }
    case 'system': return { projectId: null, project: [], system: 'all' }
  }
}

function pushAudience(projectId: number): Audience {
  return { projectId, project: ['push_events', 'tag_push_events'], system: ['push_events', 'tag_push_events', 'repository_update_events'] }
}

// ---- fan-out -------------------------------------------------------------------------------------

export interface PushFanOut {
  kind: 'push'
  projectId: number
  userId: number
  updates: { ref: string; oldId: string; newId: string }[]
}
/** A pipeline's or a job's status changed: project hooks with pipeline_events or job_events (no system hooks, as the original). */
export interface CiFanOut {
  kind: 'pipeline' | 'job'
  projectId: number
  /** The pipeline's or the job's id. */
  id: number
}
export type FanOut = PushFanOut | CiFanOut | Exclude<Activity, SystemActivity> | SystemActivity

export interface Delivery {
  hookId: number
  event: string
  payload: HookPayload
}

async function hooksFor(db: Db, projectId: number | null): Promise<WebHookRow[]> {
  return db.selectFrom('web_hooks').selectAll()
    .where((eb) => (projectId === null ? eb('project_id', 'is', null) : eb.or([eb('project_id', '=', projectId), eb('project_id', 'is', null)])))
    .orderBy('id').execute()
}

/** The original's push_events_branch_filter: the exact name, or a pattern whose `*` matches anything. */
export function branchFilterMatches(filter: string | null, branch: string): boolean {
  return filter === null || filter === '' || matchesWildcard(filter, branch)
}

/** An annotated tag's message as the tags API shows it; null for a lightweight tag. */
async function tagMessage(repo: GitRepository, id: string): Promise<string | null> {
  const object = await repo.read(id)
  if (object === null || object.type !== 'tag') return null
  const text = object.data.toString('utf8')
  const start = text.indexOf('\n\n')
  return start === -1 ? '' : text.slice(start + 2).replace(/-----BEGIN PGP SIGNATURE-----[\s\S]*$/, '').replace(/\n$/, '')
}

async function pushSelection(repo: GitRepository, update: PushFanOut['updates'][number]): Promise<PushSelection> {
  const isTag = update.ref.startsWith(TAG_PREFIX)
  const deleted = update.newId === NULL_OID
  const base = { kind: isTag ? 'tag_push' : 'push', before: update.oldId, after: update.newId, ref: update.ref } as const
  if (deleted) return { ...base, checkoutSha: null, message: null, commits: [], totalCommits: 0 }
  const head = await repo.resolveCommit(update.newId)
  if (isTag) {
    const commit = head === null ? null : await repo.readCommit(head)
    return { ...base, checkoutSha: head, message: await tagMessage(repo, update.newId), commits: commit === null ? [] : [commit], totalCommits: commit === null ? 0 : 1 }
  }
  // A new branch brings the commits no other branch has; a moved one those since its old tip.
  const excluded = update.oldId === NULL_OID
    ? (await repo.refNames(BRANCH_PREFIX)).filter((ref) => ref !== update.ref)
    : [update.oldId]
  const { ids, total } = await pushedCommitIds(repo, update.newId, excluded, PUSH_COMMIT_LIMIT)
  return { ...base, checkoutSha: head, message: null, commits: await repo.readCommits(ids), totalCommits: total }
}

/** The system hooks' repository_update event: every ref a push moved, in one body. */
function repositoryUpdatePayload(ref: ProjectRef, user: UserRow, updates: PushFanOut['updates'], ctx: AppContext): HookPayload {
  const pc = hookPresentContext(ctx)
  return {
    event_name: 'repository_update',
    user_id: user.id,
    user_name: user.name,
    user_email: user.email,
    user_avatar: userHookAttrs(user, pc).avatar_url,
    project_id: ref.project.id,
    project: projectHookAttrs(ref, pc, false),
    changes: updates.map((update) => ({ before: update.oldId, after: update.newId, ref: update.ref })),
    refs: updates.map((update) => update.ref),
  }
}

async function pushDeliveries(ctx: AppContext, job: PushFanOut): Promise<Delivery[]> {
  // Independent reads at once: on PostgreSQL each is a round trip the delivery waits for.
  const [ref, user, hooks] = await Promise.all([
    loadProjectRef(ctx.db, job.projectId),
    ctx.db.selectFrom('users').selectAll().where('id', '=', job.userId).executeTakeFirst(),
    hooksFor(ctx.db, job.projectId),
  ])
  if (ref === null || user === undefined) return []
  const repo = ctx.repositories.open(job.projectId)
  const deliveries: Delivery[] = []
  for (const update of job.updates) {
    const isTag = update.ref.startsWith(TAG_PREFIX)
    const flag = isTag ? 'tag_push_events' : 'push_events'
    const branch = shortRefName(update.ref)
    const targets = hooks.filter((hook) => hook[flag] === 1
      && (hook.project_id === null || isTag || branchFilterMatches(hook.push_events_branch_filter, branch)))
    if (targets.length === 0) continue
    const payload = await pushPayload(ctx, ref, user, await pushSelection(repo, update))
    for (const hook of targets) {
      deliveries.push({ hookId: hook.id, event: hook.project_id === null ? SYSTEM_HOOK_HEADER : HOOK_EVENT_HEADERS[flag], payload })
    }
  }
  const updateHooks = hooks.filter((hook) => hook.project_id === null && hook.repository_update_events === 1)
  if (updateHooks.length > 0) {
    const payload = repositoryUpdatePayload(ref, user, job.updates, ctx)
    for (const hook of updateHooks) deliveries.push({ hookId: hook.id, event: SYSTEM_HOOK_HEADER, payload })
  }
  return deliveries
}

function toHooks(hooks: readonly WebHookRow[], flag: HookFlag, event: string, payload: HookPayload): Delivery[] {
  return hooks.filter((hook) => hook[flag] === 1).map((hook) => ({ hookId: hook.id, event, payload }))
}

async function issueDeliveries(ctx: AppContext, activity: IssueActivity): Promise<Delivery[]> {
  const built = await issuePayload(ctx, activity)
  if (built === null) return []
  const hooks = (await hooksFor(ctx.db, activity.projectId)).filter((hook) => hook.project_id !== null)
  // Confidential issues only reach the hooks that asked for them, under their own event name.
  const flag = built.issue.confidential === 1 ? 'confidential_issues_events' : 'issues_events'
  return toHooks(hooks, flag, HOOK_EVENT_HEADERS[flag], built.payload)
}

async function mergeRequestDeliveries(ctx: AppContext, activity: MergeRequestActivity): Promise<Delivery[]> {
  const payload = await mergeRequestPayload(ctx, activity)
  if (payload === null) return []
  const hooks = await hooksFor(ctx.db, activity.projectId)
  return [
    ...toHooks(hooks.filter((hook) => hook.project_id !== null), 'merge_requests_events', HOOK_EVENT_HEADERS.merge_requests_events, payload),
    ...toHooks(hooks.filter((hook) => hook.project_id === null), 'merge_requests_events', SYSTEM_HOOK_HEADER, payload),
  ]
}

async function noteDeliveries(ctx: AppContext, activity: NoteActivity): Promise<Delivery[]> {
  const built = await notePayload(ctx, activity.noteId, activity.userId)
  // System notes ("changed the title…") are not hook events, as in the original.
  if (built === null || built.note.system === 1) return []
  const hooks = (await hooksFor(ctx.db, activity.projectId)).filter((hook) => hook.project_id !== null)
  // A comment on a confidential issue is as secret as the issue.
  const confidential = built.issue?.confidential === 1
  const allowed = confidential ? hooks.filter((hook) => hook.confidential_issues_events === 1) : hooks
  return toHooks(allowed, 'note_events', HOOK_EVENT_HEADERS.note_events, built.payload)
}

async function wikiPageDeliveries(ctx: AppContext, activity: WikiPageActivity): Promise<Delivery[]> {
  const ref = await loadProjectRef(ctx.db, activity.projectId)
  if (ref === null) return []
  const hooks = (await hooksFor(ctx.db, activity.projectId)).filter((hook) => hook.project_id !== null)
  if (!hooks.some((hook) => hook.wiki_page_events === 1)) return []
  return toHooks(hooks, 'wiki_page_events', HOOK_EVENT_HEADERS.wiki_page_events, await wikiPagePayload(ctx, ref, activity))
}

async function ciDeliveries(ctx: AppContext, job: CiFanOut): Promise<Delivery[]> {
  const flag = job.kind === 'pipeline' ? 'pipeline_events' : 'job_events'
  const hooks = (await hooksFor(ctx.db, job.projectId)).filter((hook) => hook.project_id !== null && hook[flag] === 1)
  if (hooks.length === 0) return []
  const payload = job.kind === 'pipeline' ? await pipelinePayload(ctx, job.id) : await jobPayload(ctx, job.id)
  return payload === null ? [] : toHooks(hooks, flag, HOOK_EVENT_HEADERS[flag], payload)
}

/** The deliveries an event makes: one per hook that hears it, each with the payload built once. */
export async function deliveriesOf(ctx: AppContext, job: FanOut): Promise<Delivery[]> {
  switch (job.kind) {
    case 'push': return pushDeliveries(ctx, job)
    case 'pipeline':
    case 'job': return ciDeliveries(ctx, job)
    case 'issue': return issueDeliveries(ctx, job)
    case 'merge_request': return mergeRequestDeliveries(ctx, job)
    case 'note': return noteDeliveries(ctx, job)
    case 'wiki_page': return wikiPageDeliveries(ctx, job)
    case 'system': return (await hooksFor(ctx.db, null)).map((hook) => ({ hookId: hook.id, event: SYSTEM_HOOK_HEADER, payload: job.payload }))
  }
}

// ---- delivery ------------------------------------------------------------------------------------

/** How long a hook with this many failures in a row backs off; 0 while it has failed fewer times than that takes. */
export function backoffMs(failuresInARow: number): number {
  if (failuresInARow < FAILURES_BEFORE_BACKOFF) return 0
  return Math.min(FIRST_BACKOFF_MS * 2 ** Math.min(failuresInARow - FAILURES_BEFORE_BACKOFF, 20), LONGEST_BACKOFF_MS)
}

/** Keeps the outcome of the hook's latest delivery, for operators, and starts or ends its back-off. */
async function recordOutcome(db: Db, hook: WebHookRow, status: number | null, error: string | null): Promise<void> {
  const now = Date.now()
  const failures = error === null ? 0 : hook.failures_in_a_row + 1
  const backoff = backoffMs(failures)
  await db.updateTable('web_hooks').set({
    last_delivery_at: now, last_delivery_status: status, last_delivery_error: error,
    failures_in_a_row: failures, backoff_until: backoff === 0 ? null : now + backoff,
  }).where('id', '=', hook.id).execute()
}

/**
 * Sends one payload to one hook now and records the outcome; a 2xx answer or an OutboundError's
 * reason. Used by the delivery job and by the API's hook tests.
 */
export async function deliver(ctx: AppContext, hook: WebHookRow, event: string, payload: HookPayload, signal?: AbortSignal): Promise<OutboundResponse> {
  const headers: Record<string, string> = { 'X-Service-Event': event }
  const token = hook.encrypted_token === null ? '' : ctx.secrets.open('web_hooks.token', hook.encrypted_token)
  if (token !== '') headers['X-Service-Token'] = token.replace(/[\r\n]/g, '')
  // The original 11.5's names as well: receivers written for it read X-Gitlab-Event and X-Gitlab-Token.
  headers['X-Gitlab-Event'] = event
  if (headers['X-Service-Token'] !== undefined) headers['X-Gitlab-Token'] = headers['X-Service-Token']
  try {
    const response = await postJson(ctx, {
      url: hook.url, body: payload, headers, verifyTls: hook.enable_ssl_verification === 1, allowLocal: hook.project_id === null,
      ...(signal === undefined ? {} : { signal }),
    })
    const ok = response.status >= 200 && response.status < 300
    await recordOutcome(ctx.db, hook, response.status, ok ? null : `HTTP ${response.status}`)
    return response
  } catch (err) {
    await recordOutcome(ctx.db, hook, null, err instanceof Error ? err.message : String(err))
    throw err
  }
}

/** The delivery job: skipped while the hook backs off; throws (to be retried) when the receiver failed. */
export async function runDelivery(ctx: AppContext, job: Delivery, signal: AbortSignal): Promise<void> {
  const hook = await ctx.db.selectFrom('web_hooks').selectAll().where('id', '=', job.hookId).executeTakeFirst()
  if (hook === undefined) return
  if (hook.backoff_until !== null && hook.backoff_until > Date.now()) {
    ctx.log.warn({ hook: hook.id, event: job.event, until: new Date(hook.backoff_until).toISOString() }, 'web hook backing off: delivery skipped')
    return
  }
  let response: OutboundResponse
  try {
    response = await deliver(ctx, hook, job.event, job.payload, signal)
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err)
    // A refused address stays refused until someone changes the hook or the setting: no retry.
    if (err instanceof OutboundError && err.kind === 'blocked') {
      ctx.log.warn({ hook: hook.id, event: job.event, reason }, 'web hook delivery refused')
      return
    }
    ctx.log.warn({ hook: hook.id, event: job.event, reason }, 'web hook delivery failed')
    throw new Error(`web hook ${hook.id}: ${reason}`)
  }
  if (response.status < 200 || response.status >= 300) {
    ctx.log.warn({ hook: hook.id, event: job.event, reason: `HTTP ${response.status}` }, 'web hook delivery failed')
    throw new Error(`web hook ${hook.id}: HTTP ${response.status}`)
  }
}

/** Tells the project's hooks that a pipeline's or a job's status changed, when one listens; after commit. */
export async function enqueueCiHooks(ctx: AppContext, fanOut: CiFanOut): Promise<void> {
  const flag = fanOut.kind === 'pipeline' ? 'pipeline_events' : 'job_events'
  if (await hasAudience(ctx.db, { projectId: fanOut.projectId, project: [flag], system: [] })) await ctx.jobs.enqueue(FAN_OUT_WEB_HOOKS, fanOut)
}

/** The listeners of web hooks; called once from openContext. */
export function registerWebHooks(hooks: Pick<AppContext, 'activity' | 'pushListeners'>): void {
  hooks.activity.add(async (activity, ctx) => {
    if (await hasAudience(ctx.db, audienceOf(activity))) await ctx.jobs.enqueue(FAN_OUT_WEB_HOOKS, activity)
  })
  hooks.pushListeners.add(async (push: CompletedPush, ctx) => {
    if (!await hasAudience(ctx.db, pushAudience(push.project.id))) return
    const job: PushFanOut = {
      kind: 'push',
      projectId: push.project.id,
      userId: push.actor.user.id,
      updates: push.updates.map(({ ref, oldId, newId }) => ({ ref, oldId, newId })),
    }
    await ctx.jobs.enqueue(FAN_OUT_WEB_HOOKS, job)
  })
}
