// A project and its namespace by numeric id or full path: the lookup every project route starts
// with, served from the read cache (see db/read-cache.ts).
import type { Db } from '../db/index.js'
import type { NamespaceRow, ProjectRow } from '../db/schema.js'
import { fitsIntegerColumn } from '../db/values.js'
import { readCacheOf } from '../db/read-cache.js'

export interface ProjectAndNamespace {
  project: ProjectRow
  namespace: NamespaceRow
}

const NUMERIC_ID = /^\d+$/

export async function findProjectByIdOrPath(db: Db, idOrPath: string): Promise<ProjectAndNamespace | null> {
  const byId = NUMERIC_ID.test(idOrPath)
  const key = byId ? idOrPath : `/${idOrPath.toLowerCase()}`
  const cache = readCacheOf<ProjectAndNamespace | null>(db, 'projects', { tables: ['projects', 'namespaces'], maxWeight: 10_000 })
  const load = () => (byId ? byIdQuery(db, Number(idOrPath)) : byPathQuery(db, idOrPath))
  return cache === null ? load() : cache.get(key, load)
}

async function byIdQuery(db: Db, id: number): Promise<ProjectAndNamespace | null> {
  if (!fitsIntegerColumn(id)) return null
  const project = await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst()
  return project === undefined ? null : withNamespace(db, project)
}

async function byPathQuery(db: Db, fullPath: string): Promise<ProjectAndNamespace | null> {
  const slash = fullPath.lastIndexOf('/')
  if (slash <= 0) return null
  const project = await db.selectFrom('projects').selectAll('projects')
    .innerJoin('namespaces', 'namespaces.id', 'projects.namespace_id')
    .where('namespaces.full_path_lower', '=', fullPath.slice(0, slash).toLowerCase())
    .where('projects.path_lower', '=', fullPath.slice(slash + 1).toLowerCase())
    .executeTakeFirst()
  return project === undefined ? null : withNamespace(db, project)
}

async function withNamespace(db: Db, project: ProjectRow): Promise<ProjectAndNamespace> {
  const namespace = await db.selectFrom('namespaces').selectAll().where('id', '=', project.namespace_id).executeTakeFirstOrThrow()
  return { project, namespace }
}
