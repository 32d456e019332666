// Label entities, as the original's LabelBasic and Label: the basic form (board lists embed it) and
// the full form of the labels API, with the counts of the issues and merge requests the caller may
// see carrying the label, its priority, and whether the caller subscribed to it.
import { Type, type Static } from '@sinclair/typebox'
import type { LabelRow } from '../db/schema.js'
import { NullableInteger, NullableString } from './common.js'

export const LabelBasic = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  color: Type.String(),
  description: NullableString,
})
export type LabelBasicEntity = Static<typeof LabelBasic>

export const Label = Type.Object({
  ...LabelBasic.properties,
  open_issues_count: Type.Integer(),
  closed_issues_count: Type.Integer(),
  open_merge_requests_count: Type.Integer(),
  priority: NullableInteger,
  subscribed: Type.Boolean(),
})
export type LabelEntity = Static<typeof Label>

export interface LabelView {
  label: LabelRow
  openIssuesCount: number
  closedIssuesCount: number
  openMergeRequestsCount: number
  subscribed: boolean
}

export function presentLabelBasic(label: LabelRow): LabelBasicEntity {
  return { id: label.id, name: label.title, color: label.color, description: label.description }
}

export function presentLabel(view: LabelView): LabelEntity {
  const { label } = view
  return {
    id: label.id,
    name: label.title,
    color: label.color,
    description: label.description,
    open_issues_count: view.openIssuesCount,
    closed_issues_count: view.closedIssuesCount,
    open_merge_requests_count: view.openMergeRequestsCount,
    priority: label.priority,
    subscribed: view.subscribed,
  }
}
