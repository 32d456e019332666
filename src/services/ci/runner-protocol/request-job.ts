// POST /jobs/request as a service: a job for the runner with everything it needs to run it, or the
// answer that none fits. As the original: an inactive runner gets none; a runner whose
// `last_update` is the queue's current value is told at once that nothing changed, without a look
// at the queue. Unlike the original, a request nothing fits is held open for a while (long
// polling, INGOT_RUNNER_LONG_POLL_SECONDS), and handed a job as soon as one becomes pending: at
// once when it happens in this process (pending-jobs-signal.ts), within a second otherwise.
import type { AppContext } from '../../../context.js'
import type { CiBuildRow, CiRunnerRow, ProjectRow } from '../../../db/schema.js'
import type { JobRequestView } from '../../../entities/job-request.js'
import { COMPATIBLE_VERSION, ingotRevision } from '../../../revision.js'
import { readBuildOptions } from '../build-options.js'
import { ciFilePath, DEFAULT_CI_CONFIG_PATHS } from '../create-pipeline.js'
import { JOB_TOKEN_LOGIN, jobVariables } from '../variables.js'
import { jobCiVariableValues } from '../ci-variables.js'
import { jobStoredVariables } from '../../../finders/ci-variables-finder.js'
import { findJobEnvironment } from '../environments.js'
import { assignJob, queueValue, type RunnerFeatures } from './assign-job.js'
import type { Dependency } from './dependencies.js'
import { ImmutableMemo } from '../../../git/memo.js'

/** How often a held request looks at the queue itself, for jobs made pending by other processes. */
const RECHECK_INTERVAL_MS = 1000

export type JobRequestOutcome =
  | { kind: 'job'; view: JobRequestView }
  /** Nothing fits: 204 with X-GitLab-Last-Update. */
  | { kind: 'none'; lastUpdate: string }
  /** A job fitted, but another runner took it first and none other did (the original's 409). */
  | { kind: 'conflict' }

export interface JobRequestInput {
  /** The queue value the runner was last told (`last_update`). */
  lastUpdate: string | undefined
  features: RunnerFeatures
  /** Ends a held request early: the client went away, or the server is closing. */
  abort: AbortSignal
}

export async function requestJob(ctx: AppContext, runner: CiRunnerRow, input: JobRequestInput): Promise<JobRequestOutcome> {
  if (runner.active !== 1) return { kind: 'none', lastUpdate: await queueValue(ctx.db, runner) }
  const deadline = Date.now() + ctx.config.runnerLongPollSeconds * 1000
  let seen = input.lastUpdate
  for (;;) {
    const value = await queueValue(ctx.db, runner)
    if (value !== seen) {
      const assignment = await assignJob(ctx, runner, input.features)
      if (assignment.taken !== null) return { kind: 'job', view: await loadJobRequestView(ctx, runner, assignment) }
      if (assignment.conflict) return { kind: 'conflict' }
      seen = value
    }
    const left = deadline - Date.now()
    if (left <= 0 || input.abort.aborted || ctx.pendingJobs.isClosed) return { kind: 'none', lastUpdate: seen }
    await ctx.pendingJobs.wait(Math.min(left, RECHECK_INTERVAL_MS), input.abort)
    // Closing answers without another look: the database may be closing too.
    if (input.abort.aborted || ctx.pendingJobs.isClosed) return { kind: 'none', lastUpdate: seen }
  }
}

/** The repository's URL with the job token as password, as git_info.repo_url and CI_REPOSITORY_URL give it. */
function repoUrlWithToken(baseUrl: string, fullPath: string, token: string): string {
  const url = new URL(`${baseUrl}/${fullPath}.git`)
  url.username = JOB_TOKEN_LOGIN
  url.password = token
  return url.toString()
}

