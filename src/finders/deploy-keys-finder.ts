// Deploy keys as their API reads them: every key of the instance, a project's keys with their
// links (in the order they were enabled), one of them, and the keys a user may enable on the
// projects they maintain (one by id or fingerprint, or those a project lacks).
import type { Db } from '../db/index.js'
import type { DeployKeyRow } from '../db/schema.js'
import { fitsIntegerColumn } from '../db/values.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import type { ProjectDeployKey } from '../entities/deploy-key.js'
import { MAINTAINER } from '../policies/access-levels.js'
import { grantedProject } from './access.js'

export function listDeployKeys(db: Db, pagination: PaginationQuery): Promise<Page<DeployKeyRow>> {
  return paginate(db, db.selectFrom('deploy_keys').selectAll().orderBy('id'), pagination)
}

/** A project's links joined to their keys; the link's columns are prefixed with `link_`. */
function projectKeys(db: Db, projectId: number) {
  return db.selectFrom('deploy_keys_projects as l')
    .innerJoin('deploy_keys as k', 'k.id', 'l.deploy_key_id')
    .selectAll('k')
    .select(['l.id as link_id', 'l.deploy_key_id as link_deploy_key_id', 'l.project_id as link_project_id', 'l.can_push as link_can_push',
      'l.created_at as link_created_at', 'l.updated_at as link_updated_at'])
    .where('l.project_id', '=', projectId)
}

type ProjectKeyRow = Awaited<ReturnType<ReturnType<typeof projectKeys>['executeTakeFirstOrThrow']>>

function toProjectDeployKey(row: ProjectKeyRow): ProjectDeployKey {
  const { link_id: id, link_deploy_key_id: deployKeyId, link_project_id: projectId, link_can_push: canPush,
    link_created_at: createdAt, link_updated_at: updatedAt, ...key } = row
  return {
    key,
    link: { id, deploy_key_id: deployKeyId, project_id: projectId, can_push: canPush, created_at: createdAt, updated_at: updatedAt },
  }
}

export async function listProjectDeployKeys(db: Db, projectId: number, pagination: PaginationQuery): Promise<Page<ProjectDeployKey>> {
  const page = await paginate(db, projectKeys(db, projectId).orderBy('l.id'), pagination)
  return { ...page, items: page.items.map(toProjectDeployKey) }
}

/** The key enabled on the project under this id; null when the project has no such key. */
export async function findProjectDeployKey(db: Db, projectId: number, keyId: number): Promise<ProjectDeployKey | null> {
  if (!fitsIntegerColumn(keyId)) return null
  const row = await projectKeys(db, projectId).where('k.id', '=', keyId).executeTakeFirst()
  return row === undefined ? null : toProjectDeployKey(row)
}

export async function findProjectDeployKeyByFingerprint(db: Db, projectId: number, fingerprint: string): Promise<ProjectDeployKey | null> {
  const row = await projectKeys(db, projectId).where('k.fingerprint', '=', fingerprint).executeTakeFirst()
  return row === undefined ? null : toProjectDeployKey(row)
}

/** The keys a user may enable: public ones, and those enabled on a project they maintain. */
async function enableableKeys(db: Db, userId: number) {
  const maintained = await grantedProject(db, userId, 'l.project_id', MAINTAINER)
  return db.selectFrom('deploy_keys').selectAll()
    .where((eb) => eb.or([
      eb('public', '=', 1),
      eb.exists(eb.selectFrom('deploy_keys_projects as l').select('l.id')
        .whereRef('l.deploy_key_id', '=', 'deploy_keys.id').where(maintained)),
    ]))
}

/**
 * A deploy key the user may enable on a project of theirs, found by id or fingerprint: a public
 * key, or one enabled on a project they maintain. (11.5 also offers the keys of projects where the
 * user has any membership; a Guest, who cannot see those keys, cannot hand them on here.)
 */
export async function findEnableableDeployKey(
  db: Db, userId: number, by: { id: number } | { fingerprint: string },
): Promise<DeployKeyRow | null> {
  if ('id' in by && !fitsIntegerColumn(by.id)) return null
  const key = await (await enableableKeys(db, userId))
    .$call((q) => ('id' in by ? q.where('id', '=', by.id) : q.where('fingerprint', '=', by.fingerprint)))
    .executeTakeFirst()
  return key ?? null
}

/** The keys the user may enable on the project that it does not hold yet, newest first (the settings page offers them). */
export async function listEnableableDeployKeys(db: Db, userId: number, projectId: number, pagination: PaginationQuery): Promise<Page<DeployKeyRow>> {
  const query = (await enableableKeys(db, userId))
    .where('id', 'not in', db.selectFrom('deploy_keys_projects').select('deploy_key_id').where('project_id', '=', projectId))
    .orderBy('id', 'desc')
  return paginate(db, query, pagination)
}
