// Issue boards of a project or group and their label lists (the built-in backlog and closed lists
// and soft-deleted lists never show), each page loaded with its lists, labels and milestones in a
// fixed number of queries.
import type { Db } from '../db/index.js'
import type { BoardListRow, BoardRow, LabelRow } from '../db/schema.js'
import { fitsIntegerColumn } from '../db/values.js'
import type { BoardListView, BoardView } from '../entities/board.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import type { LabelOwner } from './labels-finder.js'

/** A project's or a group's boards. */
export type BoardOwner = LabelOwner

const ownerColumn = (owner: BoardOwner) => (owner.type === 'project' ? 'project_id' : 'group_id')

export function listBoards(db: Db, owner: BoardOwner, pagination: PaginationQuery): Promise<Page<BoardRow>> {
  return paginate(db, db.selectFrom('boards').selectAll().where(ownerColumn(owner), '=', owner.id).orderBy('id'), pagination)
}

export async function findBoard(db: Db, owner: BoardOwner, boardId: number): Promise<BoardRow | null> {
  if (!fitsIntegerColumn(boardId)) return null
  const board = await db.selectFrom('boards').selectAll().where(ownerColumn(owner), '=', owner.id).where('id', '=', boardId).executeTakeFirst()
  return board ?? null
}

/** The shown lists of a board: its label lists that are not deleted, by position. */
function shownLists(db: Db, boardIds: readonly number[]) {
  return db.selectFrom('board_lists').selectAll()
    .where('board_id', 'in', [...boardIds]).where('list_type', '=', 'label').where('deleted_at', 'is', null)
    .orderBy('position').orderBy('id')
}

async function withLabels(db: Db, lists: readonly BoardListRow[]): Promise<BoardListView[]> {
  const labelIds = [...new Set(lists.flatMap((list) => (list.label_id === null ? [] : [list.label_id])))]
  const labels = labelIds.length === 0 ? []
    : await db.selectFrom('labels').selectAll().where('id', 'in', labelIds).execute()
  const byId = new Map<number, LabelRow>(labels.map((label) => [label.id, label]))
  return lists.flatMap((list) => {
    const label = list.label_id === null ? undefined : byId.get(list.label_id)
    return label === undefined ? [] : [{ list, label }]
  })
}

/** The boards with their lists and milestones (three queries for any number of boards). */
export async function loadBoardViews(db: Db, boards: readonly BoardRow[]): Promise<BoardView[]> {
  if (boards.length === 0) return []
  const milestoneIds = [...new Set(boards.flatMap((board) => (board.milestone_id === null ? [] : [board.milestone_id])))]
  const [lists, milestones] = await Promise.all([
    shownLists(db, boards.map((board) => board.id)).execute().then((rows) => withLabels(db, rows)),
    milestoneIds.length === 0 ? [] : db.selectFrom('milestones').select(['id', 'title']).where('id', 'in', milestoneIds).execute(),
  ])
  const milestoneById = new Map(milestones.map((milestone) => [milestone.id, milestone]))
  return boards.map((board) => ({
    board,
    milestone: board.milestone_id === null ? null : milestoneById.get(board.milestone_id) ?? null,
    lists: lists.filter((view) => view.list.board_id === board.id),
  }))
}

export async function listBoardLists(db: Db, board: BoardRow, pagination: PaginationQuery): Promise<Page<BoardListView>> {
  const page = await paginate(db, shownLists(db, [board.id]), pagination)
  return { ...page, items: await withLabels(db, page.items) }
}

export async function findBoardList(db: Db, board: BoardRow, listId: number): Promise<BoardListView | null> {
  if (!fitsIntegerColumn(listId)) return null
  const list = await shownLists(db, [board.id]).where('id', '=', listId).executeTakeFirst()
  if (list === undefined) return null
  return (await withLabels(db, [list]))[0] ?? null
}
