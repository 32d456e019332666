// Bulk fixtures for benchmarks: thousands of users (each with a personal namespace and one
// project) written straight into the database in large transactions — the services would spend
// minutes hashing passwords and initialising repositories that the measured reads never touch.
import type { Db } from '../src/db/index.js'
import { tokenDigest } from '../src/auth/secrets.js'
import { MAINTAINER } from '../src/policies/access-levels.js'

const BATCH = 500
const VISIBILITY_CYCLE = [20, 10, 0] as const

export interface SeedResult {
  /** A regular (non-admin) user who belongs to `memberOf` projects, and their token. */
  reader: { id: number; token: string }
  /** A project the reader can see: one they are a member of. */
  projectId: number
}

/** `count` users with one project each (public, internal, private in turn). */
export async function seedUsersAndProjects(db: Db, count: number, memberOf = 50): Promise<SeedResult> {
  const start = Date.now() - count * 1000
  const firstUser = await nextId(db, 'users')
  for (let offset = 0; offset < count; offset += BATCH) {
    const size = Math.min(BATCH, count - offset)
    await db.transaction().execute(async (trx) => {
      const rows = Array.from({ length: size }, (_, i) => {
        const n = offset + i
        const username = `bench${n}`
        return {
          username, username_lower: username, email: `${username}@bench.test`, email_lower: `${username}@bench.test`,
          name: `Bench User ${n}`, password_digest: null, password_expires_at: null, projects_limit: 100000,
          created_at: start + n * 1000, updated_at: start + n * 1000,
        }
      })
      const users = await trx.insertInto('users').values(rows).returning(['id', 'username', 'name', 'created_at']).execute()
      const namespaces = await trx.insertInto('namespaces').values(users.map((u) => ({
        kind: 'user' as const, name: u.username, path: u.username, full_path: u.username, full_path_lower: u.username,
        full_name: u.name, parent_id: null, owner_id: u.id, visibility_level: 0 as const, created_at: u.created_at, updated_at: u.created_at,
      }))).returning(['id', 'owner_id', 'created_at']).execute()
      const projects = await trx.insertInto('projects').values(namespaces.map((ns, i) => ({
        namespace_id: ns.id, name: `Project ${offset + i}`, path: `project-${offset + i}`, path_lower: `project-${offset + i}`,
        description: `Benchmark project number ${offset + i}`, visibility_level: VISIBILITY_CYCLE[(offset + i) % 3] ?? 0,
        creator_id: ns.owner_id ?? 0, runners_token: `bench-runners-${offset + i}`,
        created_at: ns.created_at, updated_at: ns.created_at, last_activity_at: ns.created_at,
      }))).returning(['id', 'creator_id', 'created_at']).execute()
      await trx.insertInto('project_statistics').values(projects.map((p) => ({ project_id: p.id }))).execute()
      await trx.insertInto('members').values(projects.map((p) => ({
        source_type: 'project' as const, source_id: p.id, user_id: p.creator_id, access_level: MAINTAINER,
        expires_at: null, created_by_id: p.creator_id, created_at: p.created_at, updated_at: p.created_at,
      }))).execute()
    })
  }
  const reader = { id: firstUser, token: `bench-reader-token-${firstUser}` }
  await db.insertInto('access_tokens').values({
    user_id: reader.id, kind: 'personal', name: 'bench', token_digest: tokenDigest(reader.token),
    scopes: JSON.stringify(['api', 'read_user']), expires_at: null, created_at: Date.now(),
  }).execute()
  // The reader joins the private projects of the next `memberOf` users.
  const privateProjects = await db.selectFrom('projects').select('id').where('visibility_level', '=', 0)
    .orderBy('id').limit(memberOf).execute()
  if (privateProjects.length > 0) {
    await db.insertInto('members').values(privateProjects.map((p) => ({
      source_type: 'project' as const, source_id: p.id, user_id: reader.id, access_level: 30,
      expires_at: null, created_by_id: reader.id, created_at: Date.now(), updated_at: Date.now(),
    }))).execute()
  }
  return { reader, projectId: privateProjects[0]?.id ?? 1 }
}

async function nextId(db: Db, table: 'users'): Promise<number> {
  const row = await db.selectFrom(table).select((eb) => eb.fn.max('id').as('max')).executeTakeFirst()
  return Number(row?.max ?? 0) + 1
}
