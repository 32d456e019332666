// The relations of project.json (11.5's import_export.yml tree) as Ingot's rows: each batch of
// top-level items is written by one function inside the caller's transaction, parents with
// multi-row inserts, then their children in a few multi-row inserts per batch, never one query per
// child. Attributes are read by name from the record, so a key Ingot does not know, an `id`, a
// foreign key of the old instance or a token never reaches a row (11.5's AttributeCleaner); user
// references go through the UserMap.
import { randomBytes } from 'node:crypto'
import { sql, type Insertable } from 'kysely'
import type { Db } from '../../db/index.js'
import type {
  AwardableType, CiPipelineSource, CiStatus, CiWhenColumn, Database, EventsTable, IssuableType, NotesTable,
} from '../../db/schema.js'
import type { SecretBox } from '../../common/secret-box.js'
import { tokenDigest } from '../../auth/secrets.js'
import { nextRunAt } from '../ci/pipeline-schedules.js'
import { INTEGRATION_KINDS } from '../integrations/catalog.js'
import type { BuildOptions } from '../ci/build-options.js'
import {
  bool, dateOf, eventAction, flagOf, instant, int, isRecord, missingAuthorLine, num, records, text, type Json, type UserMap,
} from './restore-values.js'

/** What the batches of one restore share: the target, the user map, and what earlier batches made. */
export interface RestoreState {
  projectId: number
  users: UserMap
  /** Whether the importer is an administrator (a note keeps its author only then). */
  admin: boolean
  secrets: SecretBox
  now: number
  /** Label title → id; old label id → id. */
  labels: Map<string, number>
  labelIds: Map<number, number>
  /** Milestone title → id; old milestone id → id; iids in use. */
  milestones: Map<string, number>
  milestoneIds: Map<number, number>
  milestoneIids: Set<number>
  /** The highest iid restored per usage, for internal_ids. */
  maxIid: { issues: number; merge_requests: number; milestones: number; ci_pipelines: number }
  /** Branches of fork merge requests to create from their head commit once the tree is in. */
  forkBranches: { branch: string; sha: string; base: string | null; target: string }[]
}

type Row<T extends keyof Database> = Insertable<Database[T]>

/** Rows per statement: within both databases' bound-parameter limits for the widest rows here. */
const ROWS_PER_STATEMENT = 500

async function insertRows<T extends keyof Database & string>(trx: Db, table: T, rows: Row<T>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    await trx.insertInto(table).values(rows.slice(i, i + ROWS_PER_STATEMENT) as never).execute()
  }
}

/** Inserts and returns the new ids in the order of `rows` (both databases return a multi-row VALUES insert's rows in order). */
async function insertReturningIds<T extends keyof Database & string>(trx: Db, table: T, rows: Row<T>[]): Promise<number[]> {
  const ids: number[] = []
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
    const out = await trx.insertInto(table).values(rows.slice(i, i + ROWS_PER_STATEMENT) as never)
      .returning('id' as never).execute() as unknown as { id: number }[]
    for (const row of out) ids.push(Number(row.id))
  }
  return ids
}

function created(record: Json, now: number): { created_at: number; updated_at: number } {
  const createdAt = instant(record.created_at) ?? now
  return { created_at: createdAt, updated_at: instant(record.updated_at) ?? createdAt }
}

function color(value: unknown): string {
  return typeof value === 'string' && /^#[0-9a-fA-F]{6}$/.test(value) ? value : '#428BCA'
}

// ---- labels and milestones -------------------------------------------------------------------

export async function restoreLabels(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  for (const item of items) await ensureLabel(trx, state, item)
}

/** The project's label of that title, made from the record when there is none yet (11.5's find-or-create). */
async function ensureLabel(trx: Db, state: RestoreState, label: Json): Promise<number | null> {
  const title = text(label.title)
  if (title === null || title.trim() === '') return null
  const oldId = int(label.id)
  let id = state.labels.get(title)
  if (id === undefined) {
    const priority = records(label.priorities).map((p) => int(p.priority)).find((p) => p !== null) ?? null
    const row = await trx.insertInto('labels').values({
      project_id: state.projectId, group_id: null, title, color: color(label.color), description: text(label.description),
      priority, ...created(label, state.now),
    }).returning('id').executeTakeFirstOrThrow()
    id = Number(row.id)
    state.labels.set(title, id)
  }
  if (oldId !== null) state.labelIds.set(oldId, id)
  return id
}

