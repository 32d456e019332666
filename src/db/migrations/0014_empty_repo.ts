// projects.empty_repo (the project's `empty_repo`: no branch in its repository), kept by the push
// path and forks so that presenting a project never reads its repository. A repository gains its
// first branch only through a push (which records a `pushed` event) or a fork (whose statistics
// job counts its commits), so the projects with neither stay empty; numbered after main's 0012.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('empty_repo', 'integer', (c) => c.notNull().defaultTo(1)).execute()
  await sql`update projects set empty_repo = 0
    where exists (select 1 from events e where e.project_id = projects.id and e.action = 'pushed')
       or exists (select 1 from project_statistics s where s.project_id = projects.id and s.commit_count > 0)`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('projects').dropColumn('empty_repo').execute()
}
