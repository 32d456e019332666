// The predefined variables of CI (the original 11.5's names). predefinedVariables: what a
// pipeline's `only`/`except: variables` expressions can test (the commit, the ref, the source, the
// project). jobVariables: everything a runner is given with a job, in the original's order
// (Ci::Build#variables: the persisted job and pipeline ones, the build's, the project's, the
// pipeline's, the runner's, the file's, the user's, the pipeline's own variables, then the
// environment's, later ones winning in the job's shell), plus the names newer runners and CI files
// expect (CI_SERVER_URL, CI_API_V4_URL, CI_COMMIT_SHORT_SHA, CI_COMMIT_BRANCH, CI_DEFAULT_BRANCH…).
// The CI/CD variables of the project's groups and of the project come after the file's and the
// user's, and before the pipeline's own: as the original, they are sent with `public: false`, and
// protected ones only to jobs of protected refs.
import type { CiBuildRow, CiPipelineRow, CiPipelineSource, CiRunnerRow, EnvironmentRow, NamespaceRow, ProjectRow, UserRow } from '../../db/schema.js'
import { parseJsonArray } from '../../db/values.js'
import type { Commit } from '../../git/repository.js'
import { readBuildOptions, readYamlVariables } from './build-options.js'
import { environmentVariables } from './environments.js'

const VISIBILITY_NAMES = { 0: 'private', 10: 'internal', 20: 'public' } as const
const NULL_SHA = '0000000000000000000000000000000000000000'
/** What a job's scripts log in with to the registry and to git over HTTP with its job token, as in the original. */
export const JOB_TOKEN_LOGIN = 'gitlab-ci-token'

/** The original's slug of a ref or path: lower case, runs of other characters as `-`, at most 63. */
export function ciSlug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '-').slice(0, 63).replace(/^-+|-+$/g, '')
}

export interface PipelineVariablesInput {
  project: ProjectRow
  /** The project's namespace: its path is what the variables hold of it. */
  namespace: Pick<NamespaceRow, 'full_path'>
  ref: string
  tag: boolean
  sha: string
  beforeSha: string | null
  source: CiPipelineSource
  commit: Commit
  configPath: string
}

function commitVariables(input: Pick<PipelineVariablesInput, 'ref' | 'tag' | 'sha' | 'beforeSha'>): Record<string, string> {
  return {
    CI_COMMIT_SHA: input.sha,
    CI_COMMIT_BEFORE_SHA: input.beforeSha ?? NULL_SHA,
    CI_COMMIT_REF_NAME: input.ref,
    CI_COMMIT_REF_SLUG: ciSlug(input.ref),
    ...(input.tag ? { CI_COMMIT_TAG: input.ref } : {}),
  }
}

function projectVariables({ project, namespace }: Pick<PipelineVariablesInput, 'project' | 'namespace'>): Record<string, string> {
  const fullPath = `${namespace.full_path}/${project.path}`
  return {
    CI_PROJECT_ID: String(project.id),
    CI_PROJECT_NAME: project.path,
    CI_PROJECT_PATH: fullPath,
    CI_PROJECT_PATH_SLUG: ciSlug(fullPath),
    CI_PROJECT_NAMESPACE: namespace.full_path,
  }
}

function pipelineSourceVariables(input: Pick<PipelineVariablesInput, 'configPath' | 'source'>, message: string): Record<string, string> {
  const [title = '', ...rest] = message.split('\n')
  return {
    CI_CONFIG_PATH: input.configPath,
    CI_PIPELINE_SOURCE: input.source,
    CI_COMMIT_MESSAGE: message,
    CI_COMMIT_TITLE: title,
    CI_COMMIT_DESCRIPTION: rest.join('\n').replace(/^\n+/, ''),
  }
}

export function predefinedVariables(input: PipelineVariablesInput): Record<string, string> {
  return {
    CI: 'true',
    GITLAB_CI: 'true',
    ...commitVariables(input),
    ...pipelineSourceVariables(input, input.commit.message),
    ...projectVariables(input),
    CI_PROJECT_VISIBILITY: VISIBILITY_NAMES[input.project.visibility_level],
  }
}

/** One variable as runners take it; `file` is left out, as the original leaves it out unless true. */
export interface RunnerVariable {
  key: string
  value: string
  public: boolean
  /**
   * Newer runners hide masked values in traces. Ingot sends none masked (11.5 has no masked
   * variables); its own runner masks every non-public value instead (src/runner/mask.ts).
   */
  masked: boolean
}

export interface JobVariablesInput {
  job: CiBuildRow
  pipeline: CiPipelineRow
  project: ProjectRow
  /** The project's namespace: its path is what the variables hold of it. */
  namespace: Pick<NamespaceRow, 'full_path'>
  /** The message of the pipeline's commit ('' when the commit is gone from the repository). */
  commitMessage: string
  /** The CI file the pipeline was read from. */
  configPath: string
  runner: CiRunnerRow
  /** Who the job runs for (GITLAB_USER_*); null when nobody is known. */
  user: UserRow | null
  /** The job's token, in clear: CI_JOB_TOKEN, CI_REPOSITORY_URL. */
  token: string
  /** The repository URL with the job token, as git_info.repo_url. */
  repoUrl: string
  /** INGOT_EXTERNAL_URL. */
  baseUrl: string
  serverVersion: string
  serverRevision: string
  /** The pipeline's own variables (`variables[]` of its creation), opened. */
  pipelineVariables: readonly { key: string; value: string }[]
  /**
   * The CI/CD variables of the project's groups (the root's first) then of the project, opened;
   * protected ones only when the pipeline's ref is protected (ci-variables.ts jobCiVariableValues).
   */
  ciVariables: readonly { key: string; value: string }[]
  /** The environment the job's `environment` names, when it exists (CI_ENVIRONMENT_*). */
  environment: EnvironmentRow | null
}

