// Bulk issues and merge requests for the collaboration benchmarks, generated inside the database
// in one statement per kind: a million issues would take an hour through the API. Every issue
// gets one label of LABEL_COUNT (in turn), every third is closed, titles carry a searchable token
// (`tok<n mod 1000>`, so each token names a thousand issues) and creation/update times are spread
// so that the two orders differ. The counts kept by triggers are recomputed after the bulk insert.
import { sql } from 'kysely'
import type { Db } from '../src/db/index.js'
import { isPostgres } from '../src/db/dialect.js'

export const LABEL_COUNT = 100
const HOUR = 3_600_000

/** Inserts `count` issues and `mergeRequests` merge requests into the project, authored by `authorId`. */
export async function seedIssues(db: Db, projectId: number, authorId: number, count: number, mergeRequests = 0): Promise<void> {
  const now = Date.now()
  const start = now - count * HOUR / 10
  await db.insertInto('labels').values(Array.from({ length: LABEL_COUNT }, (_, n) => ({
    project_id: projectId, group_id: null, title: `label-${n}`, color: '#428BCA', description: null, priority: null, created_at: now, updated_at: now,
  }))).execute()
  const firstLabel = Number((await db.selectFrom('labels').select((eb) => eb.fn.min('id').as('id'))
    .where('project_id', '=', projectId).executeTakeFirstOrThrow()).id)
  const postgres = isPostgres(db)
  // Typed as bigint so that PostgreSQL does the arithmetic on epoch milliseconds in 64 bits.
  const startAt = sql`cast(${start} as bigint)`
  const tick = sql`cast(${HOUR / 10} as bigint)`
  // PostgreSQL: triggers off for the bulk insert (one row-level trigger per issue would rewrite the
  // project row a million times in one transaction); the counts are recomputed below. SQLite's
  // triggers stay on: they are cheap there and keep the search index, which has no other writer.
  await db.transaction().execute(async (trx) => {
    if (postgres) await sql`set local session_replication_role = replica`.execute(trx)
    const numbers = postgres
      ? sql`select cast(i as bigint) as i from generate_series(1, ${count}) as i`
      : sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count}) select i from n`
    await sql`insert into issues (project_id, iid, author_id, title, description, state, confidential, closed_at,
        created_at, updated_at)
      select ${projectId}, i, ${authorId},
        'Issue ' || i || ' about tok' || (i % 1000) || ' in the widget',
        'Steps to reproduce number ' || i || '. Expected the frobnicator to spin.',
        case when i % 3 = 0 then 'closed' else 'opened' end,
        case when i % 50 = 0 then 1 else 0 end,
        case when i % 3 = 0 then ${startAt} + i * ${tick} + ${HOUR} else null end,
        ${startAt} + i * ${tick},
        ${startAt} + ((i * 7919) % ${count}) * ${tick}
      from (${numbers}) numbers`.execute(trx)
    await sql`insert into label_links (label_id, target_type, target_id)
      select ${firstLabel} + (iid % ${LABEL_COUNT}), 'Issue', id from issues where project_id = ${projectId}`.execute(trx)
    if (mergeRequests > 0) {
      const mrNumbers = postgres
        ? sql`select i from generate_series(1, ${mergeRequests}) as i`
        : sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${mergeRequests}) select i from n`
      await sql`insert into merge_requests (target_project_id, source_project_id, iid, source_branch, target_branch, author_id,
          title, description, state, created_at, updated_at)
        select ${projectId}, ${projectId}, i, 'feature-' || i, 'main', ${authorId}, 'Merge request ' || i, 'Changes ' || i,
          case when i % 4 = 0 then 'merged' else 'opened' end, ${startAt} + i * ${tick}, ${startAt} + i * ${tick}
        from (${mrNumbers}) numbers`.execute(trx)
    }
    await sql`insert into internal_ids (owner_type, owner_id, usage, last_value) values
      ('project', ${projectId}, 'issues', ${count}), ('project', ${projectId}, 'merge_requests', ${mergeRequests})`.execute(trx)
    if (postgres) {
      await sql`delete from issue_counts where project_id = ${projectId}`.execute(trx)
      await sql`insert into issue_counts (project_id, state, confidential, value)
        select project_id, state, confidential, count(*) from issues where project_id = ${projectId}
        group by project_id, state, confidential`.execute(trx)
      await sql`update projects set open_issues_count = (select count(*) from issues where project_id = ${projectId} and state = 'opened')
        where id = ${projectId}`.execute(trx)
    }
  })
  await sql`analyze`.execute(db)
}

/** Gives each issue of the project `perIssue` comments by `authorId`, in one statement, and their count. */
export async function seedIssueNotes(db: Db, projectId: number, authorId: number, perIssue: number): Promise<void> {
  const postgres = isPostgres(db)
  const numbers = postgres
    ? sql`select i from generate_series(1, ${perIssue}) as i`
    : sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${perIssue}) select i from n`
  // Each note is its own discussion, whose id is 40 hex digits made of the issue's id and the note's number.
  const discussion = postgres ? sql`lpad(to_hex(issues.id * 100 + numbers.i), 40, '0')` : sql`printf('%040x', issues.id * 100 + numbers.i)`
  await db.transaction().execute(async (trx) => {
    await sql`insert into notes (project_id, author_id, noteable_type, noteable_id, body, system, discussion_id, created_at, updated_at)
      select ${projectId}, ${authorId}, 'Issue', issues.id, 'Comment ' || numbers.i || ' on issue ' || issues.iid || ': looked at the frobnicator again.',
        0, ${discussion}, issues.created_at + numbers.i * 60000, issues.created_at + numbers.i * 60000
      from issues cross join (${numbers}) numbers where issues.project_id = ${projectId}`.execute(trx)
    await sql`update issues set user_notes_count = ${perIssue} where project_id = ${projectId}`.execute(trx)
  })
  await sql`analyze`.execute(db)
}