/** GIT_DEPTH of the job's variables (the later wins: the file's, the CI/CD ones, the pipeline's), else 0: a full clone. */
function gitDepthOf(variables: readonly { key: string; value: string }[]): number {
  const depth = variables.filter((variable) => variable.key === 'GIT_DEPTH').at(-1)?.value
  return depth !== undefined && /^\d{1,6}$/.test(depth) ? Number(depth) : 0
}

/** What a job's answer reads of its pipeline's commit: git never changes it, so it is read once per process. */
interface CommitFacts {
  message: string
  /** Where the CI file is in the commit (for CI_CONFIG_PATH). */
  configPath: string
}

const commitFacts = new ImmutableMemo<CommitFacts>(1024)

function readCommitFacts(ctx: AppContext, project: ProjectRow, sha: string): Promise<CommitFacts> {
  const repo = ctx.repositories.open(project.id)
  return commitFacts.get(`${repo.gitDir}\0${sha}\0${project.ci_config_path ?? ''}`, async () => ({
    message: (await repo.readCommit(sha))?.message ?? '',
    configPath: await ciFilePath(repo, project, sha) ?? project.ci_config_path ?? DEFAULT_CI_CONFIG_PATHS[0]!,
  }))
}

/** Everything the answer to the runner holds, for a job it has just taken. */
async function loadJobRequestView(ctx: AppContext, runner: CiRunnerRow, assignment: { taken: CiBuildRow; dependencies: Dependency[]; token: string }): Promise<JobRequestView> {
  const { db } = ctx
  const { taken: job, token } = assignment
  // Read side by side: on PostgreSQL each on its own connection.
  const options = readBuildOptions(job)
  const [pipeline, { namespace_full_path, ...project }, user, stored, environment] = await Promise.all([
    db.selectFrom('ci_pipelines').selectAll().where('id', '=', job.pipeline_id).executeTakeFirstOrThrow(),
    db.selectFrom('projects').innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
      .selectAll('projects').select('namespaces.full_path as namespace_full_path')
      .where('projects.id', '=', job.project_id).executeTakeFirstOrThrow(),
    job.user_id === null ? null : db.selectFrom('users').selectAll().where('id', '=', job.user_id).executeTakeFirst().then((row) => row ?? null),
    jobStoredVariables(db, job.project_id, job.pipeline_id),
    options.environment === null ? null : findJobEnvironment(db, job.project_id, options.environment.name),
  ])
  const pipelineVariables = stored.pipeline.map((row) => ({ key: row.key, value: ctx.secrets.open('ci.pipeline_variables', row.encrypted_value) }))
  const ciVariables = await jobCiVariableValues(ctx, stored.ci, job.project_id, pipeline.ref, pipeline.tag === 1)
  const dependencies = assignment.dependencies.map(({ id, name, archive }) => ({
    id, name, artifactsFile: archive === null ? null : { filename: archive.filename, size: archive.size },
  }))
  const { message, configPath } = await readCommitFacts(ctx, project, pipeline.sha)
  const namespace = { full_path: namespace_full_path }
  const fullPath = `${namespace.full_path}/${project.path}`
  const repoUrl = repoUrlWithToken(ctx.config.externalUrl, fullPath, token)
  const variables = jobVariables({
    job, pipeline, project, namespace, runner, user, token, repoUrl, pipelineVariables, ciVariables, configPath, environment,
    commitMessage: message,
    baseUrl: ctx.config.externalUrl,
    serverVersion: COMPATIBLE_VERSION,
    serverRevision: await ingotRevision(),
  })
  return {
    job: { id: job.id, name: job.name, stage: job.stage, allowFailure: job.allow_failure === 1, timeout: job.timeout ?? project.build_timeout, options },
    token,
    project: { id: project.id, name: project.name },
    git: {
      repoUrl, ref: pipeline.ref, tag: pipeline.tag === 1, sha: pipeline.sha, beforeSha: pipeline.before_sha,
      depth: gitDepthOf(variables),
    },
    variables,
    dependencies,
  }
}
