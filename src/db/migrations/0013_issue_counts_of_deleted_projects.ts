// The issue count triggers (0004) wrote a count row for the project of every deleted issue. When a
// deletion of projects cascades to their issues after their count rows, that row named a project
// being deleted and the deletion failed on its foreign key (a group holding projects with issues
// could not be deleted). Counts are now kept only for projects that still exist.
import { sql, type Kysely } from 'kysely'
import { isPostgres } from './helpers.js'

function countChange(row: 'new' | 'old', delta: '+' | '-'): string {
  return `
    insert into issue_counts (project_id, state, confidential, value)
      select ${row}.project_id, ${row}.state, ${row}.confidential, ${delta}1
      where exists (select 1 from projects where id = ${row}.project_id)
      on conflict (project_id, state, confidential) do update set value = issue_counts.value ${delta} 1;
    update projects set open_issues_count = open_issues_count ${delta} (case when ${row}.state = 'opened' then 1 else 0 end)
      where id = ${row}.project_id;`
}

/** The 0004 statements, for down(). */
function previousCountChange(row: 'new' | 'old', delta: '+' | '-'): string {
  return `
    insert into issue_counts (project_id, state, confidential, value) values (${row}.project_id, ${row}.state, ${row}.confidential, ${delta}1)
      on conflict (project_id, state, confidential) do update set value = issue_counts.value ${delta} 1;
    update projects set open_issues_count = open_issues_count ${delta} (case when ${row}.state = 'opened' then 1 else 0 end)
      where id = ${row}.project_id;`
}

async function createTriggers(db: Kysely<unknown>, change: typeof countChange): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`create or replace function ingot_count_issues() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then ${change('old', '-')} end if;
        if tg_op in ('INSERT', 'UPDATE') then ${change('new', '+')} end if;
        return null;
      end $$`).execute(db)
    return
  }
  for (const name of ['issues_counts_insert', 'issues_counts_delete', 'issues_counts_update']) await sql.raw(`drop trigger ${name}`).execute(db)
  await sql.raw(`create trigger issues_counts_insert after insert on issues begin ${change('new', '+')} end`).execute(db)
  await sql.raw(`create trigger issues_counts_delete after delete on issues begin ${change('old', '-')} end`).execute(db)
  await sql.raw(`create trigger issues_counts_update after update of project_id, state, confidential on issues
    when old.project_id <> new.project_id or old.state <> new.state or old.confidential <> new.confidential
    begin ${change('old', '-')} ${change('new', '+')} end`).execute(db)
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await createTriggers(db, countChange)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await createTriggers(db, previousCountChange)
}
