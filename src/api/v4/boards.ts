// Issue boards of projects (/projects/:id/boards) and groups (/groups/:id/boards), for signed-in
// callers only, as the original: list (an owner without boards gets its "Development" board on the
// first read), get, create (`name`), update (`name`, `milestone_id`), delete; and a board's label
// lists: list, get, create (`label_id`, a label of the project or its groups — of the group or its
// ancestors for a group board — added at the end), move (`position`) and delete (soft).
// Who may: reading needs a caller who can see the project's issues (or the group); creating and
// changing boards and lists Reporter; deleting a board Maintainer; deleting a list the project's
// or group's Owner (and admins), as the spec says.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type TSchema } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { BoardRow, NamespaceRow, ProjectRow } from '../../db/schema.js'
import {
  BoardList, GroupBoard, ProjectBoard, presentBoardList, presentGroupBoard, presentProjectBoard, type BoardView,
} from '../../entities/board.js'
import { Nullable, type PresentContext } from '../../entities/common.js'
import {
  findBoard, findBoardList, listBoardLists, listBoards, loadBoardViews, type BoardOwner,
} from '../../finders/boards-finder.js'
import { findAvailableLabelById } from '../../finders/labels-finder.js'
import { findAvailableMilestone } from '../../finders/milestones-finder.js'
import { MAINTAINER, OWNER, REPORTER } from '../../policies/access-levels.js'
import type { ProjectAbility } from '../../policies/project-policy.js'
import { createBoard, deleteBoard, ensureDefaultBoard, updateBoard, type BoardChanges } from '../../services/boards/boards.js'
import { createBoardList, deleteBoardList, moveBoardList } from '../../services/boards/board-lists.js'
import { missingOneOf, notFound } from '../../common/errors.js'
import { authorizeGroupLevel, loadGroup, loadProjectFor } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { IdParams, Pagination } from '../params.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { presentCtx } from '../present.js'

const BoardParams = Type.Composite([IdParams, Type.Object({ board_id: Type.Integer() })])
const ListParams = Type.Composite([BoardParams, Type.Object({ list_id: Type.Integer() })])
const CreateBoardBody = Type.Object({ name: Type.String() })
const UpdateBoardBody = Type.Object({
  name: Type.Optional(Type.String()),
  milestone_id: Type.Optional(Nullable(Type.Integer({ description: 'null or 0 removes the milestone' }))),
})
const CreateListBody = Type.Object({ label_id: Type.Integer() })
const MoveListBody = Type.Object({ position: Type.Integer({ description: '0-based, among the label lists' }) })

type Access = 'read' | 'admin' | 'destroyBoard' | 'destroyList'

interface BoardScope {
  owner: BoardOwner
  present(view: BoardView, ctx: PresentContext): unknown
}

const PROJECT_ABILITIES: Record<Access, ProjectAbility> = {
  read: 'read_issue', admin: 'admin_issue', destroyBoard: 'admin_project', destroyList: 'destroy_board_list',
}
const GROUP_LEVELS: Record<Access, number> = { read: 0, admin: REPORTER, destroyBoard: MAINTAINER, destroyList: OWNER }

function projectScope(project: ProjectRow, namespace: NamespaceRow): BoardScope {
  return {
    owner: { type: 'project', id: project.id },
    present: (view, ctx) => presentProjectBoard(view, { project, namespace }, ctx),
  }
}

interface BoardRoutes {
  loader(req: FastifyRequest, id: string, access: Access): Promise<BoardScope>
  /** The board entity of the owner's kind. */
  entity: TSchema
}

const scopes: Record<'projects' | 'groups', BoardRoutes> = {
  projects: {
    async loader(req, id, access) {
      const { project, namespace } = await loadProjectFor(req, id, PROJECT_ABILITIES[access])
      return projectScope(project, namespace)
    },
    entity: ProjectBoard,
  },
  groups: {
    async loader(req, id, access) {
      const loaded = await loadGroup(req, id)
      authorizeGroupLevel(req, loaded, GROUP_LEVELS[access])
      return { owner: { type: 'group', id: loaded.group.id }, present: (view) => presentGroupBoard(view) }
    },
    entity: GroupBoard,
  },
}

