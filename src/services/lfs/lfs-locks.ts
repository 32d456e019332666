// LFS file locks (the original's Lfs::LockFileService, UnlockFileService and LocksFinderService):
// a Developer locks a path of a project, one lock per path; its owner unlocks it, or a Maintainer
// with `force`; anyone who may download lists them, with git-lfs's cursor and limit.
import type { AppContext } from '../../context.js'
import type { Db } from '../../db/index.js'
import type { Actor } from '../../auth/actor.js'
import type { LfsFileLockView } from '../../entities/lfs-file-lock.js'
import { canOnProject, type ProjectSubject } from '../../policies/project-policy.js'

/** A refused lock change: the status and the original's message, and the lock in the way, when one is. */
export class LfsLockError extends Error {
  constructor(readonly status: number, message: string, readonly lock: LfsFileLockView | null = null) {
    super(message)
  }
}

const NO_PERMISSION = 'You have no permissions'

/** Longest path a lock takes: longer than any path git checks out. */
const MAX_PATH_LENGTH = 4096

/** Locks listed at once when the client names no limit, and at most. */
export const LFS_LOCKS_PAGE = { default: 100, max: 1000 }

async function viewsOf(db: Db, locks: LfsFileLockView['lock'][]): Promise<LfsFileLockView[]> {
  const userIds = [...new Set(locks.map((lock) => lock.user_id))]
  const users = userIds.length === 0 ? [] : await db.selectFrom('users').select(['id', 'name']).where('id', 'in', userIds).execute()
  const names = new Map(users.map((user) => [user.id, user.name]))
  return locks.map((lock) => ({ lock, ownerName: names.get(lock.user_id) ?? '' }))
}

export async function createLfsLock(ctx: AppContext, subject: ProjectSubject, actor: Actor | null, path: unknown): Promise<LfsFileLockView> {
  if (actor === null || !canOnProject(actor, subject, 'push_code')) throw new LfsLockError(403, NO_PERMISSION)
  if (typeof path !== 'string' || path === '') throw new LfsLockError(422, "Validation failed: Path can't be blank")
  if (path.length > MAX_PATH_LENGTH) throw new LfsLockError(422, `Validation failed: Path is too long (maximum is ${MAX_PATH_LENGTH} characters)`)
  const projectId = subject.project.id
  const created = await ctx.db.insertInto('lfs_file_locks')
    .values({ project_id: projectId, user_id: actor.user.id, path, created_at: Date.now() })
    .onConflict((oc) => oc.columns(['project_id', 'path']).doNothing())
    .returningAll().executeTakeFirst()
  if (created !== undefined) return { lock: created, ownerName: actor.user.name }
  const existing = await ctx.db.selectFrom('lfs_file_locks').selectAll().where('project_id', '=', projectId).where('path', '=', path).executeTakeFirst()
  throw new LfsLockError(409, 'already locked', existing === undefined ? null : (await viewsOf(ctx.db, [existing]))[0]!)
}

export interface LfsLocksQuery {
  path: string | undefined
  id: number | undefined
  /** The id of the first lock to list (a previous page's next_cursor). */
  cursor: number | undefined
  limit: number
}

/** A page of the project's locks, oldest first, and the cursor of the next page when there is one. */
export async function listLfsLocks(db: Db, projectId: number, query: LfsLocksQuery): Promise<{ locks: LfsFileLockView[]; nextCursor: number | null }> {
  let select = db.selectFrom('lfs_file_locks').selectAll().where('project_id', '=', projectId)
  if (query.path !== undefined) select = select.where('path', '=', query.path)
  if (query.id !== undefined) select = select.where('id', '=', query.id)
  if (query.cursor !== undefined) select = select.where('id', '>=', query.cursor)
  const rows = await select.orderBy('id').limit(query.limit + 1).execute()
  const nextCursor = rows.length > query.limit ? rows[query.limit]!.id : null
  return { locks: await viewsOf(db, rows.slice(0, query.limit)), nextCursor }
}

export async function unlockLfsLock(
  ctx: AppContext, subject: ProjectSubject, actor: Actor | null, lockId: number, force: boolean,
): Promise<LfsFileLockView> {
  if (actor === null || !canOnProject(actor, subject, 'push_code')) throw new LfsLockError(403, NO_PERMISSION)
  const lock = await ctx.db.selectFrom('lfs_file_locks').selectAll()
    .where('project_id', '=', subject.project.id).where('id', '=', lockId).executeTakeFirst()
  if (lock === undefined) throw new LfsLockError(404, 'Lock not found')
  // The original's LfsFileLock#can_be_unlocked_by?: the owner, or a Maintainer who forces it.
  if (lock.user_id !== actor.user.id) {
    if (!force) throw new LfsLockError(403, `${lock.path} is locked by GitLab User ${lock.user_id}`)
    if (!canOnProject(actor, subject, 'admin_project')) throw new LfsLockError(403, 'You must have maintainer access to force delete a lock')
  }
  await ctx.db.deleteFrom('lfs_file_locks').where('id', '=', lock.id).execute()
  return (await viewsOf(ctx.db, [lock]))[0]!
}
