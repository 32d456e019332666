// Pipeline entities as the original 11.5 shows them: PipelineBasic in lists and inside jobs, the
// full Pipeline for one (with its creator as UserBasic and its times), and a commit's last_pipeline.
import { Type, type Static } from '@sinclair/typebox'
import type { CiPipelineRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import { IsoDateTime, Nullable, NullableDateTime, NullableInteger, NullableString, type PresentContext } from './common.js'
import { UserBasic, presentUserBasic } from './user.js'

export const PipelineBasic = Type.Object({
  id: Type.Integer(),
  sha: Type.String(),
  ref: Type.String(),
  status: Type.String(),
  web_url: Type.String(),
})
export type PipelineBasicEntity = Static<typeof PipelineBasic>

export const Pipeline = Type.Composite([PipelineBasic, Type.Object({
  before_sha: NullableString,
  tag: Type.Boolean(),
  yaml_errors: NullableString,
  user: Nullable(UserBasic),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  started_at: NullableDateTime,
  finished_at: NullableDateTime,
  committed_at: NullableDateTime,
  duration: NullableInteger,
  coverage: NullableString,
})])
export type PipelineEntity = Static<typeof Pipeline>

export interface PipelineView {
  pipeline: CiPipelineRow
  user: UserRow | null
}

export function pipelineWebUrl(projectFullPath: string, pipelineId: number, ctx: PresentContext): string {
  return `${ctx.baseUrl}/${projectFullPath}/pipelines/${pipelineId}`
}

export function presentPipelineBasic(pipeline: CiPipelineRow, projectFullPath: string, ctx: PresentContext): PipelineBasicEntity {
  return { id: pipeline.id, sha: pipeline.sha, ref: pipeline.ref, status: pipeline.status, web_url: pipelineWebUrl(projectFullPath, pipeline.id, ctx) }
}

export function presentPipeline({ pipeline, user }: PipelineView, projectFullPath: string, ctx: PresentContext): PipelineEntity {
  return {
    ...presentPipelineBasic(pipeline, projectFullPath, ctx),
    before_sha: pipeline.before_sha,
    tag: pipeline.tag === 1,
    yaml_errors: pipeline.yaml_errors,
    user: user === null ? null : presentUserBasic(user, ctx),
    created_at: isoTime(pipeline.created_at),
    updated_at: isoTime(pipeline.updated_at),
    started_at: isoTime(pipeline.started_at),
    finished_at: isoTime(pipeline.finished_at),
    committed_at: isoTime(pipeline.committed_at),
    duration: pipeline.duration,
    coverage: pipeline.coverage,
  }
}
