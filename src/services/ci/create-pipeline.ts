// A pipeline for a commit of a project, from the CI file of that very commit (local includes read
// from it too), as the original 11.5's CreatePipelineService: no CI file or no job left after
// `only`/`except` is no pipeline; a file that does not read is a failed pipeline with its
// yaml_errors when the caller saves those (pushes do; the API answers the error instead).
import type { AppContext } from '../../context.js'
import type { CiPipelineRow, CiPipelineSource, NamespaceRow, ProjectRow } from '../../db/schema.js'
import { lockRow } from '../../db/locks.js'
import type { Commit, GitRepository } from '../../git/repository.js'
import { BRANCH_PREFIX, TAG_PREFIX } from '../../git/ref-names.js'
import { cleanTreePath } from '../../git/tree.js'
import { buildRowOf } from './build-options.js'
import { jobIncluded, type PipelineContext, type PipelineSource } from './config/job-rules.js'
import { parseCiConfig } from './config/parse.js'
import { ensureJobEnvironments } from './environments.js'
import type { CiJob } from './config/types.js'
import { nextPipelineIid } from './pipeline-iids.js'
import { processPipeline } from './status.js'
import { afterProcessing } from './transitions.js'
import { afterPipelineStatus } from './status-notifications.js'
import { predefinedVariables } from './variables.js'
import { ciVariablesForRef } from './ci-variables.js'

/** The CI file's names when the project sets none: the spec's, then what migrated repositories carry. */
export const DEFAULT_CI_CONFIG_PATHS = ['.service-ci.yml', '.gitlab-ci.yml']
/** Bigger files are not read (the CI file reader refuses more than 1 MiB anyway). */
const MAX_READ_BYTES = 4 * 1024 * 1024

export const MISSING_CI_CONFIG = 'Missing CI config file'
export const NO_JOBS = 'No stages / jobs for this pipeline.'

export interface CreatePipelineInput {
  project: ProjectRow
  namespace: NamespaceRow
  userId: number | null
  /** The sources Ingot creates pipelines for (chat pipelines come from integrations it has not). */
  source: CiPipelineSource & PipelineSource
  /** The branch or tag name. */
  ref: string
  tag: boolean
  sha: string
  beforeSha: string | null
  /** For a push to an existing branch: the paths it changed (`only: changes`). */
  changedPaths?: readonly string[]
  /** Variables given with the request (`variables[]`), sealed at rest. */
  variables?: readonly { key: string; value: string }[]
  /** The pipeline schedule it runs for (source schedule). */
  pipelineScheduleId?: number
  /** Keep a failed pipeline with yaml_errors for a file that does not read (pushes), instead of only answering the error. */
  saveOnConfigError: boolean
}

/** Why there is no pipeline: one reason, or every error of a CI file that does not read. */
export type CreatePipelineResult = { ok: true; pipeline: CiPipelineRow } | { ok: false; errors: string[] }

/** The blob of a file of the commit, or null when it has none at that path (or it is too big to read). */
async function blobAt(repo: GitRepository, sha: string, path: string): Promise<string | null> {
  const clean = cleanTreePath(path)
  if (clean === null || clean === '') return null
  const info = await repo.info(`${sha}:${clean}`)
  return info === null || info.type !== 'blob' || info.size > MAX_READ_BYTES ? null : info.oid
}

async function readFileAt(repo: GitRepository, sha: string, path: string): Promise<string | null> {
  const blob = await blobAt(repo, sha, path)
  return blob === null ? null : (await repo.read(blob))?.data.toString('utf8') ?? null
}

/** Where the project's CI file is in the commit, or null when the commit has none. */
export async function ciFilePath(repo: GitRepository, project: ProjectRow, sha: string): Promise<string | null> {
  const paths = project.ci_config_path !== null && project.ci_config_path !== '' ? [project.ci_config_path] : DEFAULT_CI_CONFIG_PATHS
  for (const path of paths) if (await blobAt(repo, sha, path) !== null) return path
  return null
}

/** The project's CI file at the commit: its path and text, or null when there is none. */
async function readCiFile(repo: GitRepository, project: ProjectRow, sha: string): Promise<{ path: string; content: string } | null> {
  const path = await ciFilePath(repo, project, sha)
  const content = path === null ? null : await readFileAt(repo, sha, path)
  return path === null || content === null ? null : { path, content }
}

/** The commit and kind of a branch or tag name (a branch wins, as in the original); null when neither exists. */
export async function resolvePipelineRef(ctx: AppContext, projectId: number, ref: string): Promise<{ sha: string; tag: boolean } | null> {
  const repo = ctx.repositories.open(projectId)
  const branch = await repo.resolveCommit(`${BRANCH_PREFIX}${ref}`)
  if (branch !== null) return { sha: branch, tag: false }
  const tag = await repo.resolveCommit(`${TAG_PREFIX}${ref}`)
  return tag === null ? null : { sha: tag, tag: true }
}

