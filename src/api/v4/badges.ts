// Badges of projects and groups (the original's /projects/:id/badges and /groups/:id/badges, release
// 11.5): list, get, create, update, delete, and render (a badge's URLs with the placeholders filled
// in, unsaved). Reading needs only to see the project or group (404); writing and rendering need
// admin_project (Maintainers) or admin_group (Owners), 403. A project lists its groups' badges too
// (kind "group") and shows every URL rendered for itself; those are changed on their group only.
// Reading takes anonymous callers (a public project's badges), as the original's authenticate_non_get!.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import type { FastifyRequest } from 'fastify'
import type { BadgeRow } from '../../db/schema.js'
import { Badge, BasicBadgeDetails, presentBadge, type BasicBadgeDetailsEntity } from '../../entities/badge.js'
import { projectFullPath } from '../../entities/project.js'
import { findBadge, listBadges, type BadgeSource } from '../../finders/badges-finder.js'
import { buildBadge, createBadge, deleteBadge, renderBadgeUrl, updateBadge, type BadgeProject } from '../../services/badges/badges.js'
import { canOnGroup } from '../../policies/group-policy.js'
import { canOnProject } from '../../policies/project-policy.js'
import { apiError, forbidden } from '../../common/errors.js'
import { authorize, loadGroup, loadProject, requireActor, type LoadedProject } from '../load.js'
import { setPaginationHeaders } from '../pagination.js'
import { IdParams, Pagination } from '../params.js'

const BadgeParams = Type.Composite([IdParams, Type.Object({ badge_id: Type.Integer() })])
const CreateBody = Type.Object({ link_url: Type.String(), image_url: Type.String() })
const UpdateBody = Type.Object({ link_url: Type.Optional(Type.String()), image_url: Type.Optional(Type.String()) })
const RenderQuery = Type.Object({ link_url: Type.String(), image_url: Type.String() })

/** The project or group a request works on, as authorized before its parameters were validated. */
interface Authorized {
  source: BadgeSource
  /** What placeholders stand for: the project's, or null on a group's badges. */
  project: BadgeProject | null
}

const authorized = new WeakMap<FastifyRequest, Authorized>()

function badgeProject(req: FastifyRequest, loaded: LoadedProject): BadgeProject {
  const { project } = loaded
  // The original's project.commit: the default branch's head, read once for every badge of the answer.
  let head: Promise<string | null> | undefined
  return {
    fullPath: projectFullPath(loaded),
    id: project.id,
    defaultBranch: project.default_branch,
    commitSha: () => head ??= req.ingot.repositories.open(project.id).resolveCommit(project.default_branch ?? 'HEAD').catch(() => null),
  }
}

/** What a route needs: to see the project or group (reading), or to manage its badges, signed in (401). */
type Need = 'read' | 'manage'

function authorizeProject(need: Need) {
  return async (req: FastifyRequest): Promise<void> => {
    if (need === 'manage') requireActor(req)
    const loaded = await loadProject(req, (req.params as { id: string }).id)
    if (need === 'manage') authorize(canOnProject(req.actor, loaded, 'admin_project'))
    authorized.set(req, { source: { type: 'project', id: loaded.project.id, namespaceId: loaded.namespace.id }, project: badgeProject(req, loaded) })
  }
}

function authorizeGroup(need: Need) {
  return async (req: FastifyRequest): Promise<void> => {
    if (need === 'manage') requireActor(req)
    const loaded = await loadGroup(req, (req.params as { id: string }).id)
    if (need === 'manage') authorize(canOnGroup(req.actor, loaded.accessLevel, 'admin_group'))
    authorized.set(req, { source: { type: 'group', id: loaded.group.id }, project: null })
  }
}

function authorizedOf(req: FastifyRequest): Authorized {
  const found = authorized.get(req)
  if (found === undefined) throw new Error('badges route without authorization')
  return found
}

async function details(req: FastifyRequest, urls: { link_url: string; image_url: string }): Promise<BasicBadgeDetailsEntity> {
  const { project } = authorizedOf(req)
  return {
    link_url: urls.link_url,
    image_url: urls.image_url,
    rendered_link_url: await renderBadgeUrl(urls.link_url, project),
    rendered_image_url: await renderBadgeUrl(urls.image_url, project),
  }
}

const present = async (req: FastifyRequest, badge: BadgeRow) => presentBadge(badge, await details(req, badge))

async function loadBadge(req: FastifyRequest, id: number): Promise<BadgeRow> {
  const badge = await findBadge(req.ingot.db, authorizedOf(req).source, id)
  // The original's find raises RecordNotFound, answered in these words.
  if (badge === null) throw apiError(404, '404 Not found')
  return badge
}

/** A group's badge shown on a project is changed on the group, as the original answers on delete. */
async function loadOwnBadge(req: FastifyRequest, id: number, action: 'edit' | 'delete'): Promise<BadgeRow> {
  const badge = await loadBadge(req, id)
  if (authorizedOf(req).source.type === 'project' && badge.project_id === null) {
    throw forbidden(`To ${action} a Group badge please use the Group endpoint`)
  }
  return badge
}

const badges: FastifyPluginAsyncTypebox = async (app) => {
  for (const [base, authorizeOn] of [['/projects/:id/badges', authorizeProject], ['/groups/:id/badges', authorizeGroup]] as const) {
    const reading = authorizeOn('read')
    const managing = authorizeOn('manage')
    app.get(base, {
      schema: { params: IdParams, querystring: Pagination, response: { 200: Type.Array(Badge) } },
      config: { auth: 'optional' },
      preValidation: reading,
    }, async (req, reply) => {
      const page = await listBadges(req.ingot.db, authorizedOf(req).source, req.query)
      setPaginationHeaders(req, reply, page)
      return Promise.all(page.items.map((badge) => present(req, badge)))
    })

    app.get(`${base}/render`, {
      schema: { params: IdParams, querystring: RenderQuery, response: { 200: BasicBadgeDetails } },
      preValidation: managing,
    }, async (req) => details(req, buildBadge(req.query)))

    app.get(`${base}/:badge_id`, {
      schema: { params: BadgeParams, response: { 200: Badge } },
      config: { auth: 'optional' },
      preValidation: reading,
    }, async (req) => present(req, await loadBadge(req, req.params.badge_id)))

    app.post(base, {
      schema: { params: IdParams, body: CreateBody, response: { 201: Badge } },
      preValidation: managing,
    }, async (req, reply) => {
      const { source } = authorizedOf(req)
      const badge = await createBadge(req.ingot.db, { type: source.type, id: source.id }, req.body)
      reply.code(201)
      return present(req, badge)
    })

    app.put(`${base}/:badge_id`, {
      schema: { params: BadgeParams, body: UpdateBody, response: { 200: Badge } },
      preValidation: managing,
    }, async (req) => {
      const badge = await loadOwnBadge(req, req.params.badge_id, 'edit')
      return present(req, await updateBadge(req.ingot.db, badge, req.body))
    })

    app.delete(`${base}/:badge_id`, {
      schema: { params: BadgeParams },
      preValidation: managing,
    }, async (req, reply) => {
      await deleteBadge(req.ingot.db, await loadOwnBadge(req, req.params.badge_id, 'delete'))
      return reply.code(204).send()
    })
  }
}

export default badges
