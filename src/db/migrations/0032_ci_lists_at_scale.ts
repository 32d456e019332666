// CI lists of a large project (10,000 pipelines, 100,000 jobs). ci_pipelines (project_id, id): a
// project's pipelines newest first read a page from the index; without it SQLite took the iid index
// (0029) and sorted every pipeline of the project for each page.
// ci_job_counts(project_id) → value: the X-Total of a project's unfiltered jobs list without counting
// a hundred thousand rows per page. Kept by triggers on insert and delete only (a job's kind and
// project never change, and its status is not counted here), so moving a job costs nothing; a job
// removed by a project's deletion finds no row left to update.
import { sql, type Kysely } from 'kysely'
import { isPostgres } from './helpers.js'

const ADD = `
  insert into ci_job_counts (project_id, value)
    select new.project_id, 1 where exists (select 1 from projects where id = new.project_id)
    on conflict (project_id) do update set value = ci_job_counts.value + 1;`
const REMOVE = `update ci_job_counts set value = value - 1 where project_id = old.project_id;`

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('ci_pipelines_project').on('ci_pipelines').columns(['project_id', 'id']).execute()
  await db.schema.createTable('ci_job_counts')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute()
  await sql`insert into ci_job_counts (project_id, value)
      select project_id, count(*) from ci_builds where kind = 'ci' group by project_id`.execute(db)
  if (isPostgres(db)) {
    await sql.raw(`create function ingot_count_ci_jobs() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' then ${ADD} else ${REMOVE} end if;
        return null;
      end $$`).execute(db)
    await sql.raw(`create trigger ci_builds_counts_insert after insert on ci_builds
      for each row when (new.kind = 'ci') execute function ingot_count_ci_jobs()`).execute(db)
    await sql.raw(`create trigger ci_builds_counts_delete after delete on ci_builds
      for each row when (old.kind = 'ci') execute function ingot_count_ci_jobs()`).execute(db)
    return
  }
  await sql.raw(`create trigger ci_builds_counts_insert after insert on ci_builds when new.kind = 'ci' begin ${ADD} end`).execute(db)
  await sql.raw(`create trigger ci_builds_counts_delete after delete on ci_builds when old.kind = 'ci' begin ${REMOVE} end`).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`drop trigger ci_builds_counts_insert on ci_builds`.execute(db)
    await sql`drop trigger ci_builds_counts_delete on ci_builds`.execute(db)
    await sql`drop function ingot_count_ci_jobs()`.execute(db)
  } else {
    await sql`drop trigger ci_builds_counts_insert`.execute(db)
    await sql`drop trigger ci_builds_counts_delete`.execute(db)
  }
  await db.schema.dropTable('ci_job_counts').execute()
  await db.schema.dropIndex('ci_pipelines_project').execute()
}
