// The Deployment entity (spec: Deployment) as the original 11.5's: its numbers, ref and commit,
// who deployed (UserBasic), where (EnvironmentBasic) and the job that deployed (Job; null once
// the job was deleted). 11.5 has no deployment status.
import { Type, type Static } from '@sinclair/typebox'
import type { DeploymentRow, EnvironmentRow, UserRow } from '../db/schema.js'
import { isoTime } from '../db/values.js'
import type { JobView } from '../finders/jobs-finder.js'
import { IsoDateTime, Nullable, type PresentContext } from './common.js'
import { EnvironmentBasic, presentEnvironmentBasic } from './environment.js'
import { Job, presentJob } from './job.js'
import { UserBasic, presentUserBasic } from './user.js'

export const Deployment = Type.Object({
  id: Type.Integer(),
  iid: Type.Integer(),
  ref: Type.String(),
  sha: Type.String(),
  created_at: IsoDateTime,
  user: Nullable(UserBasic),
  environment: EnvironmentBasic,
  deployable: Nullable(Job),
})
export type DeploymentEntity = Static<typeof Deployment>

/** A deployment with what it shows, loaded for a whole page by finders/deployments-finder.ts. */
export interface DeploymentView {
  deployment: DeploymentRow
  environment: EnvironmentRow
  user: UserRow | null
  deployable: JobView | null
}

export function presentDeployment(view: DeploymentView, projectFullPath: string, ctx: PresentContext, now = Date.now()): DeploymentEntity {
  const { deployment } = view
  return {
    id: deployment.id,
    iid: deployment.iid,
    ref: deployment.ref,
    sha: deployment.sha,
    created_at: isoTime(deployment.created_at),
    user: view.user === null ? null : presentUserBasic(view.user, ctx),
    environment: presentEnvironmentBasic(view.environment),
    deployable: view.deployable === null ? null : presentJob(view.deployable, projectFullPath, ctx, now),
  }
}
