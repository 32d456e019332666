// Forks and READMEs: projects.forks_count kept by triggers (like the counters of 0001, so no write
// path — fork, admin fork relation, project, group or user deletion — can forget it and no read
// ever counts), and projects.readme_path, the README the default branch shows (readme_url), kept
// by the statistics job so that presenting a project never reads its repository.
import { sql, type Kysely } from 'kysely'
import { isPostgres } from './helpers.js'

const bump = (delta: '+' | '-', parent: string) => `update projects set forks_count = forks_count ${delta} 1 where id = ${parent};`

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('readme_path', 'text').execute()
  await sql`update projects set forks_count = (select count(*) from projects f where f.forked_from_project_id = projects.id)`.execute(db)
  if (isPostgres(db)) {
    await sql.raw(`create function ingot_count_forks() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') and old.forked_from_project_id is not null then ${bump('-', 'old.forked_from_project_id')} end if;
        if tg_op in ('INSERT', 'UPDATE') and new.forked_from_project_id is not null then ${bump('+', 'new.forked_from_project_id')} end if;
        return null;
      end $$`).execute(db)
    await sql.raw(`create trigger projects_forks_count after insert or delete or update of forked_from_project_id on projects
      for each row execute function ingot_count_forks()`).execute(db)
    return
  }
  await sql.raw(`create trigger projects_forks_count_insert after insert on projects when new.forked_from_project_id is not null
    begin ${bump('+', 'new.forked_from_project_id')} end`).execute(db)
  await sql.raw(`create trigger projects_forks_count_delete after delete on projects when old.forked_from_project_id is not null
    begin ${bump('-', 'old.forked_from_project_id')} end`).execute(db)
  await sql.raw(`create trigger projects_forks_count_update after update of forked_from_project_id on projects
    when old.forked_from_project_id is not new.forked_from_project_id
    begin
      update projects set forks_count = forks_count - 1 where id = old.forked_from_project_id;
      update projects set forks_count = forks_count + 1 where id = new.forked_from_project_id;
    end`).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw('drop trigger projects_forks_count on projects').execute(db)
    await sql.raw('drop function ingot_count_forks()').execute(db)
  } else {
    for (const trigger of ['insert', 'delete', 'update']) await sql.raw(`drop trigger projects_forks_count_${trigger}`).execute(db)
  }
  await db.schema.alterTable('projects').dropColumn('readme_path').execute()
}
