// Runners for tests of the runner protocol: rows of ci_runners as registration makes them (a token
// kept as its digest, where the runner may take jobs), written directly, and the protocol's calls.
import type { TestApp, ApiResponse } from './app.js'
import type { CiRunnerRow, CiRunnerType } from '../../src/db/schema.js'
import { newRunnerToken } from '../../src/services/ci/runners/runner-token.js'

export interface TestRunner {
  row: CiRunnerRow
  token: string
}

export interface RunnerOptions {
  type?: CiRunnerType
  /** For a project runner: the projects it is assigned to. */
  projectIds?: readonly number[]
  /** For a group runner: its groups. */
  groupIds?: readonly number[]
  tags?: readonly string[]
  runUntagged?: boolean
  protectedOnly?: boolean
  active?: boolean
  maximumTimeout?: number | null
  description?: string
}

export async function makeRunner(t: TestApp, options: RunnerOptions = {}): Promise<TestRunner> {
  const { token, digest } = newRunnerToken()
  const now = Date.now()
  const row = await t.ctx.db.insertInto('ci_runners').values({
    token_digest: digest,
    runner_type: options.type ?? 'instance_type',
    description: options.description ?? 'test runner',
    active: options.active === false ? 0 : 1,
    run_untagged: options.runUntagged === false ? 0 : 1,
    tag_list: JSON.stringify(options.tags ?? []),
    access_level: options.protectedOnly === true ? 'ref_protected' : 'not_protected',
    maximum_timeout: options.maximumTimeout ?? null,
    created_at: now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow()
  for (const projectId of options.projectIds ?? []) {
    await t.ctx.db.insertInto('ci_runner_projects').values({ runner_id: row.id, project_id: projectId, created_at: now }).execute()
  }
  for (const namespaceId of options.groupIds ?? []) {
    await t.ctx.db.insertInto('ci_runner_namespaces').values({ runner_id: row.id, namespace_id: namespaceId, created_at: now }).execute()
  }
  return { row, token }
}

/** POST /jobs/request as the runner (no user token), with `info` of a current runner. */
export function requestJob(t: TestApp, runner: TestRunner, body: Record<string, unknown> = {}): Promise<ApiResponse> {
  return t.api('POST', '/jobs/request', {
    token: null,
    body: { token: runner.token, info: { name: 'gitlab-runner', version: '17.0.0', revision: 'abcdef', platform: 'linux', architecture: 'amd64', features: { upload_multiple_artifacts: true } }, ...body },
  })
}

/** PUT /jobs/:id with the job token. */
export function updateJob(t: TestApp, jobId: number, jobToken: string, body: Record<string, unknown>): Promise<ApiResponse> {
  return t.api('PUT', `/jobs/${jobId}`, { token: null, body: { token: jobToken, ...body } })
}
