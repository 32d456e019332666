// Pipelines for pushes: each branch or tag a push moved (not a deletion) gets one pipeline for its
// new commit, unless the project's jobs are disabled, the commit has no CI file, or it says
// `[ci skip]` or `[skip ci]`. The listener only decides (with a few object reads) and enqueues (ci.create_pipeline, jobs.ts); the job reads
// the CI file and writes the pipeline.
import type { AppContext } from '../../context.js'
import { namespacesById, projectsById } from '../../finders/rows.js'
import { changedPathsBetween } from '../../git/diff.js'
import { BRANCH_PREFIX, TAG_PREFIX, shortRefName } from '../../git/ref-names.js'
import { NULL_OID } from '../../git/repository.js'
import { mapBounded } from '../../common/bounded.js'
import { PUSHED_REFS_AT_ONCE, type CompletedPush } from '../push/after-push.js'
import { ciFilePath, createPipeline } from './create-pipeline.js'
import { CREATE_PIPELINE } from './jobs.js'

/** The original's skip pattern: `[ci skip]`, `[skip ci]`, also with `-` or `_`, in any case. */
const SKIP_CI = /\[(ci[ _-]skip|skip[ _-]ci)\]/i

export interface PushPipelinePayload {
  projectId: number
  userId: number
  /** The full ref name. */
  ref: string
  /** NULL_OID for a new ref. */
  before: string
  /** The commit the ref now names (a tag peeled). */
  sha: string
}

export function registerPipelinePushListener(hooks: Pick<AppContext, 'pushListeners'>): void {
  hooks.pushListeners.add((push, ctx) => onPush(ctx, push))
}

async function onPush(ctx: AppContext, push: CompletedPush): Promise<void> {
  if (push.project.jobs_enabled !== 1) return
  const repo = ctx.repositories.open(push.project.id)
  const moved = push.updates.filter((update) => update.newId !== NULL_OID && (update.ref.startsWith(BRANCH_PREFIX) || update.ref.startsWith(TAG_PREFIX)))
  // A few refs at a time: a push of thousands of tags reads a few objects for each.
  const payloads = await mapBounded(moved, PUSHED_REFS_AT_ONCE, async (update): Promise<PushPipelinePayload | null> => {
    const sha = await repo.resolveCommit(update.newId)
    const commit = sha === null ? null : await repo.readCommit(sha)
    if (commit === null || SKIP_CI.test(commit.message) || await ciFilePath(repo, push.project, commit.id) === null) return null
    return { projectId: push.project.id, userId: push.actor.user.id, ref: update.ref, before: update.oldId, sha: commit.id }
  })
  for (const payload of payloads) {
    if (payload !== null) await ctx.jobs.enqueue(CREATE_PIPELINE, payload, { uniqueKey: `${payload.projectId}:${payload.ref}:${payload.sha}` })
  }
}

/** The job: the pipeline of one pushed ref, if its commit has a CI file with jobs for it. */
export async function createPushPipeline(ctx: AppContext, payload: PushPipelinePayload): Promise<void> {
  const project = (await projectsById(ctx.db, [payload.projectId])).get(payload.projectId)
  if (project === undefined || project.jobs_enabled !== 1) return
  const namespace = (await namespacesById(ctx.db, [project.namespace_id])).get(project.namespace_id)
  if (namespace === undefined) return
  const tag = payload.ref.startsWith(TAG_PREFIX)
  const newBranch = payload.before === NULL_OID
  const repo = ctx.repositories.open(project.id)
  // What a push to an existing branch changed; a new branch or a tag satisfies every `changes`.
  const changedPaths = tag || newBranch ? undefined : await changedPathsBetween(repo, payload.before, payload.sha)
  const result = await createPipeline(ctx, {
    project, namespace, userId: payload.userId, source: 'push', ref: shortRefName(payload.ref), tag, sha: payload.sha,
    beforeSha: newBranch ? null : payload.before, saveOnConfigError: true,
    ...(changedPaths === undefined ? {} : { changedPaths }),
  })
  if (!result.ok) ctx.log.debug({ project: project.id, ref: payload.ref, reasons: result.errors }, 'no pipeline for the push')
}
