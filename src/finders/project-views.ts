// Loads everything the project entities show for a page of projects in a fixed number of queries,
// whatever the page size: namespaces, owners, the caller's access, shares, statistics, attributes.
import type { Db } from '../db/index.js'
import type { NamespaceRow, ProjectRow, UserRow } from '../db/schema.js'
import type { Actor } from '../auth/actor.js'
import type { ProjectView, SharedWithGroupEntity } from '../entities/project.js'
import type { CustomAttributeEntity } from '../entities/common.js'
import { REPORTER } from '../policies/access-levels.js'
import { projectAccessFor } from './access.js'
import { customAttributesOf } from './custom-attributes.js'

export interface ProjectViewOptions {
  /** statistics=true: loaded for the projects where the caller is Reporter or more (or admin). */
  statistics?: boolean
  /** with_custom_attributes=true from an admin. */
  customAttributes?: boolean
}

export async function loadProjectViews(
  db: Db, actor: Actor | null, projects: readonly ProjectRow[], options: ProjectViewOptions = {},
): Promise<ProjectView[]> {
  if (projects.length === 0) return []
  const ids = projects.map((p) => p.id)
  const namespaceIds = [...new Set(projects.map((p) => p.namespace_id))]
  const [namespaces, access, links, attributes] = await Promise.all([
    db.selectFrom('namespaces').selectAll().where('id', 'in', namespaceIds).execute(),
    actor === null ? null : projectAccessFor(db, actor.user.id, ids),
    db.selectFrom('project_group_links as l').innerJoin('namespaces as g', 'g.id', 'l.group_id')
      .select(['l.project_id', 'l.group_id', 'g.name as group_name', 'l.group_access', 'l.expires_at'])
      .where('l.project_id', 'in', ids).orderBy('l.id').execute(),
    options.customAttributes ? customAttributesOf(db, 'project', ids) : null,
  ])
  const namespaceById = new Map<number, NamespaceRow>(namespaces.map((n) => [n.id, n]))
  const ownerIds = [...new Set(namespaces.flatMap((n) => (n.kind === 'user' && n.owner_id !== null ? [n.owner_id] : [])))]
  const mayReadStatistics = (id: number) => actor !== null && (actor.user.admin === 1 || (access?.get(id)?.level ?? 0) >= REPORTER)
  const statisticsIds = options.statistics ? ids.filter(mayReadStatistics) : []
  const [owners, statistics] = await Promise.all([
    ownerIds.length ? db.selectFrom('users').selectAll().where('id', 'in', ownerIds).execute() : [],
    statisticsIds.length ? db.selectFrom('project_statistics').selectAll().where('project_id', 'in', statisticsIds).execute() : [],
  ])
  const ownerById = new Map<number, UserRow>(owners.map((u) => [u.id, u]))
  const statisticsById = new Map(statistics.map((s) => [s.project_id, s]))
  const sharesById = new Map<number, SharedWithGroupEntity[]>()
  for (const link of links) {
    const shares = sharesById.get(link.project_id) ?? []
    shares.push({ group_id: link.group_id, group_name: link.group_name, group_access_level: link.group_access, expires_at: link.expires_at })
    sharesById.set(link.project_id, shares)
  }
  return projects.map((project) => {
    const namespace = namespaceById.get(project.namespace_id)
    if (namespace === undefined) throw new Error(`project ${project.id} has no namespace`)
    return {
      project,
      namespace,
      owner: namespace.kind === 'user' && namespace.owner_id !== null ? ownerById.get(namespace.owner_id) ?? null : null,
      access: actor === null ? null : access?.get(project.id) ?? { projectAccess: null, groupAccess: null, level: 0 },
      sharedWithGroups: sharesById.get(project.id) ?? [],
      statistics: statisticsById.get(project.id) ?? null,
      customAttributes: attributes === null ? null : attributes.get(project.id) ?? ([] as CustomAttributeEntity[]),
    }
  })
}

export async function loadProjectView(db: Db, actor: Actor | null, project: ProjectRow, options: ProjectViewOptions = {}): Promise<ProjectView> {
  const [view] = await loadProjectViews(db, actor, [project], options)
  if (view === undefined) throw new Error('unreachable: one project in, one view out')
  return view
}