export async function restoreMilestones(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const events: EventRowWithTarget[] = []
  for (const item of items) {
    const id = await ensureMilestone(trx, state, item)
    if (id === null) continue
    collectEvents(state, events, item.events, { type: 'Milestone', id, iid: int(item.iid), title: text(item.title) })
  }
  await insertEvents(trx, events)
}

async function ensureMilestone(trx: Db, state: RestoreState, milestone: Json): Promise<number | null> {
  const title = text(milestone.title)
  if (title === null || title.trim() === '') return null
  const oldId = int(milestone.id)
  let id = state.milestones.get(title)
  if (id === undefined) {
    let iid = int(milestone.iid)
    if (iid === null || iid < 1 || state.milestoneIids.has(iid)) iid = Math.max(state.maxIid.milestones, ...state.milestoneIids, 0) + 1
    state.milestoneIids.add(iid)
    state.maxIid.milestones = Math.max(state.maxIid.milestones, iid)
    const row = await trx.insertInto('milestones').values({
      project_id: state.projectId, group_id: null, iid, title, description: text(milestone.description),
      due_date: dateOf(milestone.due_date), start_date: dateOf(milestone.start_date),
      state: milestone.state === 'closed' ? 'closed' : 'active', ...created(milestone, state.now),
    }).returning('id').executeTakeFirstOrThrow()
    id = Number(row.id)
    state.milestones.set(title, id)
  }
  if (oldId !== null) state.milestoneIds.set(oldId, id)
  return id
}

/** An issuable's milestone: its nested milestone (found or made by title), else its old milestone id. */
async function milestoneOf(trx: Db, state: RestoreState, item: Json): Promise<number | null> {
  if (isRecord(item.milestone)) return ensureMilestone(trx, state, item.milestone)
  const oldId = int(item.milestone_id)
  return oldId === null ? null : state.milestoneIds.get(oldId) ?? null
}

async function labelIdsOf(trx: Db, state: RestoreState, item: Json): Promise<number[]> {
  const ids = new Set<number>()
  for (const link of records(item.label_links)) {
    const id = isRecord(link.label) ? await ensureLabel(trx, state, link.label) : state.labelIds.get(int(link.label_id) ?? -1) ?? null
    if (id !== null) ids.add(id)
  }
  return [...ids]
}

// ---- events, notes, award emoji --------------------------------------------------------------

type EventRowWithTarget = Row<'events'>

interface EventTargetInfo { type: string; id: number; iid: number | null; title: string | null }

function collectEvents(state: RestoreState, into: EventRowWithTarget[], events: unknown, target: EventTargetInfo): void {
  for (const event of records(events)) {
    const action = eventAction(event.action)
    if (action === null || action === 'pushed') continue
    into.push({
      project_id: state.projectId, author_id: state.users.required(event.author_id), action,
      target_type: target.type, target_id: target.id, target_iid: target.iid, target_title: target.title, push_data: null,
      created_at: instant(event.created_at) ?? state.now,
    } satisfies Insertable<EventsTable>)
  }
}

async function insertEvents(trx: Db, rows: EventRowWithTarget[]): Promise<void> {
  await insertRows(trx, 'events', rows)
}

interface AwardRow { name: string; user_id: number; awardable_type: AwardableType; awardable_id: number; created_at: number; updated_at: number }

function collectAwards(state: RestoreState, into: AwardRow[], awards: unknown, type: AwardableType, id: number): { up: number; down: number } {
  let up = 0
  let down = 0
  const seen = new Set<string>()
  for (const award of records(awards)) {
    const name = text(award.name)
    if (name === null || name === '') continue
    const userId = state.users.required(award.user_id)
    // Two awards of one emoji by users who fell back to the importer are one award.
    if (seen.has(`${name}\u0000${userId}`)) continue
    seen.add(`${name}\u0000${userId}`)
    into.push({ name, user_id: userId, awardable_type: type, awardable_id: id, ...created(award, state.now) })
    if (name === 'thumbsup') up += 1
    if (name === 'thumbsdown') down += 1
  }
  return { up, down }
}

