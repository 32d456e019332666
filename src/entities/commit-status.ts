// The commit status entity (the original 11.5's Entities::CommitStatus), for external statuses and
// CI jobs alike: a job shows its pipeline's sha and ref, and no target_url or description.
import { Type, type Static } from '@sinclair/typebox'
import { isoTime } from '../db/values.js'
import type { CiBuildRow, CiPipelineRow, UserRow } from '../db/schema.js'
import { IsoDateTime, Nullable, NullableDateTime, NullableString, type PresentContext } from './common.js'
import { UserBasic, presentUserBasic } from './user.js'

export const CommitStatus = Type.Object({
  id: Type.Integer(),
  sha: Type.String(),
  ref: Type.String(),
  status: Type.String(),
  name: Type.String(),
  target_url: NullableString,
  description: NullableString,
  created_at: IsoDateTime,
  started_at: NullableDateTime,
  finished_at: NullableDateTime,
  allow_failure: Type.Boolean(),
  coverage: Nullable(Type.Number()),
  author: Nullable(UserBasic),
})
export type CommitStatusEntity = Static<typeof CommitStatus>

export function presentCommitStatus(status: CiBuildRow, pipeline: Pick<CiPipelineRow, 'sha' | 'ref'>, author: UserRow | null, ctx: PresentContext): CommitStatusEntity {
  return {
    id: status.id,
    sha: pipeline.sha,
    ref: pipeline.ref,
    status: status.status,
    name: status.name,
    target_url: status.target_url,
    description: status.description,
    created_at: isoTime(status.created_at),
    started_at: isoTime(status.started_at),
    finished_at: isoTime(status.finished_at),
    allow_failure: status.allow_failure === 1,
    coverage: status.coverage,
    author: author === null ? null : presentUserBasic(author, ctx),
  }
}
