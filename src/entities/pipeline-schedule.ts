// Pipeline schedule entities of the original 11.5: PipelineSchedule in lists, PipelineScheduleDetails
// (with its last pipeline and its variables) for one, and a schedule's Variable (key and value).
import { Type, type Static } from '@sinclair/typebox'
import type { CiPipelineRow, CiPipelineScheduleRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, Nullable, NullableDateTime, type PresentContext } from './common.js'
import { PipelineBasic, presentPipelineBasic } from './pipeline.js'
import { UserBasic, presentUserBasic } from './user.js'

export const ScheduleVariable = Type.Object({ key: Type.String(), value: Type.String() })

export const PipelineSchedule = Type.Object({
  id: Type.Integer(),
  description: Type.String(),
  ref: Type.String(),
  cron: Type.String(),
  cron_timezone: Type.String(),
  next_run_at: NullableDateTime,
  active: Type.Boolean(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  owner: Nullable(UserBasic),
})
export type PipelineScheduleEntity = Static<typeof PipelineSchedule>

export const PipelineScheduleDetails = Type.Composite([PipelineSchedule, Type.Object({
  last_pipeline: Nullable(PipelineBasic),
  variables: Type.Array(ScheduleVariable),
})])
export type PipelineScheduleDetailsEntity = Static<typeof PipelineScheduleDetails>

export interface PipelineScheduleView {
  schedule: CiPipelineScheduleRow
  owner: UserRow | null
}

export interface PipelineScheduleDetailsView extends PipelineScheduleView {
  lastPipeline: CiPipelineRow | null
  variables: readonly { key: string; value: string }[]
}

export function presentPipelineSchedule({ schedule, owner }: PipelineScheduleView, ctx: PresentContext): PipelineScheduleEntity {
  return {
    id: schedule.id,
    description: schedule.description,
    ref: schedule.ref,
    cron: schedule.cron,
    cron_timezone: schedule.cron_timezone,
    next_run_at: isoTime(schedule.next_run_at),
    active: schedule.active === 1,
    created_at: isoTime(schedule.created_at),
    updated_at: isoTime(schedule.updated_at),
    owner: owner === null ? null : presentUserBasic(owner, ctx),
  }
}

export function presentPipelineScheduleDetails(view: PipelineScheduleDetailsView, projectFullPath: string, ctx: PresentContext): PipelineScheduleDetailsEntity {
  return {
    ...presentPipelineSchedule(view, ctx),
    last_pipeline: view.lastPipeline === null ? null : presentPipelineBasic(view.lastPipeline, projectFullPath, ctx),
    variables: view.variables.map(({ key, value }) => ({ key, value })),
  }
}
