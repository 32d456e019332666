// The predefined variables of a pipeline that `only`/`except: variables` expressions can test
// (the original 11.5's names): the commit, the ref, the source and the project. The runner protocol
// adds the job's own (CI_JOB_ID, tokens, URLs) when it hands a job out.
import type { CiPipelineSource, NamespaceRow, ProjectRow } from '../../db/schema.js'
import type { Commit } from '../../git/repository.js'

const VISIBILITY_NAMES = { 0: 'private', 10: 'internal', 20: 'public' } as const

/** The original's slug of a ref or path: lower case, runs of other characters as `-`, at most 63. */
export function ciSlug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, '-').slice(0, 63).replace(/^-+|-+$/g, '')
}

export interface PipelineVariablesInput {
  project: ProjectRow
  namespace: NamespaceRow
  ref: string
  tag: boolean
  sha: string
  beforeSha: string | null
  source: CiPipelineSource
  commit: Commit
  configPath: string
}

export function predefinedVariables(input: PipelineVariablesInput): Record<string, string> {
  const { project, namespace, commit } = input
  const [title = '', ...rest] = commit.message.split('\n')
  const fullPath = `${namespace.full_path}/${project.path}`
  return {
    CI: 'true',
    GITLAB_CI: 'true',
    CI_COMMIT_SHA: input.sha,
    CI_COMMIT_BEFORE_SHA: input.beforeSha ?? '0000000000000000000000000000000000000000',
    CI_COMMIT_REF_NAME: input.ref,
    CI_COMMIT_REF_SLUG: ciSlug(input.ref),
    ...(input.tag ? { CI_COMMIT_TAG: input.ref } : {}),
    CI_COMMIT_MESSAGE: commit.message,
    CI_COMMIT_TITLE: title,
    CI_COMMIT_DESCRIPTION: rest.join('\n').replace(/^\n+/, ''),
    CI_PIPELINE_SOURCE: input.source,
    CI_CONFIG_PATH: input.configPath,
    CI_PROJECT_ID: String(project.id),
    CI_PROJECT_NAME: project.path,
    CI_PROJECT_PATH: fullPath,
    CI_PROJECT_PATH_SLUG: ciSlug(fullPath),
    CI_PROJECT_NAMESPACE: namespace.full_path,
    CI_PROJECT_VISIBILITY: VISIBILITY_NAMES[project.visibility_level],
  }
}
