// Pipeline triggers, as the original 11.5's Ci::Trigger and Ci::PipelineTriggerService: a trigger
// is a random token of a project that creates pipelines (source `trigger`) as the trigger's owner
// with the variables of the request; a running job's token creates one too (source `pipeline`),
// as its user, in a project that user reads. A token that is neither, or a trigger of another
// project, finds nothing: the caller answers 404 and learns nothing of the project.
import { randomBytes } from 'node:crypto'
import type { AppContext } from '../../context.js'
import { paginate, type Page, type PaginationQuery } from '../../common/pages.js'
import type { Db } from '../../db/index.js'
import type { CiTriggerRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
import { tokenDigest } from '../../auth/secrets.js'
import { NO_PROJECT_ACCESS, projectAccessFor } from '../../finders/access.js'
import { canReadProject } from '../../policies/project-policy.js'
import type { CreatePipelineResult } from './create-pipeline.js'
import { findJobByToken } from './job-token.js'
import { createPipelineAsOwner } from './owner-pipeline.js'

/** The original's SecureRandom.hex(15): 30 hexadecimal characters. */
function newTriggerToken(): string {
  return randomBytes(15).toString('hex')
}

/** What the original shows of a token to those who may not use it: its first four characters. */
export function shortTriggerToken(token: string): string {
  return token.slice(0, 4)
}

export function openTriggerToken(ctx: AppContext, trigger: CiTriggerRow): string {
  return ctx.secrets.open('ci.triggers', trigger.encrypted_token)
}

export async function createTrigger(ctx: AppContext, projectId: number, ownerId: number, description: string): Promise<CiTriggerRow> {
  const token = newTriggerToken()
  const now = Date.now()
  return ctx.db.insertInto('ci_triggers').values({
    project_id: projectId, owner_id: ownerId, description, token_digest: tokenDigest(token),
    encrypted_token: ctx.secrets.seal('ci.triggers', token), created_at: now, updated_at: now,
  }).returningAll().executeTakeFirstOrThrow()
}

export async function findTrigger(db: Db, projectId: number, triggerId: number): Promise<CiTriggerRow | null> {
  return await db.selectFrom('ci_triggers').selectAll().where('project_id', '=', projectId).where('id', '=', triggerId).executeTakeFirst() ?? null
}

export function findTriggerPage(db: Db, projectId: number, pagination: PaginationQuery): Promise<Page<CiTriggerRow>> {
  return paginate(db, db.selectFrom('ci_triggers').selectAll().where('project_id', '=', projectId).orderBy('id'), pagination)
}

export async function deleteTrigger(db: Db, trigger: CiTriggerRow): Promise<void> {
  await db.deleteFrom('ci_triggers').where('id', '=', trigger.id).execute()
}

export async function updateTrigger(db: Db, trigger: CiTriggerRow, changes: { description?: string; owner_id?: number }): Promise<CiTriggerRow> {
  return db.updateTable('ci_triggers').set({ ...changes, updated_at: Date.now() }).where('id', '=', trigger.id)
    .returningAll().executeTakeFirstOrThrow()
}

export interface TriggerPipelineInput {
  project: ProjectRow
  namespace: NamespaceRow
  token: string
  ref: string
  variables: Readonly<Record<string, string>>
}

/** The pipeline the token creates, its errors, or null when the token is no trigger nor running job of a reader of the project. */
export async function triggerPipeline(ctx: AppContext, input: TriggerPipelineInput): Promise<CreatePipelineResult | null> {
  const variables = Object.entries(input.variables).map(([key, value]) => ({ key, value }))
  const common = { project: input.project, namespace: input.namespace, ref: input.ref, variables, saveOnConfigError: false }
  const trigger = input.token === '' ? undefined
    : await ctx.db.selectFrom('ci_triggers').selectAll().where('token_digest', '=', tokenDigest(input.token)).executeTakeFirst()
  if (trigger !== undefined) {
    if (trigger.project_id !== input.project.id) return null
    // Used is when asked, whether a pipeline follows or not: the original records the request first.
    await ctx.db.updateTable('ci_triggers').set({ last_used_at: Date.now() }).where('id', '=', trigger.id).execute()
    const owner = await ctx.db.selectFrom('users').selectAll().where('id', '=', trigger.owner_id).executeTakeFirstOrThrow()
    return createPipelineAsOwner(ctx, { ...common, owner, source: 'trigger' })
  }
  const job = await findJobByToken(ctx.db, input.token)
  if (job === null || job.status !== 'running' || job.user_id === null) return null
  const user = await ctx.db.selectFrom('users').selectAll().where('id', '=', job.user_id).executeTakeFirst()
  if (user === undefined || user.state === 'blocked') return null
  const access = (await projectAccessFor(ctx.db, user.id, [input.project.id])).get(input.project.id) ?? NO_PROJECT_ACCESS
  if (!canReadProject({ user, token: null, sudoFrom: null }, input.project, access)) return null
  return createPipelineAsOwner(ctx, { ...common, owner: user, source: 'pipeline' })
}
