// Releases of tags (spec: Tags and releases; states: a tag has no release or one): POST creates
// one (409 "Release already exists" when there is one), PUT replaces its description (404 when
// there is none). Callers check that the tag exists.
import type { Db } from '../../db/index.js'
import type { ReleaseRow } from '../../db/schema.js'
import { apiError, conflict } from '../../common/errors.js'
import { isUniqueViolation } from '../projects/create-project.js'

export interface ReleaseInput {
  projectId: number
  tag: string
  description: string
  authorId: number
}

const newRelease = (input: ReleaseInput, now: number) => ({
  project_id: input.projectId, tag: input.tag, description: input.description, author_id: input.authorId, created_at: now, updated_at: now,
})

export async function createRelease(db: Db, input: ReleaseInput): Promise<ReleaseRow> {
  const alreadyExists = () => conflict('Release already exists')
  const existing = await db.selectFrom('releases').select('id')
    .where('project_id', '=', input.projectId).where('tag', '=', input.tag).executeTakeFirst()
  if (existing !== undefined) throw alreadyExists()
  const now = Date.now()
  return db.insertInto('releases').values(newRelease(input, now)).returningAll().executeTakeFirstOrThrow().catch((err: unknown) => {
    if (isUniqueViolation(err)) throw alreadyExists()
    throw err
  })
}

/** The tag's release with this description, created or replaced (a new tag's `release_description`). */
export async function saveRelease(db: Db, input: ReleaseInput): Promise<void> {
  const now = Date.now()
  await db.insertInto('releases').values(newRelease(input, now)).onConflict((oc) => oc.columns(['project_id', 'tag']).doUpdateSet({ description: input.description, updated_at: now }))
    .execute()
}

export async function updateRelease(db: Db, projectId: number, tag: string, description: string): Promise<ReleaseRow> {
  const updated = await db.updateTable('releases').set({ description, updated_at: Date.now() })
    .where('project_id', '=', projectId).where('tag', '=', tag).returningAll().executeTakeFirst()
  if (updated === undefined) throw apiError(404, 'Release does not exist')
  return updated
}

export async function deleteRelease(db: Db, projectId: number, tag: string): Promise<void> {
  await db.deleteFrom('releases').where('project_id', '=', projectId).where('tag', '=', tag).execute()
}
