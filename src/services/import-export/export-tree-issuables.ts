// The issues and merge_requests of project.json, read in keyset batches of BATCH_SIZE by iid; each
// batch's events, notes (with their authors and events), label links, milestones, assignees and
// award emoji are read in one query per relation, so the cost is a handful of queries per batch
// whatever the project's size.
import type { AppContext } from '../../context.js'
import type { IssueRow, MergeRequestRow } from '../../db/schema.js'
import { mergeRequestDiffRecord, diffRefsOf } from './export-tree-diffs.js'
import { BATCH_SIZE, bool, groupBy, instant, keysetBatches, mapBatches, parseJson, rowsIn } from './export-tree-json.js'
import {
  awardEmojiOf, eventsOf, labelLinksOf, milestonesById, notesOf, timelogsOf, type DiffRefs, type JsonRecord,
} from './export-tree-records.js'

/** An issue's record with its relations, built as one object literal (no spreading: this runs per issue). */
function issueRecord(issue: IssueRow, relations: {
  events: JsonRecord[]
  notes: JsonRecord[]
  labelLinks: JsonRecord[]
  milestone: JsonRecord | undefined
  assignees: JsonRecord[]
  awards: JsonRecord[]
}): JsonRecord {
  const record: JsonRecord = {
    id: issue.id,
    title: issue.title,
    author_id: issue.author_id,
    project_id: issue.project_id,
    created_at: instant(issue.created_at),
    updated_at: instant(issue.updated_at),
    description: issue.description,
    state: issue.state,
    iid: issue.iid,
    updated_by_id: null,
    confidential: bool(issue.confidential),
    due_date: issue.due_date,
    moved_to_id: issue.moved_to_id,
    time_estimate: Number(issue.time_estimate),
    relative_position: null,
    last_edited_at: null,
    last_edited_by_id: null,
    discussion_locked: bool(issue.discussion_locked),
    closed_at: instant(issue.closed_at),
    closed_by_id: issue.closed_by_id,
    events: relations.events,
    timelogs: timelogsOf(issue, 'issue_id'),
    notes: relations.notes,
    label_links: relations.labelLinks,
  }
  if (relations.milestone !== undefined) record.milestone = relations.milestone
  record.resource_label_events = []
  record.issue_assignees = relations.assignees
  record.award_emoji = relations.awards
  return record
}

const NONE: JsonRecord[] = []

async function issueRecords(ctx: AppContext, issues: IssueRow[]): Promise<JsonRecord[]> {
  const { db } = ctx
  const ids = issues.map((issue) => issue.id)
  const [events, notes, labelLinks, milestones, assignees, awards] = await Promise.all([
    eventsOf(db, 'Issue', ids),
    notesOf(db, 'Issue', ids, { events: true }),
    labelLinksOf(db, 'Issue', ids),
    milestonesById(db, issues.map((issue) => issue.milestone_id)),
    rowsIn(ids, (chunk) => db.selectFrom('issue_assignees').select(['issue_id', 'user_id']).where('issue_id', 'in', chunk).orderBy('issue_id').orderBy('user_id').execute()),
    awardEmojiOf(db, 'Issue', ids),
  ])
  const assigneesOf = groupBy(assignees, (row) => row.issue_id)
  return issues.map((issue) => issueRecord(issue, {
    events: events.get(issue.id) ?? NONE,
    notes: notes.get(issue.id) ?? NONE,
    labelLinks: labelLinks.get(issue.id) ?? NONE,
    milestone: issue.milestone_id === null ? undefined : milestones.get(issue.milestone_id),
    assignees: (assigneesOf.get(issue.id) ?? []).map((row) => ({ user_id: row.user_id, issue_id: row.issue_id })),
    awards: awards.get(issue.id) ?? NONE,
  }))
}

/** The project's issues with their relations, in batches, oldest iid first. */
export function issueBatches(ctx: AppContext, projectId: number): AsyncIterable<JsonRecord[]> {
  const pages = keysetBatches((after) => ctx.db.selectFrom('issues').selectAll()
    .where('project_id', '=', projectId)
    .$if(after !== null, (qb) => qb.where('iid', '>', after!))
    .orderBy('iid').limit(BATCH_SIZE).execute(), (issue) => issue.iid)
  return mapBatches(pages, (issues) => issueRecords(ctx, issues))
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
