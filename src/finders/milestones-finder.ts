// Milestones of projects and groups: the batch loader issue and merge request lists embed, the
// loaders of the milestone routes (reused by the routes listing a milestone's issues and merge
// requests), and the milestone lists with their filters.
import type { FastifyRequest } from 'fastify'
import { sql } from 'kysely'
import type { Db } from '../db/index.js'
import type { MilestoneRow } from '../db/schema.js'
import { fitsIntegerColumn } from '../db/values.js'
import type { MilestoneView } from '../entities/milestone.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
import { notFound } from '../common/errors.js'
import { authorize, loadGroup, loadProjectFor, type LoadedGroup, type LoadedProject } from '../api/load.js'
import type { ProjectAbility } from '../policies/project-policy.js'
import { projectGroupChain } from '../services/labels/issuable-labels.js'
import { groupAndAncestors, type LabelOwner } from './labels-finder.js'
import { namespacesById, projectsById } from './rows.js'
import { matchesSearchInAny } from './text-search.js'

/** A project's or a group's milestones. */
export type MilestoneOwner = LabelOwner

/** The milestones with the full paths their web_url needs, by id, in a fixed number of queries. */
export async function milestoneViewsById(db: Db, ids: readonly number[]): Promise<Map<number, MilestoneView>> {
  const unique = [...new Set(ids)]
  if (unique.length === 0) return new Map()
  const milestones = await db.selectFrom('milestones').selectAll().where('id', 'in', unique).execute()
  return viewsOf(db, milestones)
}

async function viewsOf(db: Db, milestones: readonly MilestoneRow[]): Promise<Map<number, MilestoneView>> {
  const projects = await projectsById(db, milestones.flatMap((m) => (m.project_id === null ? [] : [m.project_id])))
  const namespaces = await namespacesById(db, [
    ...milestones.flatMap((m) => (m.group_id === null ? [] : [m.group_id])),
    ...[...projects.values()].map((p) => p.namespace_id),
  ])
  const result = new Map<number, MilestoneView>()
  for (const milestone of milestones) {
    let ownerFullPath: string | undefined
    if (milestone.group_id !== null) {
      ownerFullPath = namespaces.get(milestone.group_id)?.full_path
    } else if (milestone.project_id !== null) {
      const project = projects.get(milestone.project_id)
      const namespace = project === undefined ? undefined : namespaces.get(project.namespace_id)
      if (project !== undefined && namespace !== undefined) ownerFullPath = `${namespace.full_path}/${project.path}`
    }
    if (ownerFullPath !== undefined) result.set(milestone.id, { milestone, ownerFullPath })
  }
  return result
}

export interface MilestoneFilters {
  iids?: readonly number[]
  state?: 'active' | 'closed'
  title?: string
  /** Every word in the title, or every word in the description. */
  search?: string
}

/** The owner's milestones, newest first, as the original lists them. */
export function listMilestones(db: Db, owner: MilestoneOwner, filters: MilestoneFilters, pagination: PaginationQuery): Promise<Page<MilestoneRow>> {
  let query = db.selectFrom('milestones').selectAll()
    .where(owner.type === 'project' ? 'project_id' : 'group_id', '=', owner.id)
  if (filters.iids !== undefined) {
    const iids = filters.iids.filter(fitsIntegerColumn)
    query = iids.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where('iid', 'in', iids)
  }
  if (filters.state !== undefined) query = query.where('state', '=', filters.state)
  if (filters.title !== undefined) query = query.where('title', '=', filters.title)
  const search = filters.search === undefined ? null : matchesSearchInAny(['milestones.title', 'milestones.description'], filters.search)
  if (search !== null) query = query.where(search)
  return paginate(db, query.orderBy('id', 'desc'), pagination)
}

export async function findMilestone(db: Db, owner: MilestoneOwner, id: number): Promise<MilestoneRow | null> {
  if (!fitsIntegerColumn(id)) return null
  const milestone = await db.selectFrom('milestones').selectAll()
    .where(owner.type === 'project' ? 'project_id' : 'group_id', '=', owner.id).where('id', '=', id)
    .executeTakeFirst()
  return milestone ?? null
}

/** A milestone a board of the owner may be scoped to: the owner's own or one of its groups'. */
export async function findAvailableMilestone(db: Db, owner: MilestoneOwner, id: number): Promise<MilestoneRow | null> {
  if (!fitsIntegerColumn(id)) return null
  const milestone = await db.selectFrom('milestones').selectAll().where('id', '=', id)
    .where((eb) => (owner.type === 'project'
      ? eb.or([eb('project_id', '=', owner.id), eb('group_id', 'in', projectGroupChain(owner.id))])
      : eb('group_id', 'in', groupAndAncestors(owner.id))))
    .executeTakeFirst()
  return milestone ?? null
}

export interface LoadedProjectMilestone extends LoadedProject {
  milestone: MilestoneRow
}

export interface LoadedGroupMilestone extends LoadedGroup {
  milestone: MilestoneRow
}

/**
 * A project milestone of a route: 404 unless the caller sees the project, 403 without `ability`
 * ('read_milestone' to read, 'admin_milestone' to change, 'destroy_milestone' to delete), then 404
 * for a milestone the project does not have.
 */
export async function loadProjectMilestone(
  req: FastifyRequest, projectIdOrPath: string, milestoneId: number, ability: ProjectAbility = 'read_milestone',
): Promise<LoadedProjectMilestone> {
  const loaded = await loadProjectFor(req, projectIdOrPath, ability)
  const milestone = await findMilestone(req.server.ingot.db, { type: 'project', id: loaded.project.id }, milestoneId)
  if (milestone === null) throw notFound('Milestone')
  return { ...loaded, milestone }
}

/** 403 unless the caller is an admin or holds `minLevel` or more in the group (0: anyone who sees it). */
export function authorizeGroupLevel(req: FastifyRequest, loaded: LoadedGroup, minLevel: number): void {
  if (minLevel === 0) return
  authorize(req.actor !== null && (req.actor.user.admin === 1 || loaded.accessLevel >= minLevel))
}

/**
 * A group milestone of a route: 404 unless the caller sees the group, 403 below `minLevel` (0 to
 * read, Reporter to change, Developer to delete), then 404 for a milestone the group does not have.
 */
export async function loadGroupMilestone(
  req: FastifyRequest, groupIdOrPath: string, milestoneId: number, minLevel = 0,
): Promise<LoadedGroupMilestone> {
  const loaded = await loadGroup(req, groupIdOrPath)
  authorizeGroupLevel(req, loaded, minLevel)
  const milestone = await findMilestone(req.server.ingot.db, { type: 'group', id: loaded.group.id }, milestoneId)
  if (milestone === null) throw notFound('Milestone')
  return { ...loaded, milestone }
}
