// Milestone entity (spec: Milestone): a project milestone carries project_id, a group milestone
// group_id; web_url is shown everywhere (the original shows it on lists and embedded in issues and
// merge requests alike).
import { Type, type Static } from '@sinclair/typebox'
import type { MilestoneRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, NullableDate, NullableString, type PresentContext } from './common.js'

export const Milestone = Type.Object({
  id: Type.Integer(),
  iid: Type.Integer(),
  project_id: Type.Optional(Type.Integer()),
  group_id: Type.Optional(Type.Integer()),
  title: Type.String(),
  description: NullableString,
  state: Type.String(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  due_date: NullableDate,
  start_date: NullableDate,
  web_url: Type.String(),
})
export type MilestoneEntity = Static<typeof Milestone>

/** The milestone with the full path of its project or group, which its web_url needs. */
export interface MilestoneView {
  milestone: MilestoneRow
  /** The project's path_with_namespace, or the group's full_path. */
  ownerFullPath: string
}

export function milestoneWebUrl(view: MilestoneView, ctx: PresentContext): string {
  const { milestone, ownerFullPath } = view
  return milestone.group_id !== null
    ? `${ctx.baseUrl}/groups/${ownerFullPath}/-/milestones/${milestone.iid}`
    : `${ctx.baseUrl}/${ownerFullPath}/milestones/${milestone.iid}`
}

export function presentMilestone(view: MilestoneView, ctx: PresentContext): MilestoneEntity {
  const { milestone } = view
  return {
    id: milestone.id,
    iid: milestone.iid,
    ...(milestone.group_id !== null ? { group_id: milestone.group_id } : { project_id: milestone.project_id ?? 0 }),
    title: milestone.title,
    description: milestone.description,
    state: milestone.state,
    created_at: isoTime(milestone.created_at),
    updated_at: isoTime(milestone.updated_at),
    due_date: milestone.due_date,
    start_date: milestone.start_date,
    web_url: milestoneWebUrl(view, ctx),
  }
}
