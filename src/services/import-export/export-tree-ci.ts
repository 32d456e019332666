// The CI relations of project.json: pipelines (with their commit's notes, and their stages, which
// Ingot derives from its jobs, with each stage's jobs as `statuses`), triggers and pipeline
// schedules, in the original's shapes. Jobs go without their trace, token, artifacts and `when`,
// triggers without their token, as the original exports them.
import type { AppContext } from '../../context.js'
import type { CiBuildRow, CiPipelineRow, CiStatus } from '../../db/schema.js'
import { compositeStatus } from '../ci/status.js'
import { BATCH_SIZE, bool, groupBy, instant, keysetBatches, mapBatches, parseJson, rowsIn } from './export-tree-json.js'
import { commitNotesOf, type JsonRecord } from './export-tree-records.js'

/** HasStatus::STATUSES_ENUM of the original: a stage's status is written as its number. */
const STAGE_STATUS_CODES: Record<CiStatus, number> = {
  created: 0, pending: 1, running: 2, success: 3, failed: 4, canceled: 5, skipped: 6, manual: 7, scheduled: 8,
}

/** The job's options as the original keeps them: the keys it has, none null. */
function optionsOf(job: CiBuildRow): JsonRecord {
  const options = parseJson(job.options, {})
  if (typeof options !== 'object' || options === null) return {}
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== null))
}

function statusRecord(job: CiBuildRow, pipeline: CiPipelineRow): JsonRecord {
  const options = optionsOf(job)
  const environment = options.environment as { name?: string } | undefined
  return {
    id: job.id,
    project_id: job.project_id,
    status: job.status,
    finished_at: instant(job.finished_at),
    created_at: instant(job.created_at),
    updated_at: instant(job.updated_at),
    started_at: instant(job.started_at),
    runner_id: job.runner_id,
    coverage: job.coverage,
    commit_id: job.pipeline_id,
    name: job.name,
    options: job.kind === 'external' ? null : options,
    allow_failure: bool(job.allow_failure),
    stage: job.stage,
    trigger_request_id: null,
    stage_idx: job.stage_idx,
    tag: bool(pipeline.tag),
    ref: pipeline.ref,
    user_id: job.user_id,
    type: job.kind === 'external' ? 'GenericCommitStatus' : 'Ci::Build',
    target_url: job.target_url,
    description: job.description,
    erased_by_id: job.erased_by_id,
    erased_at: instant(job.erased_at),
    artifacts_expire_at: instant(job.artifacts_expire_at),
    environment: environment?.name ?? null,
    yaml_variables: job.kind === 'external' ? null : parseJson(job.yaml_variables, []),
    queued_at: instant(job.queued_at),
    coverage_regex: job.coverage_regex,
    retried: bool(job.retried),
    protected: null,
    failure_reason: job.failure_reason,
    scheduled_at: instant(job.scheduled_at),
  }
}

/** The pipeline's stages in order, each with its jobs (the original's ci_stages, which Ingot does not keep apart). */
function stageRecords(pipeline: CiPipelineRow, jobs: CiBuildRow[]): JsonRecord[] {
  const stages = [...groupBy(jobs, (job) => job.stage_idx).entries()].sort(([a], [b]) => a - b)
  return stages.map(([position, stageJobs]) => {
    const current = stageJobs.filter((job) => job.retried === 0)
    const status = compositeStatus(current) ?? 'created'
    return {
      project_id: pipeline.project_id,
      pipeline_id: pipeline.id,
      name: stageJobs[0]!.stage,
      status: STAGE_STATUS_CODES[status],
      position,
      created_at: instant(Math.min(...stageJobs.map((job) => Number(job.created_at)))),
      updated_at: instant(Math.max(...stageJobs.map((job) => Number(job.updated_at)))),
      statuses: stageJobs.map((job) => statusRecord(job, pipeline)),
    }
  })
}

function pipelineRecord(pipeline: CiPipelineRow): JsonRecord {
  return {
    id: pipeline.id,
    project_id: pipeline.project_id,
    ref: pipeline.ref,
    sha: pipeline.sha,
    before_sha: pipeline.before_sha,
    created_at: instant(pipeline.created_at),
    updated_at: instant(pipeline.updated_at),
    tag: bool(pipeline.tag),
    yaml_errors: pipeline.yaml_errors,
    committed_at: instant(pipeline.committed_at),
    status: pipeline.status,
    started_at: instant(pipeline.started_at),
    finished_at: instant(pipeline.finished_at),
    duration: pipeline.duration,
    user_id: pipeline.user_id,
    auto_canceled_by_id: null,
    pipeline_schedule_id: pipeline.pipeline_schedule_id,
    source: pipeline.source,
    config_source: 'repository_source',
    protected: null,
    failure_reason: pipeline.failure_reason,
    iid: pipeline.iid,
  }
}

async function pipelineRecords(ctx: AppContext, pipelines: CiPipelineRow[]): Promise<JsonRecord[]> {
  const { db } = ctx
  const projectId = pipelines[0]!.project_id
  const [jobs, notes] = await Promise.all([
    rowsIn(pipelines.map((pipeline) => pipeline.id), (chunk) => db.selectFrom('ci_builds').selectAll()
      .where('pipeline_id', 'in', chunk).orderBy('pipeline_id').orderBy('stage_idx').orderBy('id').execute()),
    commitNotesOf(db, projectId, pipelines.map((pipeline) => pipeline.sha)),
  ])
  const jobsOf = groupBy(jobs, (job) => job.pipeline_id)
  return pipelines.map((pipeline) => ({
    ...pipelineRecord(pipeline),
    notes: notes.get(pipeline.sha) ?? [],
    stages: stageRecords(pipeline, jobsOf.get(pipeline.id) ?? []),
  }))
}

/** The project's pipelines with their notes and stages, in batches, oldest iid first. */
export function pipelineBatches(ctx: AppContext, projectId: number): AsyncIterable<JsonRecord[]> {
  const pages = keysetBatches((after) => ctx.db.selectFrom('ci_pipelines').selectAll()
    .where('project_id', '=', projectId)
    .$if(after !== null, (qb) => qb.where('iid', '>', after!))
    .orderBy('iid').limit(BATCH_SIZE).execute(), (pipeline) => pipeline.iid)
  return mapBatches(pages, (pipelines) => pipelineRecords(ctx, pipelines))
}

/** The project's pipeline triggers, without their tokens. */
export async function triggerRecords(ctx: AppContext, projectId: number): Promise<JsonRecord[]> {
  const rows = await ctx.db.selectFrom('ci_triggers')
    .select(['id', 'project_id', 'owner_id', 'description', 'created_at', 'updated_at'])
    .where('project_id', '=', projectId).orderBy('id').execute()
  return rows.map((row) => ({
    id: row.id, project_id: row.project_id, owner_id: row.owner_id, description: row.description, ref: null,
    created_at: instant(row.created_at), updated_at: instant(row.updated_at),
  }))
}

export async function pipelineScheduleRecords(ctx: AppContext, projectId: number): Promise<JsonRecord[]> {
  const rows = await ctx.db.selectFrom('ci_pipeline_schedules').selectAll().where('project_id', '=', projectId).orderBy('id').execute()
  return rows.map((row) => ({
    id: row.id,
    description: row.description,
    ref: row.ref,
    cron: row.cron,
    cron_timezone: row.cron_timezone,
    next_run_at: instant(row.next_run_at),
    project_id: row.project_id,
    owner_id: row.owner_id,
    active: bool(row.active),
    created_at: instant(row.created_at),
    updated_at: instant(row.updated_at),
  }))
}
