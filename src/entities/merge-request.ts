// Merge request entities (spec: Merge request), in the original's three forms:
//   MergeRequestSimple  id, iid, project_id, title, description, state, timestamps, web_url (view=simple)
//   MergeRequestBasic   every field of the spec (the lists)
//   MergeRequest        + subscribed, changes_count, diff_refs and the pipeline fields (one merge request; `pipeline` is the head pipeline)
import { Type, type Static } from '@sinclair/typebox'
import type { CiPipelineRow, MergeRequestRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, Nullable, NullableDateTime, NullableString, type PresentContext } from './common.js'
import { Milestone, presentMilestone, type MilestoneView } from './milestone.js'
import { PipelineBasic, presentPipelineBasic } from './pipeline.js'
import { TimeStats, presentTimeStats } from './time-stats.js'
import { UserBasic, presentUserBasic } from './user.js'

const simpleFields = {
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  description: NullableString,
  state: Type.String(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  web_url: Type.String(),
}

export const MergeRequestSimple = Type.Object(simpleFields)
export type MergeRequestSimpleEntity = Static<typeof MergeRequestSimple>

const NullableUser = Nullable(UserBasic)

export const MergeRequestBasic = Type.Object({
  ...simpleFields,
  merged_by: NullableUser,
  merged_at: NullableDateTime,
  closed_by: NullableUser,
  closed_at: NullableDateTime,
  target_branch: Type.String(),
  source_branch: Type.String(),
  upvotes: Type.Integer(),
  downvotes: Type.Integer(),
  author: UserBasic,
  assignee: NullableUser,
  source_project_id: Nullable(Type.Integer()),
  target_project_id: Type.Integer(),
  labels: Type.Array(Type.String()),
  work_in_progress: Type.Boolean(),
  milestone: Nullable(Milestone),
  merge_when_pipeline_succeeds: Type.Boolean(),
  merge_status: Type.String(),
  sha: NullableString,
  merge_commit_sha: NullableString,
  user_notes_count: Type.Integer(),
  discussion_locked: Type.Boolean(),
  should_remove_source_branch: Nullable(Type.Boolean()),
  force_remove_source_branch: Type.Boolean(),
  allow_collaboration: Type.Boolean(),
  allow_maintainer_to_push: Type.Boolean(),
  time_stats: TimeStats,
  squash: Type.Boolean(),
})
export type MergeRequestBasicEntity = Static<typeof MergeRequestBasic>

export const DiffRefs = Type.Object({ base_sha: NullableString, head_sha: NullableString, start_sha: NullableString })
export type DiffRefsEntity = Static<typeof DiffRefs>

export const MergeRequest = Type.Object({
  ...MergeRequestBasic.properties,
  subscribed: Type.Boolean(),
  changes_count: NullableString,
  diff_refs: Nullable(DiffRefs),
  // Shown while the project's jobs are enabled, as the original shows them while builds are.
  latest_build_started_at: Type.Optional(NullableDateTime),
  latest_build_finished_at: Type.Optional(NullableDateTime),
  first_deployed_to_production_at: Type.Optional(NullableDateTime),
  pipeline: Type.Optional(Nullable(PipelineBasic)),
})
export type MergeRequestEntity = Static<typeof MergeRequest>

/** Everything the list form shows beyond the row, loaded in bulk by loadMergeRequestViews. */
export interface MergeRequestView {
  mergeRequest: MergeRequestRow
  /** The target project's path_with_namespace, for web_url. */
  projectFullPath: string
  author: UserRow
  assignee: UserRow | null
  mergedBy: UserRow | null
  closedBy: UserRow | null
  /** Sorted titles. */
  labels: string[]
  milestone: MilestoneView | null
}

/** What only the single form shows: the caller's subscription and the repository side. */
export interface MergeRequestDetails {
  subscribed: boolean
  /** The number of changed files, as a string ("3"); null before the source branch was read. */
  changesCount: string | null
  diffRefs: DiffRefsEntity | null
  /** Whether the project's jobs are enabled (the pipeline fields are shown then). */
  jobsEnabled: boolean
  /** The head pipeline (finders/merge-request-pipelines.ts) and its project's path. */
  headPipeline: { pipeline: CiPipelineRow; projectFullPath: string } | null
}

/** "WIP: …" or "[WIP] …", in any case, as the original's work_in_progress? reads a title. */
const WORK_IN_PROGRESS = /^(\[wip\]|wip:)/i

export function isWorkInProgress(title: string): boolean {
  return WORK_IN_PROGRESS.test(title)
}

export function mergeRequestWebUrl(projectFullPath: string, iid: number, ctx: PresentContext): string {
  return `${ctx.baseUrl}/${projectFullPath}/merge_requests/${iid}`
}

export function presentMergeRequestSimple(view: MergeRequestView, ctx: PresentContext): MergeRequestSimpleEntity {
  const mr = view.mergeRequest
  return {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.target_project_id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: isoTime(mr.created_at),
    updated_at: isoTime(mr.updated_at),
    web_url: mergeRequestWebUrl(view.projectFullPath, mr.iid, ctx),
  }
}

export function presentMergeRequestBasic(view: MergeRequestView, ctx: PresentContext): MergeRequestBasicEntity {
  const mr = view.mergeRequest
  const user = (row: UserRow | null) => (row === null ? null : presentUserBasic(row, ctx))
  // A merge request from a fork lets the target's maintainers push to its source branch when allowed.
  const collaboration = mr.source_project_id !== null && mr.source_project_id !== mr.target_project_id && mr.allow_collaboration === 1
  return {
    ...presentMergeRequestSimple(view, ctx),
    merged_by: user(view.mergedBy),
    merged_at: isoTime(mr.merged_at),
    closed_by: user(view.closedBy),
    closed_at: isoTime(mr.closed_at),
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    upvotes: mr.upvotes,
    downvotes: mr.downvotes,
    author: presentUserBasic(view.author, ctx),
    assignee: user(view.assignee),
    source_project_id: mr.source_project_id,
    target_project_id: mr.target_project_id,
    labels: view.labels,
    work_in_progress: isWorkInProgress(mr.title),
    milestone: view.milestone === null ? null : presentMilestone(view.milestone, ctx),
    merge_when_pipeline_succeeds: mr.merge_when_pipeline_succeeds === 1,
    merge_status: mr.merge_status,
    sha: mr.sha,
    merge_commit_sha: mr.merge_commit_sha,
    user_notes_count: mr.user_notes_count,
    discussion_locked: mr.discussion_locked === 1,
    should_remove_source_branch: mr.should_remove_source_branch === null ? null : mr.should_remove_source_branch === 1,
    force_remove_source_branch: mr.force_remove_source_branch === 1,
    allow_collaboration: collaboration,
    allow_maintainer_to_push: collaboration,
    time_stats: presentTimeStats(mr),
    squash: mr.squash === 1,
  }
}

/** The single form: GET, PUT and the other answers about one merge request. */
export function presentMergeRequest(view: MergeRequestView, details: MergeRequestDetails, ctx: PresentContext): MergeRequestEntity {
  return {
    ...presentMergeRequestBasic(view, ctx),
    subscribed: details.subscribed,
    changes_count: details.changesCount,
    diff_refs: details.diffRefs,
    ...(details.jobsEnabled
      ? {
          // The original's merge request metrics, which its head pipeline's moves keep (MergeRequestMetricsService).
          latest_build_started_at: isoTime(details.headPipeline?.pipeline.started_at ?? null),
          latest_build_finished_at: isoTime(details.headPipeline?.pipeline.finished_at ?? null),
          first_deployed_to_production_at: null,
          pipeline: details.headPipeline === null ? null : presentPipelineBasic(details.headPipeline.pipeline, details.headPipeline.projectFullPath, ctx),
        }
      : {}),
  }
}
