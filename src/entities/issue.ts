// Issue entities (spec: Issue), as the original's release 11.5 presents them:
//   IssueBasic   what the lists show (GET /issues, /groups/:id/issues, /projects/:id/issues)
//   Issue        IssueBasic + `_links` and `subscribed`: one issue, and every write's answer
import { Type, type Static } from '@sinclair/typebox'
import type { IssueRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, NullableDate, NullableDateTime, NullableString, type PresentContext } from './common.js'
import { Milestone, presentMilestone, type MilestoneEntity, type MilestoneView } from './milestone.js'
import { TimeStats, presentTimeStats } from './time-stats.js'
import { UserBasic, presentUserBasic, type UserBasicEntity } from './user.js'

const NullableUserBasic = Type.Union([UserBasic, Type.Null()])

export const IssueBasic = Type.Object({
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Integer(),
  title: Type.String(),
  description: NullableString,
  state: Type.String(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  closed_at: NullableDateTime,
  /** Who closed it; null while open, and once that account is gone. */
  closed_by: NullableUserBasic,
  /** Titles, sorted. */
  labels: Type.Array(Type.String()),
  milestone: Type.Union([Milestone, Type.Null()]),
  assignees: Type.Array(UserBasic),
  author: UserBasic,
  /** Deprecated: the first of `assignees`. */
  assignee: NullableUserBasic,
  user_notes_count: Type.Integer(),
  upvotes: Type.Integer(),
  downvotes: Type.Integer(),
  due_date: NullableDate,
  confidential: Type.Boolean(),
  discussion_locked: Type.Boolean(),
  web_url: Type.String(),
  time_stats: TimeStats,
})
export type IssueBasicEntity = Static<typeof IssueBasic>

export const IssueLinks = Type.Object({
  self: Type.String(),
  notes: Type.String(),
  award_emoji: Type.String(),
  project: Type.String(),
})

export const Issue = Type.Composite([IssueBasic, Type.Object({
  _links: IssueLinks,
  subscribed: Type.Boolean(),
})])
export type IssueEntity = Static<typeof Issue>

/** An issue with everything its entity shows, loaded in bulk by the finder; presenting never queries. */
export interface IssueView {
  issue: IssueRow
  /** path_with_namespace of its project, for web_url. */
  projectFullPath: string
  author: UserRow
  assignees: UserRow[]
  closedBy: UserRow | null
  /** Label titles, sorted. */
  labels: string[]
  milestone: MilestoneView | null
}


export function issueWebUrl(projectFullPath: string, iid: number, ctx: PresentContext): string {
  return `${ctx.baseUrl}/${projectFullPath}/issues/${iid}`
}

export function presentIssueBasic(view: IssueView, ctx: PresentContext): IssueBasicEntity {
  const { issue } = view
  const assignees: UserBasicEntity[] = view.assignees.map((user) => presentUserBasic(user, ctx))
  const milestone: MilestoneEntity | null = view.milestone === null ? null : presentMilestone(view.milestone, ctx)
  return {
    id: issue.id,
    iid: issue.iid,
    project_id: issue.project_id,
    title: issue.title,
    description: issue.description,
    state: issue.state,
    created_at: isoTime(issue.created_at),
    updated_at: isoTime(issue.updated_at),
    closed_at: isoTime(issue.closed_at),
    closed_by: view.closedBy === null ? null : presentUserBasic(view.closedBy, ctx),
    labels: view.labels,
    milestone,
    assignees,
    author: presentUserBasic(view.author, ctx),
    assignee: assignees[0] ?? null,
    user_notes_count: issue.user_notes_count,
    upvotes: issue.upvotes,
    downvotes: issue.downvotes,
    due_date: issue.due_date,
    confidential: issue.confidential === 1,
    discussion_locked: issue.discussion_locked === 1,
    web_url: issueWebUrl(view.projectFullPath, issue.iid, ctx),
    time_stats: presentTimeStats(issue),
  }
}

export function presentIssue(view: IssueView, ctx: PresentContext, subscribed: boolean): IssueEntity {
  const { issue } = view
  const self = `${ctx.apiUrl}/projects/${issue.project_id}/issues/${issue.iid}`
  return {
    ...presentIssueBasic(view, ctx),
    _links: { self, notes: `${self}/notes`, award_emoji: `${self}/award_emoji`, project: `${ctx.apiUrl}/projects/${issue.project_id}` },
    subscribed,
  }
}
