// The label lists of a board, numbered 0..n-1 by position: a new list goes to the end, a moved one
// takes its new place and the others close ranks, a deleted one is soft-deleted (it keeps its row,
// without a position) and the rest are renumbered. Each change locks its board on PostgreSQL so
// concurrent changes of one board queue up (SQLite serializes writers already).
import type { Db } from '../../db/index.js'
import { isPostgres } from '../../db/dialect.js'
import type { BoardListRow, BoardRow, LabelRow } from '../../db/schema.js'
import { ApiError, validationFailed } from '../../common/errors.js'

async function lockBoard(trx: Db, boardId: number): Promise<void> {
  if (isPostgres(trx)) await trx.selectFrom('boards').select('id').where('id', '=', boardId).forUpdate().execute()
}

/** The board's label lists in their order. */
function labelLists(trx: Db, boardId: number) {
  return trx.selectFrom('board_lists').select(['id', 'position', 'label_id'])
    .where('board_id', '=', boardId).where('list_type', '=', 'label').where('deleted_at', 'is', null)
    .orderBy('position').orderBy('id')
    .execute()
}

async function setPositions(trx: Db, lists: readonly { id: number; position: number | null }[], order: readonly number[]): Promise<void> {
  const current = new Map(lists.map((list) => [list.id, list.position]))
  const now = Date.now()
  for (const [position, id] of order.entries()) {
    if (current.get(id) === position) continue
    await trx.updateTable('board_lists').set({ position, updated_at: now }).where('id', '=', id).execute()
  }
}

/** Numbers the board's label lists 0..n-1 in their current order (after a list left it). */
export async function renumberBoardLists(trx: Db, boardId: number): Promise<void> {
  const lists = await labelLists(trx, boardId)
  await setPositions(trx, lists, lists.map((list) => list.id))
}

/** A list of the label at the end of the board; 400 when the board has one already. */
export async function createBoardList(db: Db, board: BoardRow, label: LabelRow): Promise<BoardListRow> {
  return db.transaction().execute(async (trx) => {
    await lockBoard(trx, board.id)
    const lists = await labelLists(trx, board.id)
    if (lists.some((list) => list.label_id === label.id)) throw validationFailed({ label_id: ['has already been taken'] })
    const now = Date.now()
    return trx.insertInto('board_lists').values({
      board_id: board.id, label_id: label.id, list_type: 'label', position: lists.length, deleted_at: null, created_at: now, updated_at: now,
    }).returningAll().executeTakeFirstOrThrow()
  })
}

/** Moves the list to `position` (0-based); null when the board has no such position. */
/** The original's answer to a position outside the board's lists. */
const listCouldNotBeMoved = () => new ApiError(400, { message: { error: 'List could not be moved!' } })

export async function moveBoardList(db: Db, list: BoardListRow, position: number): Promise<BoardListRow> {
  return db.transaction().execute(async (trx) => {
    await lockBoard(trx, list.board_id)
    const lists = await labelLists(trx, list.board_id)
    if (position < 0 || position >= lists.length || !lists.some((other) => other.id === list.id)) throw listCouldNotBeMoved()
    const order = lists.map((other) => other.id).filter((id) => id !== list.id)
    order.splice(position, 0, list.id)
    await setPositions(trx, lists, order)
    return trx.selectFrom('board_lists').selectAll().where('id', '=', list.id).executeTakeFirstOrThrow()
  })
}

export async function deleteBoardList(db: Db, list: BoardListRow): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockBoard(trx, list.board_id)
    const now = Date.now()
    await trx.updateTable('board_lists').set({ deleted_at: now, position: null, updated_at: now }).where('id', '=', list.id).execute()
    await renumberBoardLists(trx, list.board_id)
  })
}
