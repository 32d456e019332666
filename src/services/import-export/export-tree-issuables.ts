// The issues and merge_requests of project.json, read in keyset batches of BATCH_SIZE by iid. An
// issue's record with all its relations is written by the database (export-tree-sql-json.ts), one
// query per batch; a merge request's relations (events, notes with their authors and events, label
// links, milestones, award emoji) are read in one query per relation per batch. Either way the
// cost is a handful of queries per batch whatever the project's size.
import { sql } from 'kysely'
import type { AppContext } from '../../context.js'
import type { MergeRequestRow } from '../../db/schema.js'
import { mergeRequestDiffRecord, diffRefsOf } from './export-tree-diffs.js'
import { BATCH_SIZE, bool, instant, keysetBatches, mapBatches, parseJson } from './export-tree-json.js'
import {
  awardEmojiJson, awardEmojiOf, eventsJson, eventsOf, labelLinksJson, labelLinksOf, milestoneJson, milestonesById, notesJson, notesOf,
  timelogsJson, timelogsOf, type DiffRefs, type JsonRecord,
} from './export-tree-records.js'
import { constant, JsonText, SqlJsonDialect, type SqlJson } from './export-tree-sql-json.js'

/**
 * An issue's record with its relations, as the original writes it, by the database (aliased `i`).
 * The notes are null when one of them sits on a diff line (see notesJson); `[]` stands for them
 * in the record then.
 */
function issueJson(json: SqlJsonDialect): { record: SqlJson; notes: SqlJson } {
  const i = (name: string) => sql.ref(`i.${name}`)
  const record = json.object([
    ['id', json.value(i('id'))],
    ['title', json.value(i('title'))],
    ['author_id', json.value(i('author_id'))],
    ['project_id', json.value(i('project_id'))],
    ['created_at', json.instant(i('created_at'))],
    ['updated_at', json.instant(i('updated_at'))],
    ['description', json.value(i('description'))],
    ['state', json.value(i('state'))],
    ['iid', json.value(i('iid'))],
    ['updated_by_id', constant(null)],
    ['confidential', json.flag(i('confidential'))],
    ['due_date', json.value(i('due_date'))],
    ['moved_to_id', json.value(i('moved_to_id'))],
    ['time_estimate', json.number(i('time_estimate'))],
    ['relative_position', constant(null)],
    ['last_edited_at', constant(null)],
    ['last_edited_by_id', constant(null)],
    ['discussion_locked', json.flag(i('discussion_locked'))],
    ['closed_at', json.instant(i('closed_at'))],
    ['closed_by_id', json.value(i('closed_by_id'))],
    ['events', eventsJson(json, 'Issue', i('id'))],
    ['timelogs', timelogsJson(json, 'i', 'issue_id')],
    ['notes', constant([])],
    ['label_links', labelLinksJson(json, 'Issue', i('id'))],
    json.optional('milestone', milestoneJson(json, i('milestone_id'))),
    ['resource_label_events', constant([])],
    ['issue_assignees', json.array(json.object([
      ['user_id', json.value(sql.ref('ia.user_id'))],
      ['issue_id', json.value(sql.ref('ia.issue_id'))],
    ]), sql`from issue_assignees ia where ia.issue_id = ${i('id')}`, sql.ref('ia.user_id'))],
    ['award_emoji', awardEmojiJson(json, 'Issue', i('id'))],
  ])
  return { record, notes: notesJson(json, 'Issue', i('id')) }
}

/** Where the issue's notes go in issueJson's record: the first such text (inside a JSON string every `"` is escaped). */
const NOTES_PLACE = ',"notes":[],"label_links":'

/**
 * The records of one batch of issues, from the database's JSON. An issue whose notes the
 * database could not write gets them from noteRecord.
 */
async function issueRecords(ctx: AppContext, rows: Array<{ id: number; record: string; notes: string | null }>): Promise<JsonText[]> {
  const withDiffNotes = rows.filter((row) => row.notes === null).map((row) => row.id)
  const diffNotes = withDiffNotes.length === 0 ? new Map<number, JsonRecord[]>() : await notesOf(ctx.db, 'Issue', withDiffNotes, { events: true })
  return rows.map((row) => new JsonText(row.record.replace(NOTES_PLACE,
    () => `,"notes":${row.notes ?? JSON.stringify(diffNotes.get(row.id) ?? [])},"label_links":`)))
}

/** The project's issues with their relations, in batches, oldest iid first. */
export function issueBatches(ctx: AppContext, projectId: number): AsyncIterable<JsonText[]> {
  const { record, notes } = issueJson(new SqlJsonDialect(ctx.db))
  const pages = keysetBatches((after) => ctx.db.selectFrom('issues as i')
    .select(['i.id', 'i.iid', record.as('record'), notes.as('notes')])
    .where('i.project_id', '=', projectId)
    .$if(after !== null, (qb) => qb.where('i.iid', '>', after!))
    .orderBy('i.iid').limit(BATCH_SIZE).execute(), (issue) => issue.iid)
  return mapBatches(pages, (rows) => issueRecords(ctx, rows))
}

/** The branch head of a repository, or null when the branch is gone (read through the cat-file reader). */
async function branchHead(ctx: AppContext, projectId: number | null, branch: string): Promise<string | null> {
  if (projectId === null) return null
  return (await ctx.repositories.open(projectId).info(`refs/heads/${branch}^{commit}`).catch(() => null))?.oid ?? null
}