export function jobVariables(input: JobVariablesInput): RunnerVariable[] {
  const { job, pipeline, project, namespace, runner, user } = input
  const options = readBuildOptions(job)
  const fullPath = `${namespace.full_path}/${project.path}`
  const projectUrl = `${input.baseUrl}/${fullPath}`
  const server = new URL(input.baseUrl)
  const [major = '0', minor = '0', patch = '0'] = input.serverVersion.split('.')
  const pipelineInput = {
    project, namespace, ref: pipeline.ref, tag: pipeline.tag === 1, sha: pipeline.sha, beforeSha: pipeline.before_sha,
    source: pipeline.source, configPath: input.configPath,
  }
  const triggered = pipeline.source === 'trigger'
  const variables: RunnerVariable[] = []
  const add = (values: Record<string, string>, isPublic = true) => {
    for (const [key, value] of Object.entries(values)) variables.push({ key, value, public: isPublic, masked: false })
  }
  const secret = (values: Record<string, string>) => add(values, false)

  add({ CI_PIPELINE_ID: String(pipeline.id), CI_PIPELINE_URL: `${projectUrl}/pipelines/${pipeline.id}` })
  add({ CI_JOB_ID: String(job.id), CI_JOB_URL: `${projectUrl}/-/jobs/${job.id}` })
  secret({ CI_JOB_TOKEN: input.token })
  add({ CI_BUILD_ID: String(job.id) })
  secret({ CI_BUILD_TOKEN: input.token })
  add({ CI_REGISTRY_USER: JOB_TOKEN_LOGIN })
  secret({ CI_REGISTRY_PASSWORD: input.token, CI_REPOSITORY_URL: input.repoUrl })

  const commit = commitVariables(pipelineInput)
  add({
    CI: 'true',
    GITLAB_CI: 'true',
    GITLAB_FEATURES: '',
    CI_SERVER_NAME: 'GitLab',
    CI_SERVER_VERSION: input.serverVersion,
    CI_SERVER_VERSION_MAJOR: major,
    CI_SERVER_VERSION_MINOR: minor,
    CI_SERVER_VERSION_PATCH: patch,
    CI_SERVER_REVISION: input.serverRevision,
    CI_SERVER_URL: input.baseUrl,
    CI_SERVER_HOST: server.hostname,
    CI_SERVER_PORT: server.port || (server.protocol === 'https:' ? '443' : '80'),
    CI_SERVER_PROTOCOL: server.protocol.replace(':', ''),
    CI_API_V4_URL: `${input.baseUrl}/api/v4`,
    CI_JOB_NAME: job.name,
    CI_JOB_STAGE: job.stage,
    ...commit,
    ...(triggered ? { CI_PIPELINE_TRIGGERED: 'true' } : {}),
    CI_COMMIT_SHORT_SHA: pipeline.sha.slice(0, 8),
    ...(pipeline.tag === 1 ? {} : { CI_COMMIT_BRANCH: pipeline.ref }),
    ...(job.when === 'manual' ? { CI_JOB_MANUAL: 'true' } : {}),
    ...(options.parallel === null ? {} : { CI_NODE_INDEX: String(options.parallel.index) }),
    CI_NODE_TOTAL: String(options.parallel?.total ?? 1),
    // The names before 9.0, which older CI files still use.
    CI_BUILD_REF: commit.CI_COMMIT_SHA!,
    CI_BUILD_BEFORE_SHA: commit.CI_COMMIT_BEFORE_SHA!,
    CI_BUILD_REF_NAME: commit.CI_COMMIT_REF_NAME!,
    CI_BUILD_REF_SLUG: commit.CI_COMMIT_REF_SLUG!,
    CI_BUILD_NAME: job.name,
    CI_BUILD_STAGE: job.stage,
    ...(pipeline.tag === 1 ? { CI_BUILD_TAG: pipeline.ref } : {}),
    ...(triggered ? { CI_BUILD_TRIGGERED: 'true' } : {}),
    ...(job.when === 'manual' ? { CI_BUILD_MANUAL: 'true' } : {}),
  })
  add({
    ...projectVariables(pipelineInput),
    CI_PROJECT_TITLE: project.name,
    CI_PROJECT_URL: projectUrl,
    CI_PROJECT_VISIBILITY: VISIBILITY_NAMES[project.visibility_level],
    ...(project.default_branch === null ? {} : { CI_DEFAULT_BRANCH: project.default_branch }),
  })
  // The pipeline's number comes first of its group, as the original's Ci::Pipeline#predefined_variables.
  add({ CI_PIPELINE_IID: String(pipeline.iid), ...pipelineSourceVariables(pipelineInput, input.commitMessage) })
  add({
    CI_RUNNER_ID: String(runner.id),
    CI_RUNNER_DESCRIPTION: runner.description ?? '',
    CI_RUNNER_TAGS: parseJsonArray(runner.tag_list).join(', '),
  })
  for (const variable of readYamlVariables(job)) add({ [variable.key]: variable.value })
  if (user !== null) {
    add({ GITLAB_USER_ID: String(user.id), GITLAB_USER_EMAIL: user.email, GITLAB_USER_LOGIN: user.username, GITLAB_USER_NAME: user.name })
  }
  for (const variable of input.ciVariables) secret({ [variable.key]: variable.value })
  for (const variable of input.pipelineVariables) add({ [variable.key]: variable.value })
  add(environmentVariables(options.environment, input.environment))
  return variables
}
