// A pipeline created for a user who is not the caller of the request: a trigger's owner, a
// schedule's owner. As the original's CreatePipelineService checks its user, the owner must be
// active, a Developer of the project (jobs enabled, not archived), the ref must exist, and the
// owner must be allowed to update the branch or create the tag when it is protected.
import type { AppContext } from '../../context.js'
import type { CiPipelineSource, NamespaceRow, ProjectRow, UserRow } from '../../db/schema.js'
import { NO_PROJECT_ACCESS, projectAccessFor } from '../../finders/access.js'
import { canOnProject } from '../../policies/project-policy.js'
import { createPipeline, resolvePipelineRef, type CreatePipelineResult } from './create-pipeline.js'
import { canRunCiFor } from './ref-access.js'
import type { PipelineSource } from './config/job-rules.js'

export const INSUFFICIENT_PERMISSIONS = 'Insufficient permissions to create a new pipeline'
export const REFERENCE_NOT_FOUND = 'Reference not found'
export const PROTECTED_REF = 'Insufficient permissions for protected ref'

export interface OwnerPipelineInput {
  project: ProjectRow
  namespace: NamespaceRow
  owner: UserRow
  source: CiPipelineSource & PipelineSource
  ref: string
  variables: readonly { key: string; value: string }[]
  pipelineScheduleId?: number
  saveOnConfigError: boolean
}

export async function createPipelineAsOwner(ctx: AppContext, input: OwnerPipelineInput): Promise<CreatePipelineResult> {
  const { project, namespace, owner } = input
  if (owner.state === 'blocked') return { ok: false, errors: [INSUFFICIENT_PERMISSIONS] }
  const access = (await projectAccessFor(ctx.db, owner.id, [project.id])).get(project.id) ?? NO_PROJECT_ACCESS
  const actor = { user: owner, token: null, sudoFrom: null }
  const subject = { project, namespace, access }
  if (!canOnProject(actor, subject, 'create_pipeline')) return { ok: false, errors: [INSUFFICIENT_PERMISSIONS] }
  const target = await resolvePipelineRef(ctx, project.id, input.ref)
  if (target === null) return { ok: false, errors: [REFERENCE_NOT_FOUND] }
  if (!await canRunCiFor(ctx.db, actor, subject, input.ref, target.tag)) return { ok: false, errors: [PROTECTED_REF] }
  return createPipeline(ctx, {
    project, namespace, userId: owner.id, source: input.source, ref: input.ref, tag: target.tag, sha: target.sha, beforeSha: null,
    variables: input.variables, saveOnConfigError: input.saveOnConfigError,
    ...(input.pipelineScheduleId === undefined ? {} : { pipelineScheduleId: input.pipelineScheduleId }),
  })
}
