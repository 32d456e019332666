// Milestones of projects and groups: the batch loader issue and merge request lists embed, one
// milestone of an owner (for the routes' loaders), the milestones a board may be scoped to, and
// the milestone lists with their filters.
import { sql } from 'kysely'
import type { Db } from '../db/index.js'
import type { MilestoneRow } from '../db/schema.js'
import { fitsIntegerColumn } from '../db/values.js'
import type { MilestoneView } from '../entities/milestone.js'
import { paginate, type Page, type PaginationQuery } from '../common/pages.js'
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
