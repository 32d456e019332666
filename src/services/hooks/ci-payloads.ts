// The bodies of Pipeline Hook and Job Hook, in the shapes of the original's DataBuilder::Pipeline and
// DataBuilder::Build (release 11.5). Built in the fan-out job from the records as they are then, as
// the original's hook workers build them. Times are ISO 8601 as in every payload (docs/api.md).
import type { AppContext } from '../../context.js'
import type { CiBuildRow, CiPipelineRow, CiStatus, UserRow } from '../../db/schema.js'
import { isoTime } from '../../db/values.js'
import { compositeStatus } from '../ci/status.js'
import { commitHookAttrs, hookPresentContext, loadProjectRef, projectHookAttrs, projectWebUrl, userHookAttrs, type HookPayload } from './payloads.js'

/** The label of the original's detailed status (Gitlab::Ci::Status) of a pipeline. */
function detailedStatusLabel(status: CiStatus, withWarnings: boolean): string {
  switch (status) {
    case 'success': return withWarnings ? 'passed with warnings' : 'passed'
    case 'manual': return 'manual action'
    case 'scheduled': return 'delayed'
    default: return status
  }
}

function loadUser(ctx: AppContext, userId: number | null): Promise<UserRow | undefined> {
  if (userId === null) return Promise.resolve(undefined)
  return ctx.db.selectFrom('users').selectAll().where('id', '=', userId).executeTakeFirst()
}

/** DataBuilder::Pipeline: the pipeline, its user, project, commit and every job (retried ones too); null once deleted. */
export async function pipelinePayload(ctx: AppContext, pipelineId: number): Promise<HookPayload | null> {
  const pipeline = await ctx.db.selectFrom('ci_pipelines').selectAll().where('id', '=', pipelineId).executeTakeFirst()
  if (pipeline === undefined) return null
  const ref = await loadProjectRef(ctx.db, pipeline.project_id)
  if (ref === null) return null
  const pc = hookPresentContext(ctx)
  const [statuses, variables, commit] = await Promise.all([
    ctx.db.selectFrom('ci_builds').selectAll().where('pipeline_id', '=', pipelineId).orderBy('id').execute(),
    ctx.db.selectFrom('ci_pipeline_variables').select(['key', 'encrypted_value']).where('pipeline_id', '=', pipelineId).orderBy('id').execute(),
    ctx.repositories.open(pipeline.project_id).readCommit(pipeline.sha),
  ])
  // `builds` are the CI jobs; the stages count commit statuses too (the original's statuses).
  const jobs = statuses.filter((row) => row.kind === 'ci')
  const userIds = [...new Set([pipeline.user_id, ...jobs.map((job) => job.user_id)].filter((id): id is number => id !== null))]
  const runnerIds = [...new Set(jobs.map((job) => job.runner_id).filter((id): id is number => id !== null))]
  const [users, runners, archives] = await Promise.all([
    userIds.length === 0 ? [] : ctx.db.selectFrom('users').selectAll().where('id', 'in', userIds).execute(),
    runnerIds.length === 0 ? [] : ctx.db.selectFrom('ci_runners').select(['id', 'description', 'active', 'runner_type']).where('id', 'in', runnerIds).execute(),
    jobs.length === 0 ? [] : ctx.db.selectFrom('ci_job_artifacts').select(['job_id', 'filename', 'size'])
      .where('job_id', 'in', jobs.map((job) => job.id)).where('file_type', '=', 'archive').execute(),
  ])
  const userOf = (id: number | null) => {
    const user = users.find((row) => row.id === id)
    return user === undefined ? null : userHookAttrs(user, pc)
  }
  const runnerOf = (id: number | null) => {
    const runner = runners.find((row) => row.id === id)
    return runner === undefined ? null
      : { id: runner.id, description: runner.description, active: runner.active === 1, is_shared: runner.runner_type === 'instance_type' }
  }
  const latest = statuses.filter((job) => job.retried === 0)
  const withWarnings = latest.some((job) => job.allow_failure === 1 && (job.status === 'failed' || job.status === 'canceled'))
  return {
    object_kind: 'pipeline',
    object_attributes: {
      id: pipeline.id,
      ref: pipeline.ref,
      tag: pipeline.tag === 1,
      sha: pipeline.sha,
      before_sha: pipeline.before_sha,
      status: pipeline.status,
      detailed_status: detailedStatusLabel(pipeline.status, withWarnings && compositeStatus(latest) === 'success'),
      stages: stageNames(statuses),
      created_at: isoTime(pipeline.created_at),
      finished_at: isoTime(pipeline.finished_at),
      duration: pipeline.duration,
      variables: variables.map((row) => ({ key: row.key, value: ctx.secrets.open('ci.pipeline_variables', row.encrypted_value) })),
    },
    user: userOf(pipeline.user_id),
    project: projectHookAttrs(ref, pc, false),
    commit: commit === null ? null : commitHookAttrs(commit, ref, pc),
    builds: jobs.map((job) => {
      const archive = archives.find((row) => row.job_id === job.id)
      return {
        id: job.id,
        stage: job.stage,
        name: job.name,
        status: job.status,
        created_at: isoTime(job.created_at),
        started_at: isoTime(job.started_at),
        finished_at: isoTime(job.finished_at),
        when: job.when,
        manual: job.when === 'manual',
        user: userOf(job.user_id),
        runner: runnerOf(job.runner_id),
        artifacts_file: { filename: archive?.filename ?? null, size: archive?.size ?? null },
      }
    }),
  }
}