const HEX40 = /^[0-9a-f]{40}$/

/** Random bytes drawn a few thousand discussion ids at a time (one draw per note costs more than its insert). */
let randomPool = Buffer.alloc(0)
let randomAt = 0

function newDiscussionId(): string {
  if (randomAt + 20 > randomPool.length) {
    randomPool = randomBytes(20 * 4096)
    randomAt = 0
  }
  randomAt += 20
  return randomPool.toString('hex', randomAt - 20, randomAt)
}

interface PendingNote { row: Insertable<NotesTable>; source: Json }

/** A note's row: its author mapped, 11.5's missing-author line when the author is not mapped. */
function noteRow(state: RestoreState, note: Json, noteableType: string, noteableId: number): Insertable<NotesTable> {
  let body = text(note.note) ?? ''
  if (!(state.admin && state.users.has(note.author_id))) {
    const author = isRecord(note.author) ? text(note.author.name) : null
    if (body.trim() === '') body = '*Blank note*'
    body += missingAuthorLine(note.updated_at, author ?? 'Unknown')
  }
  const system = bool(note.system) ?? false
  const position = isRecord(note.position) ? note.position : null
  const newPath = position === null ? null : text(position.new_path)
  const newLine = position === null ? null : int(position.new_line)
  const oldLine = position === null ? null : int(position.old_line)
  const isDiff = note.type === 'DiffNote' && position !== null && (newPath !== null || text(position.old_path) !== null)
  const type = isDiff ? 'DiffNote' as const : note.type === 'DiscussionNote' || note.type === 'DiffNote' ? 'DiscussionNote' as const : null
  const discussionId = typeof note.discussion_id === 'string' && HEX40.test(note.discussion_id) ? note.discussion_id : newDiscussionId()
  const resolvedAt = instant(note.resolved_at)
  return {
    project_id: state.projectId, author_id: state.users.required(note.author_id), noteable_type: noteableType, noteable_id: noteableId,
    commit_id: null, body, path: isDiff ? newPath ?? text(position!.old_path) : null,
    line: isDiff ? newLine ?? oldLine : null, line_type: isDiff ? (newLine !== null ? 'new' : 'old') : null,
    system: system ? 1 : 0, discussion_id: discussionId, type,
    resolvable: noteableType === 'MergeRequest' && type !== null && !system ? 1 : 0,
    resolved_at: resolvedAt, resolved_by_id: resolvedAt === null ? null : state.users.optional(note.resolved_by_id),
    ...created(note, state.now),
  }
}

/** Inserts the notes, then their events and award emoji. */
async function insertNotes(trx: Db, state: RestoreState, notes: PendingNote[], events: EventRowWithTarget[], awards: AwardRow[]): Promise<void> {
  if (notes.length === 0) return
  const ids = await insertReturningIds(trx, 'notes', notes.map((n) => n.row))
  notes.forEach((note, i) => {
    const id = ids[i]!
    collectEvents(state, events, note.source.events, { type: 'Note', id, iid: null, title: null })
    collectAwards(state, awards, note.source.award_emoji, 'Note', id)
  })
}

function userNotesCount(notes: unknown): number {
  return records(notes).filter((n) => !(bool(n.system) ?? false)).length
}

function timeSpent(timelogs: unknown): number {
  return records(timelogs).reduce((sum, log) => sum + (int(log.time_spent) ?? 0), 0)
}

/** The archive's iid when it is one, else the next after the highest so far; the highest is kept. */
function keptIid(state: RestoreState, usage: keyof RestoreState['maxIid'], value: unknown): number {
  const given = int(value)
  const iid = given === null || given < 1 ? state.maxIid[usage] + 1 : given
  state.maxIid[usage] = Math.max(state.maxIid[usage], iid)
  return iid
}

// ---- issues ----------------------------------------------------------------------------------

