// The job a runner is handed by POST /jobs/request: the original 11.5's JobRequest::Response
// (lib/api/entities.rb; artifacts as Ci::BuildRunnerPresenter builds them), with the git_info
// fields runners from 12.0 on require (refspecs, depth) and the features newer runners read.
import { Type, type Static } from '@sinclair/typebox'
import type { BuildOptions } from '../services/ci/build-options.js'
import type { RunnerVariable } from '../services/ci/variables.js'
import { FAILURE_REASONS } from '../services/ci/runner-protocol/update-job.js'
import { Nullable, NullableString } from './common.js'

const StringList = Type.Array(Type.String())
const NullableStringList = Type.Unsafe<string[] | null>({ type: ['array', 'null'], items: { type: 'string' } })

const Image = Type.Object({ name: Type.String(), entrypoint: NullableStringList })
const Service = Type.Object({ name: Type.String(), entrypoint: NullableStringList, alias: NullableString, command: NullableStringList })

const Artifact = Type.Object({
  name: NullableString,
  untracked: Type.Boolean(),
  paths: StringList,
  when: Type.String(),
  expire_in: NullableString,
  artifact_type: Type.String(),
  artifact_format: Type.String(),
})

export const JobRequestResponse = Type.Object({
  id: Type.Integer(),
  token: Type.String(),
  allow_git_fetch: Type.Boolean(),
  job_info: Type.Object({ name: Type.String(), stage: Type.String(), project_id: Type.Integer(), project_name: Type.String() }),
  git_info: Type.Object({
    repo_url: Type.String(),
    ref: Type.String(),
    sha: Type.String(),
    before_sha: Type.String(),
    ref_type: Type.Union([Type.Literal('branch'), Type.Literal('tag')]),
    refspecs: StringList,
    depth: Type.Integer(),
  }),
  runner_info: Type.Object({ timeout: Type.Integer(), runner_session_url: Type.Null() }),
  variables: Type.Array(Type.Object({ key: Type.String(), value: Type.String(), public: Type.Boolean(), masked: Type.Boolean() })),
  steps: Type.Array(Type.Object({
    name: Type.String(), script: StringList, timeout: Type.Integer(), when: Type.String(), allow_failure: Type.Boolean(),
  })),
  image: Nullable(Image),
  services: Type.Array(Service),
  artifacts: Type.Unsafe<Static<typeof Artifact>[] | null>({ type: ['array', 'null'], items: Artifact }),
  cache: Type.Array(Type.Object({ key: Type.String(), untracked: Type.Boolean(), paths: StringList, policy: Type.String() })),
  credentials: Type.Array(Type.Object({ type: Type.String(), url: Type.String(), username: Type.String(), password: Type.String() })),
  dependencies: Type.Array(Type.Object({
    id: Type.Integer(), name: Type.String(), token: Type.String(),
    artifacts_file: Type.Optional(Type.Object({ filename: Type.String(), size: Type.Integer() })),
  })),
  features: Type.Object({ trace_sections: Type.Boolean(), failure_reasons: StringList }),
})

/** Report artifact kinds (artifacts:reports) and the format the original stores each in. */
const REPORT_FORMATS: Record<string, string> = { junit: 'gzip' }
/** The file names the original gives report artifacts. */
const REPORT_FILE_NAMES: Record<string, string> = {
  junit: 'junit.xml.gz',
  codequality: 'gl-code-quality-report.json',
  sast: 'gl-sast-report.json',
  dependency_scanning: 'gl-dependency-scanning-report.json',
  container_scanning: 'gl-container-scanning-report.json',
  dast: 'gl-dast-report.json',
  license_management: 'gl-license-management-report.json',
  performance: 'performance.json',
}

export interface JobRequestView {
  job: { id: number; name: string; stage: string; allowFailure: boolean; timeout: number; options: BuildOptions }
  /** The job's token, in clear: given once, here. */
  token: string
  project: { id: number; name: string }
  git: { repoUrl: string; ref: string; tag: boolean; sha: string; beforeSha: string | null; depth: number }
  variables: readonly RunnerVariable[]
  /** Jobs of earlier stages whose artifacts this one downloads; `artifactsFile` null for one without an archive. */
  dependencies: readonly { id: number; name: string; artifactsFile: { filename: string; size: number } | null }[]
}

