// Issue boards of a project or group: the default board the original creates on the first read of
// an owner without one, and creating, renaming (or scoping to a milestone) and deleting boards.
// Every board has the built-in backlog and closed lists, which the API never shows.
import type { Updateable } from 'kysely'
import type { Db } from '../../db/index.js'
import { isPostgres } from '../../db/dialect.js'
import type { BoardRow, BoardsTable } from '../../db/schema.js'
import { validationFailed } from '../../common/errors.js'
import type { LabelOwner } from '../../finders/labels-finder.js'

const DEFAULT_BOARD_NAME = 'Development'

async function insertBoard(trx: Db, owner: LabelOwner, name: string): Promise<BoardRow> {
  const now = Date.now()
  const board = await trx.insertInto('boards').values({
    project_id: owner.type === 'project' ? owner.id : null,
    group_id: owner.type === 'group' ? owner.id : null,
    name,
    milestone_id: null,
    created_at: now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow()
  await trx.insertInto('board_lists').values((['backlog', 'closed'] as const).map((listType) => ({
    board_id: board.id, label_id: null, list_type: listType, position: null, deleted_at: null, created_at: now, updated_at: now,
  }))).execute()
  return board
}

async function hasBoard(db: Db, owner: LabelOwner): Promise<boolean> {
  const board = await db.selectFrom('boards').select('id')
    .where(owner.type === 'project' ? 'project_id' : 'group_id', '=', owner.id).executeTakeFirst()
  return board !== undefined
}

/** Creates the "Development" board of an owner that has none. */
export async function ensureDefaultBoard(db: Db, owner: LabelOwner): Promise<void> {
  if (await hasBoard(db, owner)) return
  await db.transaction().execute(async (trx) => {
    // Concurrent first reads on PostgreSQL queue on the owner's row, so only one creates the board.
    if (isPostgres(db)) {
      await (owner.type === 'project'
        ? trx.selectFrom('projects').select('id').where('id', '=', owner.id)
        : trx.selectFrom('namespaces').select('id').where('id', '=', owner.id)
      ).forUpdate().execute()
    }
    if (await hasBoard(trx, owner)) return
    await insertBoard(trx, owner, DEFAULT_BOARD_NAME)
  })
}

function nameErrors(name: string): string[] {
  return name.trim() === '' ? ["can't be blank"] : []
}

export async function createBoard(db: Db, owner: LabelOwner, name: string): Promise<BoardRow> {
  const errors = nameErrors(name)
  if (errors.length > 0) throw validationFailed({ name: errors })
  return db.transaction().execute((trx) => insertBoard(trx, owner, name.trim()))
}

export interface BoardChanges {
  name?: string
  /** null removes the board's milestone. */
  milestoneId?: number | null
}

export async function updateBoard(db: Db, board: BoardRow, changes: BoardChanges): Promise<BoardRow> {
  if (changes.name !== undefined) {
    const errors = nameErrors(changes.name)
    if (errors.length > 0) throw validationFailed({ name: errors })
  }
  const update: Updateable<BoardsTable> = { updated_at: Date.now() }
  if (changes.name !== undefined) update.name = changes.name.trim()
  if (changes.milestoneId !== undefined) update.milestone_id = changes.milestoneId
  return db.updateTable('boards').set(update).where('id', '=', board.id).returningAll().executeTakeFirstOrThrow()
}

/** Deletes the board with its lists. */
export async function deleteBoard(db: Db, board: BoardRow): Promise<void> {
  await db.deleteFrom('boards').where('id', '=', board.id).execute()
}