export async function restoreIssues(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const rows: Row<'issues'>[] = []
  const links: number[][] = []
  for (const item of items) {
    const iid = keptIid(state, 'issues', item.iid)
    const award = collectAwards(state, [], item.award_emoji, 'Issue', 0)
    const closed = item.state === 'closed'
    rows.push({
      project_id: state.projectId, iid, author_id: state.users.required(item.author_id), title: text(item.title) ?? '',
      description: text(item.description), state: closed ? 'closed' : 'opened', confidential: flagOf(item.confidential),
      discussion_locked: flagOf(item.discussion_locked), milestone_id: await milestoneOf(trx, state, item),
      due_date: dateOf(item.due_date), closed_at: closed ? instant(item.closed_at) : null,
      closed_by_id: closed ? state.users.optional(item.closed_by_id) : null, moved_to_id: null,
      time_estimate: int(item.time_estimate) ?? 0, total_time_spent: timeSpent(item.timelogs),
      user_notes_count: userNotesCount(item.notes), upvotes: award.up, downvotes: award.down, ...created(item, state.now),
    })
    links.push(await labelIdsOf(trx, state, item))
  }
  const ids = await insertReturningIds(trx, 'issues', rows)
  const assignees: Row<'issue_assignees'>[] = []
  const labelLinks: Row<'label_links'>[] = []
  const notes: PendingNote[] = []
  const events: EventRowWithTarget[] = []
  const awards: AwardRow[] = []
  items.forEach((item, i) => {
    const id = ids[i]!
    const row = rows[i]!
    const users = new Set(records(item.issue_assignees).map((a) => state.users.required(a.user_id)))
    for (const userId of users) assignees.push({ issue_id: id, user_id: userId })
    for (const labelId of links[i]!) labelLinks.push({ label_id: labelId, target_type: 'Issue', target_id: id })
    for (const note of records(item.notes)) notes.push({ row: noteRow(state, note, 'Issue', id), source: note })
    collectEvents(state, events, item.events, { type: 'Issue', id, iid: row.iid, title: row.title })
    collectAwards(state, awards, item.award_emoji, 'Issue', id)
  })
  await insertRows(trx, 'issue_assignees', assignees)
  await insertRows(trx, 'label_links', labelLinks)
  await insertNotes(trx, state, notes, events, awards)
  await insertEvents(trx, events)
  await insertRows(trx, 'award_emoji', awards)
}

// ---- merge requests --------------------------------------------------------------------------

const MR_STATES = new Set(['opened', 'closed', 'merged'])

