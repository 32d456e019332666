// A runner registers itself (POST /runners) with a registration token, which decides its kind: the
// instance's makes an instance runner, a group's a runner of that group, a project's a runner of
// that project. It gets its own token once, kept here only as a digest. What it says of itself
// later (verify, unregister, job requests) is recorded by runner-contact.ts.
import type { Db } from '../../../db/index.js'
import type { CiRunnerRow, CiRunnerType } from '../../../db/schema.js'
import { instanceRunnersToken } from './registration-tokens.js'
import { newRunnerToken } from './runner-token.js'
import { checkRunnerSettings } from './runner-attributes.js'

/** What a runner says of itself (`info`); only these fields are kept. */
export interface RunnerInfo {
  name?: string
  version?: string
  revision?: string
  platform?: string
  architecture?: string
}

export interface RunnerRegistration {
  description: string | null
  active: boolean
  locked: boolean
  runUntagged: boolean
  tags: string[]
  accessLevel: 'not_protected' | 'ref_protected'
  maximumTimeout: number | null
  info: RunnerInfo
  ipAddress: string | null
}

type Owner = { type: CiRunnerType; projectId?: number; namespaceId?: number }

/** The kind of runner a registration token makes, or null for a token that is none of them. */
async function ownerOfRegistrationToken(db: Db, token: string): Promise<Owner | null> {
  if (token === '') return null
  if (token === await instanceRunnersToken(db)) return { type: 'instance_type' }
  const project = await db.selectFrom('projects').select('id').where('runners_token', '=', token).executeTakeFirst()
  if (project !== undefined) return { type: 'project_type', projectId: project.id }
  const group = await db.selectFrom('namespaces').select('id').where('runners_token', '=', token).where('kind', '=', 'group').executeTakeFirst()
  if (group !== undefined) return { type: 'group_type', namespaceId: group.id }
  return null
}

const infoColumns = (info: RunnerInfo) => ({
  name: info.name ?? null,
  version: info.version ?? null,
  revision: info.revision ?? null,
  platform: info.platform ?? null,
  architecture: info.architecture ?? null,
})

/**
 * Registers a runner: its row and its project or group, in one transaction. Null for an unknown
 * registration token; a 400 (field messages) for settings the original refuses.
 */
export async function registerRunner(
  db: Db, registrationToken: string, registration: RunnerRegistration,
): Promise<{ runner: CiRunnerRow; token: string } | null> {
  const owner = await ownerOfRegistrationToken(db, registrationToken)
  if (owner === null) return null
  checkRunnerSettings(registration)
  const { token, digest } = newRunnerToken()
  const now = Date.now()
  const runner = await db.transaction().execute(async (trx) => {
    const row = await trx.insertInto('ci_runners').values({
      token_digest: digest,
      runner_type: owner.type,
      description: registration.description,
      active: registration.active ? 1 : 0,
      locked: registration.locked ? 1 : 0,
      run_untagged: registration.runUntagged ? 1 : 0,
      tag_list: JSON.stringify(registration.tags),
      access_level: registration.accessLevel,
      maximum_timeout: registration.maximumTimeout,
      ...infoColumns(registration.info),
      ip_address: registration.ipAddress,
      created_at: now,
      updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
    if (owner.projectId !== undefined) {
      await trx.insertInto('ci_runner_projects').values({ runner_id: row.id, project_id: owner.projectId, created_at: now }).execute()
    }
    if (owner.namespaceId !== undefined) {
      await trx.insertInto('ci_runner_namespaces').values({ runner_id: row.id, namespace_id: owner.namespaceId, created_at: now }).execute()
    }
    return row
  })
  return { runner, token }
}