/** The pipeline's stage names in their order (the original's stages_names). */
function stageNames(jobs: readonly CiBuildRow[]): string[] {
  const byIndex = new Map<number, string>()
  for (const job of jobs) byIndex.set(job.stage_idx, job.stage)
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, name]) => name)
}

/** Seconds a job ran, with fractions, as the original's build_duration; null before it started. */
function jobDuration(job: CiBuildRow, now: number): number | null {
  return job.started_at === null ? null : ((job.finished_at ?? now) - job.started_at) / 1000
}

/** DataBuilder::Build: the job's `build_*` fields, its pipeline as `commit`, the project as `repository`; null once deleted. */
export async function jobPayload(ctx: AppContext, jobId: number): Promise<HookPayload | null> {
  const job = await ctx.db.selectFrom('ci_builds').selectAll().where('id', '=', jobId).executeTakeFirst()
  if (job === undefined) return null
  const pipeline: CiPipelineRow | undefined = await ctx.db.selectFrom('ci_pipelines').selectAll().where('id', '=', job.pipeline_id).executeTakeFirst()
  const ref = await loadProjectRef(ctx.db, job.project_id)
  if (pipeline === undefined || ref === null) return null
  const pc = hookPresentContext(ctx)
  const [user, commit] = await Promise.all([loadUser(ctx, job.user_id), ctx.repositories.open(job.project_id).readCommit(pipeline.sha)])
  const author = commit === null ? undefined
    : await ctx.db.selectFrom('users').select('username').where('email', '=', commit.author.email).executeTakeFirst()
  const webUrl = projectWebUrl(ref, pc)
  const project = projectHookAttrs(ref, pc)
  return {
    object_kind: 'build',
    ref: pipeline.ref,
    tag: pipeline.tag === 1,
    before_sha: pipeline.before_sha,
    sha: pipeline.sha,
    build_id: job.id,
    build_name: job.name,
    build_stage: job.stage,
    build_status: job.status,
    build_started_at: isoTime(job.started_at),
    build_finished_at: isoTime(job.finished_at),
    build_duration: jobDuration(job, Date.now()),
    build_allow_failure: job.allow_failure === 1,
    build_failure_reason: job.failure_reason,
    project_id: ref.project.id,
    project_name: `${ref.namespace.full_name} / ${ref.project.name}`,
    user: { id: user?.id ?? null, name: user?.name ?? null, email: user?.email ?? null },
    commit: {
      // The original names the pipeline `commit`: its id is the pipeline's.
      id: pipeline.id,
      sha: pipeline.sha,
      message: commit?.message ?? null,
      author_name: commit?.author.name ?? null,
      author_email: commit?.author.email ?? null,
      author_url: author === undefined ? `mailto:${commit?.author.email ?? ''}` : `${pc.baseUrl}/${author.username}`,
      status: pipeline.status,
      duration: pipeline.duration,
      started_at: isoTime(pipeline.started_at),
      finished_at: isoTime(pipeline.finished_at),
    },
    repository: {
      name: ref.project.name,
      url: project.ssh_url,
      description: ref.project.description,
      homepage: webUrl,
      git_http_url: project.git_http_url,
      git_ssh_url: project.git_ssh_url,
      visibility_level: ref.project.visibility_level,
    },
  }
}