export async function restoreMergeRequests(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const rows: Row<'merge_requests'>[] = []
  const links: number[][] = []
  for (const item of items) {
    const iid = keptIid(state, 'merge_requests', item.iid)
    const metrics = isRecord(item.metrics) ? item.metrics : {}
    const diff = isRecord(item.merge_request_diff) ? item.merge_request_diff : {}
    const mergeParams = isRecord(item.merge_params) ? item.merge_params : {}
    // A locked merge request was mid-merge when exported: it is open here.
    const mrState = typeof item.state === 'string' && MR_STATES.has(item.state) ? item.state as 'opened' | 'closed' | 'merged' : 'opened'
    const headSha = [item.diff_head_sha, diff.head_commit_sha, item.source_branch_sha].map(text).find((s) => s !== null && /^[0-9a-f]{40}$/.test(s)) ?? null
    const sourceBranch = text(item.source_branch) ?? ''
    const targetBranch = text(item.target_branch) ?? ''
    const sourceProject = int(item.source_project_id)
    const targetProject = int(item.target_project_id)
    const fork = sourceProject === null || (targetProject !== null && sourceProject !== targetProject)
    if (fork && headSha !== null && sourceBranch !== '') {
      state.forkBranches.push({ branch: sourceBranch, sha: headSha, base: text(diff.base_commit_sha), target: targetBranch })
    }
    const award = collectAwards(state, [], item.award_emoji, 'MergeRequest', 0)
    const merged = mrState === 'merged'
    const closed = mrState === 'closed'
    rows.push({
      target_project_id: state.projectId, iid, source_project_id: state.projectId, source_branch: sourceBranch,
      target_branch: targetBranch, author_id: state.users.required(item.author_id), assignee_id: state.users.optional(item.assignee_id),
      title: text(item.title) ?? '', description: text(item.description), state: mrState,
      milestone_id: await milestoneOf(trx, state, item), merge_status: 'unchecked', sha: headSha, target_sha: null,
      merge_commit_sha: merged ? text(item.merge_commit_sha) : null, merge_started_at: null, in_progress_merge_commit_sha: null,
      merged_by_id: merged ? state.users.optional(metrics.merged_by_id ?? item.merged_by_id) : null,
      merged_at: merged ? instant(metrics.merged_at) ?? instant(item.updated_at) : null,
      closed_by_id: closed ? state.users.optional(metrics.latest_closed_by_id) : null,
      closed_at: closed ? instant(metrics.latest_closed_at) ?? instant(item.updated_at) : null,
      discussion_locked: flagOf(item.discussion_locked),
      should_remove_source_branch: bool(mergeParams.force_remove_source_branch) === null ? null : flagOf(mergeParams.force_remove_source_branch),
      force_remove_source_branch: flagOf(mergeParams.force_remove_source_branch),
      allow_collaboration: flagOf(item.allow_maintainer_to_push ?? item.allow_collaboration), squash: flagOf(item.squash),
      // Never merged automatically by a pipeline of this instance.
      merge_when_pipeline_succeeds: 0, merge_user_id: null, merge_params: null,
      time_estimate: int(item.time_estimate) ?? 0, total_time_spent: timeSpent(item.timelogs),
      user_notes_count: userNotesCount(item.notes), upvotes: award.up, downvotes: award.down, ...created(item, state.now),
    })
    links.push(await labelIdsOf(trx, state, item))
  }
  const ids = await insertReturningIds(trx, 'merge_requests', rows)
  const labelLinks: Row<'label_links'>[] = []
  const notes: PendingNote[] = []
  const events: EventRowWithTarget[] = []
  const awards: AwardRow[] = []
  items.forEach((item, i) => {
    const id = ids[i]!
    const row = rows[i]!
    for (const labelId of links[i]!) labelLinks.push({ label_id: labelId, target_type: 'MergeRequest', target_id: id })
    for (const note of records(item.notes)) notes.push({ row: noteRow(state, note, 'MergeRequest', id), source: note })
    collectEvents(state, events, item.events, { type: 'MergeRequest', id, iid: row.iid, title: row.title })
    collectAwards(state, awards, item.award_emoji, 'MergeRequest', id)
  })
  await insertRows(trx, 'label_links', labelLinks)
  await insertNotes(trx, state, notes, events, awards)
  await insertEvents(trx, events)
  await insertRows(trx, 'award_emoji', awards)
}

// ---- snippets, releases ----------------------------------------------------------------------

export async function restoreSnippets(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const rows: Row<'snippets'>[] = items.map((item) => ({
    project_id: state.projectId, author_id: state.users.required(item.author_id), title: text(item.title) ?? '',
    file_name: text(item.file_name) ?? '', description: text(item.description), content: text(item.content) ?? '',
    visibility_level: visibility(item.visibility_level), ...created(item, state.now),
  }))
  const ids = await insertReturningIds(trx, 'snippets', rows)
  const notes: PendingNote[] = []
  const events: EventRowWithTarget[] = []
  const awards: AwardRow[] = []
  items.forEach((item, i) => {
    for (const note of records(item.notes)) notes.push({ row: noteRow(state, note, 'Snippet', ids[i]!), source: note })
    collectAwards(state, awards, item.award_emoji, 'Snippet', ids[i]!)
  })
  await insertNotes(trx, state, notes, events, awards)
  await insertEvents(trx, events)
  await insertRows(trx, 'award_emoji', awards)
}

function visibility(value: unknown): 0 | 10 | 20 {
  const n = int(value)
  return n === 20 ? 20 : n === 10 ? 10 : 0
}

export async function restoreReleases(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const seen = new Set<string>()
  const rows: Row<'releases'>[] = []
  for (const item of items) {
    const tag = text(item.tag)
    if (tag === null || tag === '' || seen.has(tag)) continue
    seen.add(tag)
    rows.push({ project_id: state.projectId, tag, description: text(item.description) ?? '', author_id: state.users.optional(item.author_id), ...created(item, state.now) })
  }
  await insertRows(trx, 'releases', rows)
}

// ---- CI --------------------------------------------------------------------------------------