/** The original's merge_params hash: the options the merge uses, with force_remove_source_branch as '1'/'0'. */
function mergeParamsOf(mr: MergeRequestRow): JsonRecord {
  const stored = parseJson(mr.merge_params, {})
  return {
    ...typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? stored as JsonRecord : {},
    force_remove_source_branch: bool(mr.force_remove_source_branch) ? '1' : '0',
  }
}

function mergeRequestRecord(mr: MergeRequestRow): JsonRecord {
  return {
    id: mr.id,
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    source_project_id: mr.source_project_id,
    author_id: mr.author_id,
    assignee_id: mr.assignee_id,
    title: mr.title,
    created_at: instant(mr.created_at),
    updated_at: instant(mr.updated_at),
    state: mr.state,
    merge_status: mr.merge_status,
    target_project_id: mr.target_project_id,
    iid: mr.iid,
    description: mr.description,
    updated_by_id: null,
    merge_error: null,
    merge_params: mergeParamsOf(mr),
    merge_when_pipeline_succeeds: bool(mr.merge_when_pipeline_succeeds),
    merge_user_id: mr.merge_user_id,
    merge_commit_sha: mr.merge_commit_sha,
    in_progress_merge_commit_sha: mr.in_progress_merge_commit_sha,
    time_estimate: Number(mr.time_estimate),
    squash: bool(mr.squash),
    last_edited_at: null,
    last_edited_by_id: null,
    head_pipeline_id: null,
    discussion_locked: bool(mr.discussion_locked),
    allow_maintainer_to_push: bool(mr.allow_collaboration),
  }
}

function metricsRecord(mr: MergeRequestRow): JsonRecord {
  return {
    merge_request_id: mr.id,
    latest_build_started_at: null,
    latest_build_finished_at: null,
    first_deployed_to_production_at: null,
    merged_at: instant(mr.merged_at),
    created_at: instant(mr.created_at),
    updated_at: instant(mr.updated_at),
    pipeline_id: null,
    merged_by_id: mr.merged_by_id,
    latest_closed_by_id: mr.closed_by_id,
    latest_closed_at: instant(mr.closed_at),
  }
}

/** What git gives each merge request: its diff's commits and the heads of its branches. */
interface MergeRequestGit {
  refs: DiffRefs
  sourceBranchSha: string | null
  targetBranchSha: string | null
}

async function mergeRequestGit(ctx: AppContext, mr: MergeRequestRow): Promise<MergeRequestGit> {
  const [refs, sourceBranchSha, targetBranchSha] = await Promise.all([
    diffRefsOf(ctx, mr),
    branchHead(ctx, mr.source_project_id, mr.source_branch),
    branchHead(ctx, mr.target_project_id, mr.target_branch),
  ])
  return { refs, sourceBranchSha, targetBranchSha }
}

/**
 * The records of one batch of merge requests, yielded one at a time: the batch's relations are read
 * together, but each diff is read from git only when its merge request is written, so at most one
 * diff is held at once.
 */
async function* mergeRequestRecords(ctx: AppContext, mrs: MergeRequestRow[]): AsyncIterable<JsonRecord[]> {
  const { db } = ctx
  const ids = mrs.map((mr) => mr.id)
  // The diff notes' positions need each diff's commits.
  const git = new Map<number, MergeRequestGit>()
  for (const mr of mrs) git.set(mr.id, await mergeRequestGit(ctx, mr))
  const [events, notes, labelLinks, milestones, awards] = await Promise.all([
    eventsOf(db, 'MergeRequest', ids),
    notesOf(db, 'MergeRequest', ids, { events: true, diffRefs: (id) => git.get(id)?.refs }),
    labelLinksOf(db, 'MergeRequest', ids),
    milestonesById(db, mrs.map((mr) => mr.milestone_id)),
    awardEmojiOf(db, 'MergeRequest', ids),
  ])
  for (const mr of mrs) {
    const { refs, sourceBranchSha, targetBranchSha } = git.get(mr.id)!
    const milestone = mr.milestone_id === null ? undefined : milestones.get(mr.milestone_id)
    yield [{
      ...mergeRequestRecord(mr),
      diff_head_sha: mr.sha,
      source_branch_sha: sourceBranchSha,
      target_branch_sha: targetBranchSha,
      metrics: metricsRecord(mr),
      notes: notes.get(mr.id) ?? [],
      merge_request_diff: await mergeRequestDiffRecord(ctx, mr, refs),
      events: events.get(mr.id) ?? [],
      timelogs: timelogsOf(mr, 'merge_request_id'),
      label_links: labelLinks.get(mr.id) ?? [],
      ...milestone === undefined ? {} : { milestone },
      resource_label_events: [],
      award_emoji: awards.get(mr.id) ?? [],
    }]
  }
}

/** The project's merge requests (those listed in it, its target) with their relations, oldest iid first. */
export async function* mergeRequestBatches(ctx: AppContext, projectId: number): AsyncIterable<JsonRecord[]> {
  const pages = keysetBatches((after) => ctx.db.selectFrom('merge_requests').selectAll()
    .where('target_project_id', '=', projectId)
    .$if(after !== null, (qb) => qb.where('iid', '>', after!))
    .orderBy('iid').limit(BATCH_SIZE).execute(), (mr) => mr.iid)
  for await (const mrs of pages) yield* mergeRequestRecords(ctx, mrs)
}
