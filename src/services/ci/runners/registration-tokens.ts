// Registration tokens, with which `POST /runners` registers a runner of a kind: the instance's
// (instance runners; the built-in runner registers with it), a group's (group runners) and a
// project's (project runners, `projects.runners_token`, made with the project). The instance's
// and a group's are made when first asked for; the compare-and-swap keeps the first one made when
// two processes ask at once. A project's Maintainers reset its token on its CI/CD settings page.
import type { Db } from '../../../db/index.js'
import { newRunnerToken } from './runner-token.js'

export async function instanceRunnersToken(db: Db): Promise<string> {
  const read = () => db.selectFrom('application_settings').select(['id', 'runners_registration_token']).orderBy('id').limit(1).executeTakeFirstOrThrow()
  const row = await read()
  if (row.runners_registration_token !== null) return row.runners_registration_token
  await db.updateTable('application_settings').set({ runners_registration_token: newRunnerToken().token })
    .where('id', '=', row.id).where('runners_registration_token', 'is', null).execute()
  return (await read()).runners_registration_token!
}

/** A new instance registration token (the admin area's reset): runners registered already keep working. */
export async function resetInstanceRunnersToken(db: Db): Promise<string> {
  const token = newRunnerToken().token
  await db.updateTable('application_settings').set({ runners_registration_token: token })
    .where('id', '=', db.selectFrom('application_settings').select('id').orderBy('id').limit(1)).execute()
  return token
}

/** A group's registration token; null when the namespace is not a group. */
export async function groupRunnersToken(db: Db, namespaceId: number): Promise<string | null> {
  const read = () => db.selectFrom('namespaces').select(['kind', 'runners_token']).where('id', '=', namespaceId).executeTakeFirst()
  const row = await read()
  if (row === undefined || row.kind !== 'group') return null
  if (row.runners_token !== null) return row.runners_token
  await db.updateTable('namespaces').set({ runners_token: newRunnerToken().token })
    .where('id', '=', namespaceId).where('runners_token', 'is', null).execute()
  return (await read())?.runners_token ?? null
}

/** The registration token of the group at `fullPath` (any case), or null when there is no such group. */
export async function groupRunnersTokenByPath(db: Db, fullPath: string): Promise<string | null> {
  const group = await db.selectFrom('namespaces').select('id')
    .where('kind', '=', 'group').where('full_path_lower', '=', fullPath.toLowerCase()).executeTakeFirst()
  return group === undefined ? null : groupRunnersToken(db, group.id)
}

/**
 * A new registration token for the project (its CI/CD settings' reset, the original's
 * reset_registration_token): the old one registers no more runners; runners registered with it
 * keep their own tokens.
 */
export async function resetProjectRunnersToken(db: Db, projectId: number): Promise<string> {
  const { token } = newRunnerToken()
  await db.updateTable('projects').set({ runners_token: token, updated_at: Date.now() }).where('id', '=', projectId).execute()
  return token
}
