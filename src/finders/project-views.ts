// Loads everything the project entities show for a page of projects in a fixed number of queries,
// whatever the page size: namespaces, owners, the caller's access, shares, statistics, attributes,
// and the projects forks were forked from.
import type { Db } from '../db/index.js'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import { readCacheOf } from '../db/read-cache.js'
import type { Actor } from '../auth/actor.js'
import type { ForkSourceView, ProjectView, SharedWithGroupEntity } from '../entities/project.js'
import type { CustomAttributeEntity } from '../entities/common.js'
import { REPORTER } from '../policies/access-levels.js'
import { canReadProject } from '../policies/project-policy.js'
import { NO_PROJECT_ACCESS, projectAccessFor, type ProjectAccess } from './access.js'
import { customAttributesOf } from './custom-attributes.js'
import { namespacesById, projectsById, usersById } from './rows.js'

export interface ProjectViewOptions {
  /** statistics=true: loaded for the projects where the caller is Reporter or more (or admin). */
  statistics?: boolean
  /** with_custom_attributes=true from an admin. */
  customAttributes?: boolean
}

/** What the caller has loaded already (loadProject does), so it is not asked for again. */
export interface KnownProjectData {
  namespace?: NamespaceRow
  access?: ProjectAccess
}

export async function loadProjectViews(
  db: Db, actor: Actor | null, projects: readonly ProjectRow[], options: ProjectViewOptions = {}, known: KnownProjectData = {},
): Promise<ProjectView[]> {
  if (projects.length === 0) return []
  const ids = projects.map((p) => p.id)
  const [namespaces, access, shares, attributes, forkSources] = await Promise.all([
    known.namespace !== undefined
      ? new Map([[known.namespace.id, known.namespace]])
      : namespacesById(db, projects.map((p) => p.namespace_id)),
    actor === null ? null
      : known.access !== undefined ? new Map(ids.map((id) => [id, known.access as ProjectAccess]))
      : projectAccessFor(db, actor.user.id, ids),
    sharesOf(db, ids),
    options.customAttributes ? customAttributesOf(db, 'project', ids) : null,
    forkSourcesOf(db, actor, projects),
  ])
  const ownerIds = [...namespaces.values()].flatMap((n) => (n.kind === 'user' && n.owner_id !== null ? [n.owner_id] : []))
  const mayReadStatistics = (id: number) => actor !== null && (actor.user.admin === 1 || (access?.get(id)?.level ?? 0) >= REPORTER)
  const statisticsIds = options.statistics ? ids.filter(mayReadStatistics) : []
  const [owners, statistics] = await Promise.all([
    usersById(db, ownerIds),
    statisticsIds.length ? db.selectFrom('project_statistics').selectAll().where('project_id', 'in', statisticsIds).execute() : [],
  ])
  const statisticsById = new Map(statistics.map((s) => [s.project_id, s]))
  return projects.map((project) => {
    const namespace = namespaces.get(project.namespace_id)
    if (namespace === undefined) throw new Error(`project ${project.id} has no namespace`)
    return {
      project,
      namespace,
      owner: namespace.kind === 'user' && namespace.owner_id !== null ? owners.get(namespace.owner_id) ?? null : null,
      access: actor === null ? null : access?.get(project.id) ?? NO_PROJECT_ACCESS,
      sharedWithGroups: shares.get(project.id) ?? [],
      statistics: statisticsById.get(project.id) ?? null,
      customAttributes: attributes === null ? null : attributes.get(project.id) ?? ([] as CustomAttributeEntity[]),
      forkedFrom: project.forked_from_project_id === null ? null : forkSources.get(project.forked_from_project_id) ?? null,
    }
  })
}

/** The projects the forks among `projects` were forked from, those the caller may see, by id. */
async function forkSourcesOf(db: Db, actor: Actor | null, projects: readonly ProjectRow[]): Promise<Map<number, ForkSourceView>> {
  const sourceIds = [...new Set(projects.flatMap((p) => (p.forked_from_project_id === null ? [] : [p.forked_from_project_id])))]
  if (sourceIds.length === 0) return new Map()
  const [sources, access] = await Promise.all([
    projectsById(db, sourceIds),
    actor === null ? null : projectAccessFor(db, actor.user.id, sourceIds),
  ])
  const readable = [...sources.values()].filter((source) => canReadProject(actor, source, access?.get(source.id) ?? NO_PROJECT_ACCESS))
  const namespaces = await namespacesById(db, readable.map((source) => source.namespace_id))
  return new Map(readable.flatMap((project) => {
    const namespace = namespaces.get(project.namespace_id)
    return namespace === undefined ? [] : [[project.id, { project, namespace }] as const]
  }))
}

/** The groups each project is shared with, through the read cache. */
async function sharesOf(db: Db, projectIds: readonly number[]): Promise<Map<number, SharedWithGroupEntity[]>> {
  const load = async (ids: readonly number[]) => {
    const links = await db.selectFrom('project_group_links as l').innerJoin('namespaces as g', 'g.id', 'l.group_id')
      .select(['l.project_id', 'l.group_id', 'g.name as group_name', 'l.group_access', 'l.expires_at'])
      .where('l.project_id', 'in', [...ids]).orderBy('l.id').execute()
    const byProject = new Map<number, SharedWithGroupEntity[]>(ids.map((id) => [id, []]))
    for (const link of links) {
      byProject.get(link.project_id)?.push({
        group_id: link.group_id, group_name: link.group_name, group_access_level: link.group_access, expires_at: link.expires_at,
      })
    }
    return byProject
  }
  const cache = readCacheOf<SharedWithGroupEntity[]>(db, 'project-shares', { tables: ['project_group_links', 'namespaces'], maxWeight: 20_000 })
  if (cache === null) return load(projectIds)
  const found = await cache.getMany(projectIds.map(String), async (missing) => {
    const loaded = await load(missing.map(Number))
    return new Map([...loaded].map(([id, list]) => [String(id), list]))
  })
  return new Map([...found].map(([id, list]) => [Number(id), list]))
}

/** One project's view; pass what loadProject found so it is not loaded again. */
export async function loadProjectView(
  db: Db, actor: Actor | null, project: ProjectRow, options: ProjectViewOptions = {}, known: KnownProjectData = {},
): Promise<ProjectView> {
  const [view] = await loadProjectViews(db, actor, [project], options, known)
  if (view === undefined) throw new Error('unreachable: one project in, one view out')
  return view
}
