// Who can be assigned an issue or a merge request: an active user (never the ghost) who may see it,
// judged by that user's own access to the project.
import type { Actor } from '../../auth/actor.js'
import type { Db } from '../../db/index.js'
import type { UserRow } from '../../db/schema.js'
import { fitsIntegerColumn } from '../../db/values.js'
import { NO_PROJECT_ACCESS, projectAccessFor } from '../../finders/access.js'
import type { ProjectSubject } from '../../policies/project-policy.js'

/** The user, when `maySee` allows them the project as they can access it; null otherwise. */
export async function assignableUser(
  db: Db, subject: ProjectSubject, userId: number, maySee: (user: Actor, theirs: ProjectSubject) => boolean,
): Promise<UserRow | null> {
  if (!fitsIntegerColumn(userId) || userId <= 0) return null
  const user = await db.selectFrom('users').selectAll().where('id', '=', userId).where('ghost', '=', 0).executeTakeFirst()
  if (user === undefined || user.state !== 'active') return null
  const access = (await projectAccessFor(db, user.id, [subject.project.id])).get(subject.project.id) ?? NO_PROJECT_ACCESS
  return maySee({ user, token: null, sudoFrom: null }, { ...subject, access }) ? user : null
}