const boards: FastifyPluginAsyncTypebox = async (app) => {
  for (const [resource, { loader, entity }] of Object.entries(scopes)) {
    const base = `/${resource}/:id/boards`

    async function loadBoard(req: FastifyRequest, id: string, boardId: number, access: Access): Promise<{ scope: BoardScope; board: BoardRow }> {
      const scope = await loader(req, id, access)
      const board = await findBoard(req.ingot.db, scope.owner, boardId)
      if (board === null) throw notFound('Board')
      return { scope, board }
    }

    async function presentBoards(req: FastifyRequest, scope: BoardScope, rows: readonly BoardRow[]) {
      const ctx = presentCtx(req)
      return (await loadBoardViews(req.ingot.db, rows)).map((view) => scope.present(view, ctx))
    }

    app.get(base, {
      schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(entity) } },
    }, async (req, reply) => {
      const { db } = req.ingot
      const scope = await loader(req, req.params.id, 'read')
      await ensureDefaultBoard(db, scope.owner)
      const page = await listBoards(db, scope.owner, req.query)
      setPaginationHeaders(req, reply, page)
      return presentBoards(req, scope, page.items)
    })

    app.get(`${base}/:board_id`, {
      schema: { params: BoardParams, response: { 200: entity } },
    }, async (req) => {
      const { scope, board } = await loadBoard(req, req.params.id, req.params.board_id, 'read')
      return (await presentBoards(req, scope, [board]))[0]
    })

    app.post(base, {
      schema: { params: IdParams, body: CreateBoardBody, response: { 201: entity } },
    }, async (req, reply) => {
      const scope = await loader(req, req.params.id, 'admin')
      const board = await createBoard(req.ingot.db, scope.owner, req.body.name)
      reply.code(201)
      return (await presentBoards(req, scope, [board]))[0]
    })

    app.put(`${base}/:board_id`, {
      schema: { params: BoardParams, body: UpdateBoardBody, response: { 200: entity } },
    }, async (req) => {
      const { db } = req.ingot
      const { name, milestone_id: milestoneId } = req.body
      if (name === undefined && milestoneId === undefined) throw missingOneOf('name', 'milestone_id')
      const { scope, board } = await loadBoard(req, req.params.id, req.params.board_id, 'admin')
      const changes: BoardChanges = name === undefined ? {} : { name }
      if (milestoneId === null || milestoneId === 0) changes.milestoneId = null
      else if (milestoneId !== undefined) {
        const milestone = await findAvailableMilestone(db, scope.owner, milestoneId)
        if (milestone === null) throw notFound('Milestone')
        changes.milestoneId = milestone.id
      }
      return (await presentBoards(req, scope, [await updateBoard(db, board, changes)]))[0]
    })

    app.delete(`${base}/:board_id`, {
      schema: { params: BoardParams },
    }, async (req, reply) => {
      const { board } = await loadBoard(req, req.params.id, req.params.board_id, 'destroyBoard')
      checkUnmodifiedSince(req, board.updated_at)
      await deleteBoard(req.ingot.db, board)
      return reply.code(204).send()
    })

    app.get(`${base}/:board_id/lists`, {
      schema: { params: BoardParams, querystring: Pagination, response: { 200: Type.Array(BoardList) } },
    }, async (req, reply) => {
      const { board } = await loadBoard(req, req.params.id, req.params.board_id, 'read')
      const page = await listBoardLists(req.ingot.db, board, req.query)
      setPaginationHeaders(req, reply, page)
      return page.items.map(presentBoardList)
    })

    app.get(`${base}/:board_id/lists/:list_id`, {
      schema: { params: ListParams, response: { 200: BoardList } },
    }, async (req) => {
      const { board } = await loadBoard(req, req.params.id, req.params.board_id, 'read')
      const view = await findBoardList(req.ingot.db, board, req.params.list_id)
      if (view === null) throw notFound('List')
      return presentBoardList(view)
    })

    app.post(`${base}/:board_id/lists`, {
      schema: { params: BoardParams, body: CreateListBody, response: { 201: BoardList } },
    }, async (req, reply) => {
      const { db } = req.ingot
      const { scope, board } = await loadBoard(req, req.params.id, req.params.board_id, 'admin')
      const label = await findAvailableLabelById(db, scope.owner, req.body.label_id)
      if (label === null) throw notFound('Label')
      const list = await createBoardList(db, board, label)
      reply.code(201)
      return presentBoardList({ list, label })
    })

    app.put(`${base}/:board_id/lists/:list_id`, {
      schema: { params: ListParams, body: MoveListBody, response: { 200: BoardList } },
    }, async (req) => {
      const { db } = req.ingot
      const { board } = await loadBoard(req, req.params.id, req.params.board_id, 'admin')
      const view = await findBoardList(db, board, req.params.list_id)
      if (view === null) throw notFound('List')
      const list = await moveBoardList(db, view.list, req.body.position)
      return presentBoardList({ list, label: view.label })
    })

    app.delete(`${base}/:board_id/lists/:list_id`, {
      schema: { params: ListParams },
    }, async (req, reply) => {
      const { db } = req.ingot
      const { board } = await loadBoard(req, req.params.id, req.params.board_id, 'destroyList')
      const view = await findBoardList(db, board, req.params.list_id)
      if (view === null) throw notFound('List')
      checkUnmodifiedSince(req, view.list.updated_at)
      await deleteBoardList(db, view.list)
      return reply.code(204).send()
    })
  }
}

export default boards
