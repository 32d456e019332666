// Runner entities as the original 11.5's:
//   Runner                     id, description, ip_address, active, is_shared, name, online, status
//   RunnerDetails              + its settings, what it said of itself, when it was last heard from,
//                              and the projects and groups it serves (those the caller belongs to,
//                              all of them for admins)
//   RunnerRegistrationDetails  what POST /runners answers the runner: its id and its token
// The runner's own token is kept only as a digest, so RunnerDetails cannot show it as the original
// did (docs/api.md, Runners).
import { Type, type Static } from '@sinclair/typebox'
import type { CiRunnerRow, NamespaceRow, ProjectRow } from '../db/schema.js'
import { isoTime, parseJsonArray } from '../db/values.js'
import { RUNNER_ONLINE_WINDOW_MS } from '../finders/runners-finder.js'
import { Nullable, NullableDateTime, NullableInteger, NullableString, type PresentContext } from './common.js'
import { ProjectSimple, presentProjectSimple } from './project.js'
import { groupWebUrl } from './group.js'

export const Runner = Type.Object({
  id: Type.Integer(),
  description: NullableString,
  ip_address: NullableString,
  active: Type.Boolean(),
  is_shared: Type.Boolean(),
  name: NullableString,
  online: Type.Boolean(),
  status: Type.String(),
})
export type RunnerEntity = Static<typeof Runner>

export const RunnerDetails = Type.Composite([Runner, Type.Object({
  tag_list: Type.Array(Type.String()),
  run_untagged: Type.Boolean(),
  locked: Type.Boolean(),
  maximum_timeout: NullableInteger,
  access_level: Type.String(),
  version: NullableString,
  revision: NullableString,
  platform: NullableString,
  architecture: NullableString,
  contacted_at: NullableDateTime,
  projects: Type.Array(ProjectSimple),
  groups: Type.Array(Type.Object({ id: Type.Integer(), web_url: Type.String(), name: Type.String() })),
})])
export type RunnerDetailsEntity = Static<typeof RunnerDetails>

export const RunnerRegistrationDetails = Type.Object({
  id: Type.Integer(),
  token: Type.String(),
  // Newer runners read it; registration tokens of this kind never expire.
  token_expires_at: Nullable(Type.String()),
})

export function isRunnerOnline(runner: CiRunnerRow, now: number): boolean {
  return runner.contacted_at !== null && runner.contacted_at > now - RUNNER_ONLINE_WINDOW_MS
}

/** The original's Ci::Runner#status: never heard from, paused, or active and online or not. */
export function runnerStatus(runner: CiRunnerRow, now: number): 'not_connected' | 'online' | 'offline' | 'paused' {
  if (runner.contacted_at === null) return 'not_connected'
  if (runner.active !== 1) return 'paused'
  return isRunnerOnline(runner, now) ? 'online' : 'offline'
}

export function presentRunner(runner: CiRunnerRow, now = Date.now()): RunnerEntity {
  return {
    id: runner.id,
    description: runner.description,
    ip_address: runner.ip_address,
    active: runner.active === 1,
    is_shared: runner.runner_type === 'instance_type',
    name: runner.name,
    online: isRunnerOnline(runner, now),
    status: runnerStatus(runner, now),
  }
}

export interface RunnerDetailsView {
  runner: CiRunnerRow
  projects: Array<{ project: ProjectRow; namespace: NamespaceRow }>
  groups: NamespaceRow[]
}

export function presentRunnerDetails(view: RunnerDetailsView, ctx: PresentContext, now = Date.now()): RunnerDetailsEntity {
  const { runner } = view
  return {
    ...presentRunner(runner, now),
    tag_list: parseJsonArray(runner.tag_list),
    run_untagged: runner.run_untagged === 1,
    locked: runner.locked === 1,
    maximum_timeout: runner.maximum_timeout,
    access_level: runner.access_level,
    version: runner.version,
    revision: runner.revision,
    platform: runner.platform,
    architecture: runner.architecture,
    contacted_at: isoTime(runner.contacted_at),
    projects: view.projects.map((assigned) => presentProjectSimple({
      ...assigned, owner: null, access: null, sharedWithGroups: [], statistics: null, customAttributes: null, forkedFrom: null,
    }, ctx)),
    groups: view.groups.map((group) => ({ id: group.id, web_url: groupWebUrl(group, ctx), name: group.name })),
  }
}
