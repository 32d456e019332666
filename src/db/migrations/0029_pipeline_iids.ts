// Pipelines numbered per project (the original's ci_pipelines.iid, CI_PIPELINE_IID since 11.0), from
// internal_ids like issues and deployments. Existing pipelines are numbered in the order they were
// made, and each project's sequence continues after them.
import { sql, type Kysely } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ci_pipelines').addColumn('iid', 'integer').execute()
  await sql`update ci_pipelines set iid = numbered.n
      from (select id, row_number() over (partition by project_id order by id) as n from ci_pipelines) numbered
      where ci_pipelines.id = numbered.id`.execute(db)
  await sql`insert into internal_ids (owner_type, owner_id, usage, last_value)
      select 'project', project_id, 'ci_pipelines', max(iid) from ci_pipelines group by project_id`.execute(db)
  await db.schema.createIndex('ci_pipelines_project_iid').unique().on('ci_pipelines').columns(['project_id', 'iid']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('ci_pipelines_project_iid').execute()
  await sql`delete from internal_ids where usage = 'ci_pipelines'`.execute(db)
  await db.schema.alterTable('ci_pipelines').dropColumn('iid').execute()
}