const NULL_SHA = '0000000000000000000000000000000000000000'

/** The fetch refspecs of newer responses (BuildRunnerPresenter#refspecs): the ref alone for a shallow clone, else every branch and tag. */
function refspecsOf(git: JobRequestView['git']): string[] {
  const branch = (name: string) => `+refs/heads/${name}:refs/remotes/origin/${name}`
  const tag = (name: string) => `+refs/tags/${name}:refs/tags/${name}`
  if (git.depth > 0) return [git.tag ? tag(git.ref) : branch(git.ref)]
  return [branch('*'), tag('*')]
}

/** BuildRunnerPresenter#artifacts: the archive (when it has paths or untracked files), then one entry per report; null when none. */
function artifactsOf(options: BuildOptions): Static<typeof Artifact>[] | null {
  const artifacts = options.artifacts
  if (artifacts === null) return null
  const list: Static<typeof Artifact>[] = []
  if (artifacts.paths.length > 0 || artifacts.untracked) {
    list.push({
      name: artifacts.name, untracked: artifacts.untracked, paths: artifacts.paths, when: artifacts.when, expire_in: artifacts.expireIn,
      artifact_type: 'archive', artifact_format: 'zip',
    })
  }
  for (const [type, paths] of Object.entries(artifacts.reports)) {
    list.push({
      name: REPORT_FILE_NAMES[type] ?? type, untracked: false, paths, when: 'always', expire_in: artifacts.expireIn,
      artifact_type: type, artifact_format: REPORT_FORMATS[type] ?? 'raw',
    })
  }
  return list.length === 0 ? null : list
}

export function presentJobRequest(view: JobRequestView): Static<typeof JobRequestResponse> {
  const { job, git } = view
  const options = job.options
  const steps: Static<typeof JobRequestResponse>['steps'] = [{
    name: 'script', script: [...options.before_script, ...options.script], timeout: job.timeout, when: 'on_success', allow_failure: job.allowFailure,
  }]
  if (options.after_script.length > 0) {
    steps.push({ name: 'after_script', script: options.after_script, timeout: job.timeout, when: 'always', allow_failure: true })
  }
  return {
    id: job.id,
    token: view.token,
    allow_git_fetch: true,
    job_info: { name: job.name, stage: job.stage, project_id: view.project.id, project_name: view.project.name },
    git_info: {
      repo_url: git.repoUrl, ref: git.ref, sha: git.sha, before_sha: git.beforeSha ?? NULL_SHA, ref_type: git.tag ? 'tag' : 'branch',
      refspecs: refspecsOf(git), depth: git.depth,
    },
    runner_info: { timeout: job.timeout, runner_session_url: null },
    variables: view.variables.map((v) => ({ key: v.key, value: v.value, public: v.public, masked: v.masked })),
    steps,
    image: options.image === null ? null : { name: options.image.name, entrypoint: options.image.entrypoint ?? null },
    services: options.services.map((service) => ({
      name: service.name, entrypoint: service.entrypoint ?? null, alias: service.alias ?? null, command: service.command ?? null,
    })),
    artifacts: artifactsOf(options),
    cache: options.cache === null ? [] : [{ key: options.cache.key, untracked: options.cache.untracked, paths: options.cache.paths, policy: options.cache.policy }],
    credentials: [],
    // The running job's token: it is the one the artifacts download of a dependency accepts. An
    // entry without an archive has no artifacts_file, as 11.5's.
    dependencies: view.dependencies.map((dependency) => ({
      id: dependency.id, name: dependency.name, token: view.token,
      ...(dependency.artifactsFile === null ? {} : { artifacts_file: dependency.artifactsFile }),
    })),
    features: { trace_sections: true, failure_reasons: [...FAILURE_REASONS] },
  }
}
