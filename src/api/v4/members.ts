// Members (spec: Members): every operation for /groups/:id/members and /projects/:id/members,
// declared once per source kind as the original's members.rb does. Managing members takes
// admin_group_member (Owner) or admin_project_member (Maintainer); any member may leave.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import { Member, presentMember } from '../../entities/member.js'
import { findAllMembers, findDirectMember, findDirectMembers, loadMemberView, memberViewOf, toMemberView } from '../../finders/members-finder.js'
import { canOnGroup } from '../../policies/group-policy.js'
import { canOnProject } from '../../policies/project-policy.js'
import { addMember } from '../../services/members/add-member.js'
import type { MemberSourceRef } from '../../services/members/member-rules.js'
import { removeMember } from '../../services/members/remove-member.js'
import { updateMember } from '../../services/members/update-member.js'
import { notFound } from '../../common/errors.js'
import { authorize, loadGroup, loadProject, loadUser, requireActor } from '../load.js'
import { checkUnmodifiedSince } from '../preconditions.js'
import { setPaginationHeaders } from '../pagination.js'
import { paginate } from '../../common/pages.js'
import { DateParam, IdParams, Pagination } from '../params.js'
import { presentCtx } from '../present.js'

interface LoadedSource {
  ref: MemberSourceRef
  /** Whether the caller may add, change and remove members. */
  canManage: boolean
}

interface SourceKind {
  resource: 'groups' | 'projects'
  load(req: FastifyRequest, id: string): Promise<LoadedSource>
}

const SOURCE_KINDS: readonly SourceKind[] = [
  {
    resource: 'groups',
    async load(req, id) {
      const { group, accessLevel } = await loadGroup(req, id)
      return { ref: { type: 'group', id: group.id }, canManage: canOnGroup(req.actor, accessLevel, 'admin_group_member') }
    },
  },
  {
    resource: 'projects',
    async load(req, id) {
      const subject = await loadProject(req, id)
      return { ref: { type: 'project', id: subject.project.id }, canManage: canOnProject(req.actor, subject, 'admin_project_member') }
    },
  },
]

const ListQuery = Type.Composite([Pagination, Type.Object({ query: Type.Optional(Type.String()) })])
const MemberParams = Type.Composite([IdParams, Type.Object({ user_id: Type.Integer() })])
/** `YYYY-MM-DD`; null or an empty string for no expiry date. */
const ExpiresAtParam = Type.Optional(Type.Union([DateParam(), Type.Literal(''), Type.Null()]))
const AddBody = Type.Object({ user_id: Type.Integer(), access_level: Type.Integer(), expires_at: ExpiresAtParam })
const UpdateBody = Type.Object({ access_level: Type.Integer(), expires_at: ExpiresAtParam })

const expiryDate = (value: string | null | undefined) => (value === '' ? null : value)

const members: FastifyPluginAsyncTypebox = async (app) => {
  for (const kind of SOURCE_KINDS) {
    const base = `/${kind.resource}/:id/members`

    // Direct members, and /all with the inherited ones too.
    for (const [suffix, find] of [['', findDirectMembers], ['/all', findAllMembers]] as const) {
      app.get(`${base}${suffix}`, {
        schema: { params: IdParams, querystring: ListQuery, response: { 200: Type.Array(Member) } },
      }, async (req, reply) => {
        const { db } = req.ingot
        const { ref } = await kind.load(req, req.params.id)
        const page = await paginate(db, find(db, ref, { query: req.query.query }), req.query)
        setPaginationHeaders(req, reply, page)
        const ctx = presentCtx(req)
        return page.items.map((row) => presentMember(toMemberView(row), ctx))
      })
    }

    app.get(`${base}/:user_id`, {
      schema: { params: MemberParams, response: { 200: Member } },
    }, async (req) => {
      const { db } = req.ingot
      const { ref } = await kind.load(req, req.params.id)
      const member = await findDirectMember(db, ref, req.params.user_id)
      if (member === undefined) throw notFound('Member')
      return presentMember(await loadMemberView(db, member), presentCtx(req))
    })

    app.post(base, {
      schema: { params: IdParams, body: AddBody, response: { 201: Member } },
    }, async (req, reply) => {
      const { db } = req.ingot
      const { ref, canManage } = await kind.load(req, req.params.id)
      authorize(canManage)
      const user = await loadUser(req, req.body.user_id)
      const member = await addMember(db, requireActor(req), {
        sourceType: ref.type,
        sourceId: ref.id,
        userId: user.id,
        accessLevel: req.body.access_level,
        expiresAt: expiryDate(req.body.expires_at),
      }, { rejectPastExpiry: true })
      reply.code(201)
      return presentMember(memberViewOf(member, user), presentCtx(req))
    })

    app.put(`${base}/:user_id`, {
      schema: { params: MemberParams, body: UpdateBody, response: { 200: Member } },
    }, async (req) => {
      const { db } = req.ingot
      const { ref, canManage } = await kind.load(req, req.params.id)
      authorize(canManage)
      const member = await findDirectMember(db, ref, req.params.user_id)
      if (member === undefined) throw notFound('Member')
      const updated = await updateMember(db, ref, member, {
        accessLevel: req.body.access_level,
        expiresAt: expiryDate(req.body.expires_at),
      })
      return presentMember(await loadMemberView(db, updated), presentCtx(req))
    })

    app.delete(`${base}/:user_id`, {
      schema: { params: MemberParams },
    }, async (req, reply) => {
      const { db } = req.ingot
      const { ref, canManage } = await kind.load(req, req.params.id)
      const member = await findDirectMember(db, ref, req.params.user_id)
      if (member === undefined) throw notFound('Member')
      authorize(canManage || member.user_id === req.actor?.user.id)
      checkUnmodifiedSince(req, member.updated_at)
      await removeMember(db, ref, member)
      return reply.code(204).send()
    })
  }
}

export default members
