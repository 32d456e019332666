// Issue board entities (spec: Issue board and board list). A project board shows its project in
// brief; a group board its group_id, and — as the original's group boards do — its name and
// milestone too. Lists are the label lists only, by position.
import { Type, type Static } from '@sinclair/typebox'
import type { BoardListRow, BoardRow, LabelRow, MilestoneRow, NamespaceRow, ProjectRow } from '../db/schema.js'
import { LabelBasic, presentLabelBasic } from './label.js'
import { Nullable, type PresentContext } from './common.js'

export const BoardList = Type.Object({
  id: Type.Integer(),
  label: LabelBasic,
  position: Type.Integer(),
})
export type BoardListEntity = Static<typeof BoardList>

const BoardMilestone = Nullable(Type.Object({ id: Type.Integer(), title: Type.String() }))

const BoardProject = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  name_with_namespace: Type.String(),
  path: Type.String(),
  path_with_namespace: Type.String(),
  http_url_to_repo: Type.String(),
  web_url: Type.String(),
})

export const ProjectBoard = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  project: BoardProject,
  milestone: BoardMilestone,
  lists: Type.Array(BoardList),
})
export type ProjectBoardEntity = Static<typeof ProjectBoard>

export const GroupBoard = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  group_id: Type.Integer(),
  milestone: BoardMilestone,
  lists: Type.Array(BoardList),
})
export type GroupBoardEntity = Static<typeof GroupBoard>

export interface BoardListView {
  list: BoardListRow
  label: LabelRow
}

export interface BoardView {
  board: BoardRow
  milestone: Pick<MilestoneRow, 'id' | 'title'> | null
  lists: BoardListView[]
}

export function presentBoardList(view: BoardListView): BoardListEntity {
  return { id: view.list.id, label: presentLabelBasic(view.label), position: view.list.position ?? 0 }
}

export function presentProjectBoard(view: BoardView, owner: { project: ProjectRow; namespace: NamespaceRow }, ctx: PresentContext): ProjectBoardEntity {
  const { project, namespace } = owner
  const fullPath = `${namespace.full_path}/${project.path}`
  return {
    id: view.board.id,
    name: view.board.name,
    project: {
      id: project.id,
      name: project.name,
      name_with_namespace: `${namespace.full_name} / ${project.name}`,
      path: project.path,
      path_with_namespace: fullPath,
      http_url_to_repo: `${ctx.baseUrl}/${fullPath}.git`,
      web_url: `${ctx.baseUrl}/${fullPath}`,
    },
    milestone: view.milestone === null ? null : { id: view.milestone.id, title: view.milestone.title },
    lists: view.lists.map(presentBoardList),
  }
}

export function presentGroupBoard(view: BoardView): GroupBoardEntity {
  return {
    id: view.board.id,
    name: view.board.name,
    group_id: view.board.group_id ?? 0,
    milestone: view.milestone === null ? null : { id: view.milestone.id, title: view.milestone.title },
    lists: view.lists.map(presentBoardList),
  }
}
