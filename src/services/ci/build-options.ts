// A job of the CI file as a row of ci_builds: what the runner protocol hands a runner is kept in
// `options` (the original's build options, snake_case as it stores them), the file's variables in
// `yaml_variables`, so that a job never needs its CI file again, even after the file changed.
import type { CiBuildRow, CiBuildsTable } from '../../db/schema.js'
import type { Insertable } from 'kysely'
import type { CiArtifacts, CiCache, CiEnvironment, CiImage, CiJob, CiRetry, CiService } from './config/types.js'

export interface BuildOptions {
  before_script: string[]
  script: string[]
  after_script: string[]
  image: CiImage | null
  services: CiService[]
  artifacts: CiArtifacts | null
  cache: CiCache | null
  environment: CiEnvironment | null
  retry: CiRetry | null
  /** null: the artifacts of every job of earlier stages. */
  dependencies: string[] | null
  parallel: { index: number; total: number } | null
  start_in: { text: string; seconds: number } | null
}

export interface YamlVariable {
  key: string
  value: string
  public: true
}

export function readBuildOptions(job: Pick<CiBuildRow, 'options'>): BuildOptions {
  return JSON.parse(job.options) as BuildOptions
}

export function readYamlVariables(job: Pick<CiBuildRow, 'yaml_variables'>): YamlVariable[] {
  return JSON.parse(job.yaml_variables) as YamlVariable[]
}

export interface NewBuildContext {
  pipelineId: number
  projectId: number
  userId: number | null
  now: number
}

/** The created row of a job of the file. */
export function buildRowOf(job: CiJob, context: NewBuildContext): Insertable<CiBuildsTable> {
  const options: BuildOptions = {
    before_script: job.beforeScript, script: job.script, after_script: job.afterScript,
    image: job.image, services: job.services, artifacts: job.artifacts, cache: job.cache, environment: job.environment,
    retry: job.retry, dependencies: job.dependencies, parallel: job.parallel, start_in: job.startIn,
  }
  const yamlVariables: YamlVariable[] = Object.entries(job.variables).map(([key, value]) => ({ key, value, public: true }))
  return {
    pipeline_id: context.pipelineId,
    project_id: context.projectId,
    name: job.name,
    stage: job.stage,
    stage_idx: job.stageIndex,
    status: 'created',
    when: job.when,
    allow_failure: job.allowFailure ? 1 : 0,
    options: JSON.stringify(options),
    yaml_variables: JSON.stringify(yamlVariables),
    tag_list: JSON.stringify(job.tags),
    coverage_regex: job.coverage,
    user_id: context.userId,
    created_at: context.now,
    updated_at: context.now,
  }
}

/** A copy of a job for its retry: the same definition, created again by `userId`. */
export function retriedRowOf(job: CiBuildRow, userId: number | null, now: number): Insertable<CiBuildsTable> {
  return {
    pipeline_id: job.pipeline_id,
    project_id: job.project_id,
    name: job.name,
    stage: job.stage,
    stage_idx: job.stage_idx,
    status: 'created',
    when: job.when,
    allow_failure: job.allow_failure,
    options: job.options,
    yaml_variables: job.yaml_variables,
    tag_list: job.tag_list,
    coverage_regex: job.coverage_regex,
    user_id: userId,
    created_at: now,
    updated_at: now,
  }
}