const CI_STATUSES = new Set<CiStatus>(['created', 'pending', 'running', 'success', 'failed', 'canceled', 'skipped', 'manual', 'scheduled'])
/** A pipeline or job that was waiting or running when exported is a record here, never run: canceled. */
const STILL_RUNNING = new Set<CiStatus>(['created', 'pending', 'running', 'scheduled'])
const SOURCES = new Set<CiPipelineSource>(['push', 'web', 'trigger', 'schedule', 'api', 'external', 'pipeline', 'chat'])
const WHENS = new Set<CiWhenColumn>(['on_success', 'on_failure', 'always', 'manual', 'delayed'])

function historicalStatus(value: unknown): CiStatus {
  const status = typeof value === 'string' && CI_STATUSES.has(value as CiStatus) ? value as CiStatus : 'canceled'
  return STILL_RUNNING.has(status) ? 'canceled' : status
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []
}

/** The original's job options as Ingot's BuildOptions: the scripts kept, the rest left out (the job never runs again). */
function buildOptions(value: unknown): string {
  const options = isRecord(value) ? value : {}
  const built: BuildOptions = {
    before_script: strings(options.before_script), script: strings(options.script), after_script: strings(options.after_script),
    image: null, services: [], artifacts: null, cache: null, environment: null, retry: null,
    dependencies: Array.isArray(options.dependencies) ? strings(options.dependencies) : null, parallel: null, start_in: null,
  }
  return JSON.stringify(built)
}

function yamlVariables(value: unknown): string {
  const vars = records(value).flatMap((v) => {
    const key = text(v.key)
    return key === null ? [] : [{ key, value: text(v.value) ?? '', public: true as const }]
  })
  return JSON.stringify(vars)
}

export async function restorePipelines(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const rows: Row<'ci_pipelines'>[] = items.map((item) => {
    const iid = keptIid(state, 'ci_pipelines', item.iid)
    const source = typeof item.source === 'string' && SOURCES.has(item.source as CiPipelineSource) ? item.source as CiPipelineSource : 'push'
    return {
      project_id: state.projectId, iid, ref: text(item.ref) ?? '', tag: flagOf(item.tag), sha: text(item.sha) ?? '',
      before_sha: text(item.before_sha), source, status: historicalStatus(item.status), yaml_errors: text(item.yaml_errors),
      failure_reason: text(item.failure_reason), user_id: state.users.optional(item.user_id), committed_at: instant(item.committed_at),
      started_at: instant(item.started_at), finished_at: instant(item.finished_at), duration: int(item.duration),
      coverage: text(item.coverage), pipeline_schedule_id: null, ...created(item, state.now),
    }
  })
  const ids = await insertReturningIds(trx, 'ci_pipelines', rows)
  const builds: Row<'ci_builds'>[] = []
  items.forEach((item, i) => {
    for (const stage of records(item.stages)) {
      for (const status of records(stage.statuses)) {
        const external = status.type === 'GenericCommitStatus'
        const when = typeof status.when === 'string' && WHENS.has(status.when as CiWhenColumn) ? status.when as CiWhenColumn : 'on_success'
        builds.push({
          pipeline_id: ids[i]!, project_id: state.projectId, name: text(status.name) ?? '', stage: text(status.stage) ?? text(stage.name) ?? 'test',
          stage_idx: int(status.stage_idx) ?? int(stage.position) ?? 0, status: historicalStatus(status.status), when,
          allow_failure: flagOf(status.allow_failure), options: buildOptions(status.options), yaml_variables: yamlVariables(status.yaml_variables),
          tag_list: '[]', coverage_regex: text(status.coverage_regex), coverage: num(status.coverage),
          user_id: state.users.optional(status.user_id), runner_id: null, token_digest: null, retried: flagOf(status.retried),
          failure_reason: text(status.failure_reason), queued_at: instant(status.queued_at), started_at: instant(status.started_at),
          finished_at: instant(status.finished_at), scheduled_at: null, ...created(status, state.now),
          kind: external ? 'external' : 'ci', target_url: external ? text(status.target_url) : null,
          description: external ? text(status.description) : null,
        })
      }
    }
  })
  await insertRows(trx, 'ci_builds', builds)
}

