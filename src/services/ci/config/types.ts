// The pipeline definition a CI file comes to once read, validated and normalized: what pipelines,
// the runner protocol and the built-in runner work from, with every default of the original 11.5
// filled in, so that none of them reads the YAML again.

export type CiWhen = 'on_success' | 'on_failure' | 'always' | 'manual' | 'delayed'

/** `only` or `except`: each part that is present must hold (`only`) or any may (`except`). */
export interface CiJobPolicy {
  /** Ref names, `/regex/`, `branches`, `tags`, pipeline sources, `<pattern>@<project path>`; null: any ref. */
  refs: string[] | null
  /** Expressions such as `$CI_COMMIT_MESSAGE =~ /deploy/`; null: no condition on variables. */
  variables: string[] | null
  /** Globs of changed paths; null: no condition on changes. */
  changes: string[] | null
  /** `active`: only while the project has an active Kubernetes integration. */
  kubernetes: 'active' | null
}

export interface CiImage {
  name: string
  entrypoint?: string[]
}

export interface CiService extends CiImage {
  command?: string[]
  alias?: string
}

export interface CiCache {
  key: string
  paths: string[]
  untracked: boolean
  policy: 'pull-push' | 'push' | 'pull'
}

export interface CiArtifacts {
  name: string | null
  paths: string[]
  untracked: boolean
  when: 'on_success' | 'on_failure' | 'always'
  /** As written (`1 week`); the runner sends it back when it uploads. */
  expireIn: string | null
  /** Report kind (junit, codequality, …) → paths. */
  reports: Record<string, string[]>
}

export interface CiEnvironment {
  name: string
  url: string | null
  action: 'start' | 'stop'
  onStop: string | null
}

export interface CiRetry {
  max: number
  /** Failure reasons that are retried; `always` for any. */
  when: string[]
}

export interface CiJob {
  /** `rspec`, or `rspec 2/3` for an instance of a parallel job. */
  name: string
  stage: string
  stageIndex: number
  /** The global before_script and after_script when the job has none of its own, as 11.5 inherits them. */
  beforeScript: string[]
  script: string[]
  afterScript: string[]
  when: CiWhen
  /** For `when: delayed`: the delay as written, and in seconds. */
  startIn: { text: string; seconds: number } | null
  allowFailure: boolean
  tags: string[]
  /** The jobs whose artifacts are downloaded; null: every job of earlier stages; []: none. */
  dependencies: string[] | null
  only: CiJobPolicy
  except: CiJobPolicy | null
  /** The global variables overridden by the job's own, as the job receives them. */
  variables: Record<string, string>
  image: CiImage | null
  services: CiService[]
  cache: CiCache | null
  artifacts: CiArtifacts | null
  environment: CiEnvironment | null
  /** The regular expression between the slashes of `coverage: /…/`. */
  coverage: string | null
  retry: CiRetry | null
  /** For a parallel job's instances: which one (from 1) of how many. */
  parallel: { index: number; total: number } | null
}

export interface CiPipelineDefinition {
  stages: string[]
  variables: Record<string, string>
  /** Visible jobs in the file's order, parallel jobs expanded into their instances. */
  jobs: CiJob[]
}

export type CiConfigResult = { ok: true; config: CiPipelineDefinition } | { ok: false; errors: string[] }

/** A plain mapping read from YAML (keys always strings). */
export type YamlHash = Record<string, unknown>

export const isYamlHash = (value: unknown): value is YamlHash =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