export async function createPipeline(ctx: AppContext, input: CreatePipelineInput): Promise<CreatePipelineResult> {
  const repo = ctx.repositories.open(input.project.id)
  const commit = await repo.readCommit(input.sha)
  if (commit === null) return { ok: false, errors: ['Commit not found'] }
  const file = await readCiFile(repo, input.project, input.sha)
  if (file === null) return { ok: false, errors: [MISSING_CI_CONFIG] }
  const parsed = await parseCiConfig(file.content, { readLocalFile: (path) => readFileAt(repo, input.sha, path) })
  if (!parsed.ok) {
    if (!input.saveOnConfigError) return { ok: false, errors: parsed.errors }
    return { ok: true, pipeline: await insertFailedPipeline(ctx, input, commit, parsed.errors.join(', ')) }
  }
  const variables = { ...predefinedVariables({ ...input, commit, configPath: file.path }), ...parsed.config.variables }
  // What a job's `only`/`except: variables` test, in the order jobs get them (variables.ts).
  const ciVariables = Object.fromEntries((await ciVariablesForRef(ctx, input.project.id, input.ref, input.tag)).map(({ key, value }) => [key, value]))
  const requested = Object.fromEntries((input.variables ?? []).map(({ key, value }) => [key, value]))
  const context: Omit<PipelineContext, 'variables'> = {
    ref: input.ref, tag: input.tag, source: input.source,
    projectPath: `${input.namespace.full_path}/${input.project.path}`,
    ...(input.changedPaths === undefined ? {} : { changedPaths: input.changedPaths }),
  }
  const jobs = parsed.config.jobs.filter((job) => jobIncluded(job, { ...context, variables: { ...variables, ...job.variables, ...ciVariables, ...requested } }))
  if (jobs.length === 0) return { ok: false, errors: [NO_JOBS] }
  return { ok: true, pipeline: await insertPipeline(ctx, input, commit, jobs, (job) => ({ ...variables, ...job.variables, ...requested })) }
}

function pipelineRow(input: CreatePipelineInput, commit: Commit, now: number) {
  return {
    project_id: input.project.id, ref: input.ref, tag: input.tag ? 1 as const : 0 as const, sha: input.sha, before_sha: input.beforeSha,
    source: input.source, user_id: input.userId, pipeline_schedule_id: input.pipelineScheduleId ?? null,
    committed_at: commit.committer.time * 1000, created_at: now, updated_at: now,
  }
}

async function insertFailedPipeline(ctx: AppContext, input: CreatePipelineInput, commit: Commit, error: string): Promise<CiPipelineRow> {
  const now = Date.now()
  const pipeline = await ctx.db.transaction().execute(async (trx) => trx.insertInto('ci_pipelines')
    .values({
      ...pipelineRow(input, commit, now), iid: await nextPipelineIid(trx, input.project.id),
      status: 'failed', yaml_errors: error, failure_reason: 'config_error', finished_at: now,
    })
    .returningAll().executeTakeFirstOrThrow())
  // The original saves it, then drops it: a move to failed, told as any other.
  await afterPipelineStatus(ctx, { pipelineId: pipeline.id, projectId: pipeline.project_id, status: 'failed', statusChanged: true })
  return pipeline
}

/** The pipeline, its variables, its jobs' environments and its created jobs, then the first stage's jobs moved on, in one transaction. */
async function insertPipeline(
  ctx: AppContext, input: CreatePipelineInput, commit: Commit, jobs: readonly CiJob[], variablesOf: (job: CiJob) => Record<string, string>,
): Promise<CiPipelineRow> {
  const { pipeline, processed } = await ctx.db.transaction().execute(async (trx) => {
    const now = Date.now()
    const { id } = await trx.insertInto('ci_pipelines').values({ ...pipelineRow(input, commit, now), iid: await nextPipelineIid(trx, input.project.id), status: 'created' })
      .returning('id').executeTakeFirstOrThrow()
    await lockRow(trx, 'ci_pipelines', id)
    // A key given twice keeps its last value.
    for (const [key, value] of new Map((input.variables ?? []).map((variable) => [variable.key, variable.value]))) {
      await trx.insertInto('ci_pipeline_variables')
        .values({ pipeline_id: id, key, encrypted_value: ctx.secrets.seal('ci.pipeline_variables', value) }).execute()
    }
    const context = { pipelineId: id, projectId: input.project.id, userId: input.userId, now }
    const deploying = await ensureJobEnvironments(trx, input.project.id, jobs, variablesOf, now)
    await trx.insertInto('ci_builds').values(deploying.map((job) => buildRowOf(job, context))).execute()
    const processed = await processPipeline(trx, id, now)
    const pipeline = await trx.selectFrom('ci_pipelines').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    return { pipeline, processed }
  })
  await afterProcessing(ctx, processed)
  return pipeline
}