export async function restoreTriggers(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  // New tokens: the exported ones are the old instance's secrets (11.5 resets them too).
  const rows: Row<'ci_triggers'>[] = items.map((item) => {
    const token = randomBytes(15).toString('hex')
    return {
      project_id: state.projectId, owner_id: state.users.required(item.owner_id), description: text(item.description),
      token_digest: tokenDigest(token), encrypted_token: state.secrets.seal('ci.triggers', token), last_used_at: null,
      ...created(item, state.now),
    }
  })
  await insertRows(trx, 'ci_triggers', rows)
}

export async function restorePipelineSchedules(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const rows: Row<'ci_pipeline_schedules'>[] = items.flatMap((item) => {
    const cron = text(item.cron)
    const ref = text(item.ref)
    if (cron === null || ref === null) return []
    const zone = text(item.cron_timezone) ?? 'UTC'
    return [{
      project_id: state.projectId, owner_id: state.users.required(item.owner_id), description: text(item.description) ?? '',
      ref, cron, cron_timezone: zone, next_run_at: nextRunAt(cron, zone, state.now), active: flagOf(item.active, true),
      ...created(item, state.now),
    }]
  })
  await insertRows(trx, 'ci_pipeline_schedules', rows)
}

// ---- integrations, hooks, protected refs, badges, custom attributes --------------------------

const HOOK_FLAGS = [
  'push_events', 'tag_push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events', 'note_events',
  'job_events', 'pipeline_events', 'wiki_page_events', 'repository_update_events',
] as const

const INTEGRATION_FLAGS = [
  'push_events', 'issues_events', 'confidential_issues_events', 'merge_requests_events', 'tag_push_events', 'note_events',
  'confidential_note_events', 'pipeline_events', 'wiki_page_events', 'job_events',
] as const

/** 'HangoutsChatService' → 'hangouts-chat', the original's API slug. */
function serviceSlug(type: string): string {
  return type.replace(/Service$/, '').replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()
}

export async function restoreServices(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const rows: Row<'integrations'>[] = []
  const seen = new Set<string>()
  for (const item of items) {
    const type = text(item.type)
    if (type === null) continue
    const slug = serviceSlug(type)
    const kind = INTEGRATION_KINDS.find((k) => k.slug === slug || k.originalSlug === slug)
    if (kind === undefined || seen.has(kind.slug)) continue
    seen.add(kind.slug)
    // Settings without their secrets (passwords, tokens, keys): an integration that needs one is
    // restored inactive, to be completed by a maintainer.
    const properties = isRecord(item.properties) ? item.properties : {}
    const settings: Record<string, unknown> = {}
    for (const field of kind.fields) {
      if (field.secret) continue
      const value = properties[field.originalName ?? field.name] ?? properties[field.name]
      if (value !== undefined && value !== null) settings[field.name] = value
    }
    const complete = kind.fields.every((f) => !f.required || (settings[f.name] !== undefined && String(settings[f.name]).trim() !== ''))
    const flags = Object.fromEntries(INTEGRATION_FLAGS.map((name) => [name, flagOf(item[name], true)]))
    rows.push({
      project_id: state.projectId, kind: kind.slug, active: (bool(item.active) ?? false) && complete ? 1 : 0,
      encrypted_properties: Object.keys(settings).length === 0 ? null : state.secrets.seal('integrations.secrets', JSON.stringify(settings)),
      ...flags, ...created(item, state.now),
    })
  }
  await insertRows(trx, 'integrations', rows)
}

export async function restoreHooks(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const rows: Row<'web_hooks'>[] = items.flatMap((item) => {
    const url = text(item.url)
    if (url === null || url === '') return []
    const flags = Object.fromEntries(HOOK_FLAGS.map((name) => [name, flagOf(item[name], name === 'push_events')]))
    return [{
      project_id: state.projectId, url, encrypted_token: null, enable_ssl_verification: flagOf(item.enable_ssl_verification, true),
      push_events_branch_filter: text(item.push_events_branch_filter), ...flags, last_delivery_at: null, last_delivery_status: null,
      last_delivery_error: null, backoff_until: null, ...created(item, state.now),
    }]
  })
  await insertRows(trx, 'web_hooks', rows)
}

/** The most permissive access level of a protected ref's list (Ingot keeps one level per action); Maintainers when none. */
function accessLevel(levels: unknown): number {
  const values = records(levels).map((l) => int(l.access_level)).filter((v): v is number => v !== null && [0, 30, 40, 60].includes(v))
  if (values.length === 0) return 40
  const open = values.filter((v) => v > 0)
  return open.length === 0 ? 0 : Math.min(...open)
}

export async function restoreProtectedBranches(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const seen = new Set<string>()
  const rows: Row<'protected_branches'>[] = items.flatMap((item) => {
    const name = text(item.name)
    if (name === null || name === '' || seen.has(name)) return []
    seen.add(name)
    return [{
      project_id: state.projectId, name, push_access_level: accessLevel(item.push_access_levels),
      merge_access_level: accessLevel(item.merge_access_levels), ...created(item, state.now),
    }]
  })
  await insertRows(trx, 'protected_branches', rows)
}

export async function restoreProtectedTags(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const seen = new Set<string>()
  const rows: Row<'protected_tags'>[] = items.flatMap((item) => {
    const name = text(item.name)
    if (name === null || name === '' || seen.has(name)) return []
    seen.add(name)
    return [{ project_id: state.projectId, name, create_access_level: accessLevel(item.create_access_levels), ...created(item, state.now) }]
  })
  await insertRows(trx, 'protected_tags', rows)
}

export async function restoreBadges(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  // Group badges are the group's (11.5 exports only ProjectBadge rows; a GroupBadge is left out).
  const rows: Row<'badges'>[] = items.flatMap((item) => {
    const link = text(item.link_url)
    const image = text(item.image_url)
    if (link === null || image === null || (item.type !== undefined && item.type !== 'ProjectBadge')) return []
    return [{ link_url: link, image_url: image, project_id: state.projectId, group_id: null, ...created(item, state.now) }]
  })
  await insertRows(trx, 'badges', rows)
}

export async function restoreCustomAttributes(trx: Db, state: RestoreState, items: Json[]): Promise<void> {
  const seen = new Set<string>()
  const rows: Row<'custom_attributes'>[] = items.flatMap((item) => {
    const key = text(item.key)
    const value = text(item.value)
    if (key === null || value === null || seen.has(key)) return []
    seen.add(key)
    return [{ subject_type: 'project' as const, subject_id: state.projectId, key, value, ...created(item, state.now) }]
  })
  await insertRows(trx, 'custom_attributes', rows)
}

/** Every relation Ingot restores, by its key in project.json, with the items per transaction. */
export const RELATIONS: Record<string, { batch: number; restore: (trx: Db, state: RestoreState, items: Json[]) => Promise<void> }> = {
  labels: { batch: 500, restore: restoreLabels },
  milestones: { batch: 500, restore: restoreMilestones },
  issues: { batch: 500, restore: restoreIssues },
  snippets: { batch: 200, restore: restoreSnippets },
  releases: { batch: 500, restore: restoreReleases },
  merge_requests: { batch: 200, restore: restoreMergeRequests },
  pipelines: { batch: 200, restore: restorePipelines },
  triggers: { batch: 500, restore: restoreTriggers },
  pipeline_schedules: { batch: 500, restore: restorePipelineSchedules },
  services: { batch: 500, restore: restoreServices },
  hooks: { batch: 500, restore: restoreHooks },
  protected_branches: { batch: 500, restore: restoreProtectedBranches },
  protected_tags: { batch: 500, restore: restoreProtectedTags },
  project_badges: { batch: 500, restore: restoreBadges },
  custom_attributes: { batch: 500, restore: restoreCustomAttributes },
}

/** Bumps the project's sequences so numbers made after the import follow the highest restored. */
export async function bumpInternalIds(trx: Db, state: RestoreState): Promise<void> {
  for (const usage of ['issues', 'merge_requests', 'milestones', 'ci_pipelines'] as const) {
    const value = state.maxIid[usage]
    if (value < 1) continue
    await trx.insertInto('internal_ids').values({ owner_type: 'project', owner_id: state.projectId, usage, last_value: value })
      .onConflict((oc) => oc.columns(['owner_type', 'owner_id', 'usage']).doUpdateSet({
        last_value: sql<number>`case when internal_ids.last_value > ${value} then internal_ids.last_value else ${value} end`,
      })).execute()
  }
}

export type { IssuableType }
