// Collaboration: issues and merge requests (with their labels, assignees and per-project numbers),
// milestones, labels, boards, snippets, award emoji, subscriptions, and notes grown into
// discussions. Counts that lists and entities show are kept by triggers, so that no write path can
// forget them: projects.open_issues_count and issue_counts (the X-Total of unfiltered issue lists).
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely'
import { isPostgres, withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()
const flagOff = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0)
const zero = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0)
const projectRef = (c: ColumnDefinitionBuilder) => c.notNull().references('projects.id').onDelete('cascade')
const optionalProjectRef = (c: ColumnDefinitionBuilder) => c.references('projects.id').onDelete('cascade')
const optionalGroupRef = (c: ColumnDefinitionBuilder) => c.references('namespaces.id').onDelete('cascade')
const userRef = (c: ColumnDefinitionBuilder) => c.notNull().references('users.id').onDelete('cascade')
const optionalUserRef = (c: ColumnDefinitionBuilder) => c.references('users.id').onDelete('set null')

export async function up(db: Kysely<unknown>): Promise<void> {
  // Per-project (or per-group, for group milestones) iid sequences, bumped inside the creating
  // transaction by an upsert, so that concurrent creators never share a number.
  await db.schema.createTable('internal_ids')
    .addColumn('owner_type', 'text', notNull)
    .addColumn('owner_id', 'integer', notNull)
    .addColumn('usage', 'text', notNull)
    .addColumn('last_value', 'integer', notNull)
    .addPrimaryKeyConstraint('internal_ids_pk', ['owner_type', 'owner_id', 'usage'])
    .execute()

  await withId(db, db.schema.createTable('milestones'))
    .addColumn('project_id', 'integer', optionalProjectRef)
    .addColumn('group_id', 'integer', optionalGroupRef)
    .addColumn('iid', 'integer', notNull)
    .addColumn('title', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('due_date', 'text')
    .addColumn('start_date', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('milestones_project_title', ['project_id', 'title'])
    .addUniqueConstraint('milestones_group_title', ['group_id', 'title'])
    .addUniqueConstraint('milestones_project_iid', ['project_id', 'iid'])
    .addUniqueConstraint('milestones_group_iid', ['group_id', 'iid'])
    .execute()
  await db.schema.createIndex('milestones_title').on('milestones').column('title').execute()

  await withId(db, db.schema.createTable('labels'))
    .addColumn('project_id', 'integer', optionalProjectRef)
    .addColumn('group_id', 'integer', optionalGroupRef)
    .addColumn('title', 'text', notNull)
    .addColumn('color', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('priority', 'integer')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('labels_project_title', ['project_id', 'title'])
    .addUniqueConstraint('labels_group_title', ['group_id', 'title'])
    .execute()
  // Issue and merge request lists filter by label title across projects.
  await db.schema.createIndex('labels_title').on('labels').column('title').execute()

  await withId(db, db.schema.createTable('issues'))
    .addColumn('project_id', 'integer', projectRef)
    .addColumn('iid', 'integer', notNull)
    .addColumn('author_id', 'integer', userRef)
    .addColumn('title', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('opened'))
    .addColumn('confidential', 'integer', flagOff)
    .addColumn('discussion_locked', 'integer', flagOff)
    .addColumn('milestone_id', 'integer', (c) => c.references('milestones.id').onDelete('set null'))
    .addColumn('due_date', 'text')
    .addColumn('closed_at', 'bigint')
    .addColumn('closed_by_id', 'integer', optionalUserRef)
    .addColumn('moved_to_id', 'integer', (c) => c.references('issues.id').onDelete('set null'))
    .addColumn('time_estimate', 'integer', zero)
    .addColumn('total_time_spent', 'integer', zero)
    .addColumn('user_notes_count', 'integer', zero)
    .addColumn('upvotes', 'integer', zero)
    .addColumn('downvotes', 'integer', zero)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('issues_project_iid', ['project_id', 'iid'])
    .execute()
  // Every order of the lists, whole and per state, with id as the tie-breaker that keeps pages stable.
  for (const column of ['created_at', 'updated_at']) {
    await db.schema.createIndex(`issues_project_${column}`).on('issues').columns(['project_id', column, 'id']).execute()
    await db.schema.createIndex(`issues_project_state_${column}`).on('issues').columns(['project_id', 'state', column, 'id']).execute()
  }
  // Lists of many projects (GET /issues, group lists) walk the order across projects.
  for (const column of ['created_at', 'updated_at']) {
    await db.schema.createIndex(`issues_${column}`).on('issues').columns([column, 'id']).execute()
  }
  await db.schema.createIndex('issues_author').on('issues').columns(['author_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('issues_milestone').on('issues').columns(['milestone_id', 'id']).execute()
  await db.schema.createIndex('issues_confidential').on('issues').columns(['project_id', 'confidential', 'id']).execute()
  // The confidential issues a caller wrote, which they see where they are not Reporter (list totals).
  await db.schema.createIndex('issues_confidential_author').on('issues').column('author_id').where(sql.ref('confidential'), '=', 1).execute()

  await db.schema.createTable('issue_assignees')
    .addColumn('issue_id', 'integer', (c) => c.notNull().references('issues.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', userRef)
    .addPrimaryKeyConstraint('issue_assignees_pk', ['issue_id', 'user_id'])
    .execute()
  await db.schema.createIndex('issue_assignees_user').on('issue_assignees').columns(['user_id', 'issue_id']).execute()

  await withId(db, db.schema.createTable('merge_requests'))
    .addColumn('target_project_id', 'integer', projectRef)
    .addColumn('iid', 'integer', notNull)
    .addColumn('source_project_id', 'integer', optionalProjectRef)
    .addColumn('source_branch', 'text', notNull)
    .addColumn('target_branch', 'text', notNull)
    .addColumn('author_id', 'integer', userRef)
    .addColumn('assignee_id', 'integer', optionalUserRef)
    .addColumn('title', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('opened'))
    .addColumn('milestone_id', 'integer', (c) => c.references('milestones.id').onDelete('set null'))
    /** 'unchecked' | 'can_be_merged' | 'cannot_be_merged', refreshed when either branch moves. */
    .addColumn('merge_status', 'text', (c) => c.notNull().defaultTo('unchecked'))
    /** The source branch head the merge request shows (and refs/merge-requests/:iid/head names). */
    .addColumn('sha', 'text')
    /** The target branch head merge_status was computed against. */
    .addColumn('target_sha', 'text')
    .addColumn('merge_commit_sha', 'text')
    .addColumn('merged_by_id', 'integer', optionalUserRef)
    .addColumn('merged_at', 'bigint')
    .addColumn('closed_by_id', 'integer', optionalUserRef)
    .addColumn('closed_at', 'bigint')
    .addColumn('discussion_locked', 'integer', flagOff)
    .addColumn('should_remove_source_branch', 'integer')
    .addColumn('force_remove_source_branch', 'integer', flagOff)
    .addColumn('allow_collaboration', 'integer', flagOff)
    .addColumn('squash', 'integer', flagOff)
    .addColumn('merge_when_pipeline_succeeds', 'integer', flagOff)
    .addColumn('time_estimate', 'integer', zero)
    .addColumn('total_time_spent', 'integer', zero)
    .addColumn('user_notes_count', 'integer', zero)
    .addColumn('upvotes', 'integer', zero)
    .addColumn('downvotes', 'integer', zero)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('merge_requests_project_iid', ['target_project_id', 'iid'])
    .execute()
  for (const column of ['created_at', 'updated_at']) {
    await db.schema.createIndex(`merge_requests_project_${column}`).on('merge_requests').columns(['target_project_id', column, 'id']).execute()
  }
  await db.schema.createIndex('merge_requests_author').on('merge_requests').columns(['author_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('merge_requests_assignee').on('merge_requests').columns(['assignee_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('merge_requests_milestone').on('merge_requests').columns(['milestone_id', 'id']).execute()
  // The push path finds the open merge requests a pushed branch is the source or target of.
  await db.schema.createIndex('merge_requests_source').on('merge_requests').columns(['source_project_id', 'source_branch', 'state']).execute()
  await db.schema.createIndex('merge_requests_target').on('merge_requests').columns(['target_project_id', 'target_branch', 'state']).execute()

  await db.schema.createTable('label_links')
    .addColumn('label_id', 'integer', (c) => c.notNull().references('labels.id').onDelete('cascade'))
    /** 'Issue' | 'MergeRequest' */
    .addColumn('target_type', 'text', notNull)
    .addColumn('target_id', 'integer', notNull)
    .addPrimaryKeyConstraint('label_links_pk', ['target_type', 'target_id', 'label_id'])
    .execute()
  await db.schema.createIndex('label_links_label').on('label_links').columns(['label_id', 'target_type', 'target_id']).execute()

  await withId(db, db.schema.createTable('snippets'))
    .addColumn('project_id', 'integer', optionalProjectRef)
    .addColumn('author_id', 'integer', userRef)
    .addColumn('title', 'text', notNull)
    .addColumn('file_name', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('content', 'text', notNull)
    .addColumn('visibility_level', 'integer', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('snippets_project').on('snippets').columns(['project_id', 'id']).execute()
  await db.schema.createIndex('snippets_author').on('snippets').columns(['author_id', 'id']).execute()

  await withId(db, db.schema.createTable('award_emoji'))
    .addColumn('name', 'text', notNull)
    .addColumn('user_id', 'integer', userRef)
    /** 'Issue' | 'MergeRequest' | 'Snippet' | 'Note' */
    .addColumn('awardable_type', 'text', notNull)
    .addColumn('awardable_id', 'integer', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('award_emoji_once', ['awardable_type', 'awardable_id', 'name', 'user_id'])
    .execute()
  // my_reaction_emoji: the caller's awards of one type.
  await db.schema.createIndex('award_emoji_user').on('award_emoji').columns(['user_id', 'awardable_type', 'name', 'awardable_id']).execute()

  await withId(db, db.schema.createTable('boards'))
    .addColumn('project_id', 'integer', optionalProjectRef)
    .addColumn('group_id', 'integer', optionalGroupRef)
    .addColumn('name', 'text', notNull)
    .addColumn('milestone_id', 'integer', (c) => c.references('milestones.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('boards_project').on('boards').column('project_id').execute()
  await db.schema.createIndex('boards_group').on('boards').column('group_id').execute()

  await withId(db, db.schema.createTable('board_lists'))
    .addColumn('board_id', 'integer', (c) => c.notNull().references('boards.id').onDelete('cascade'))
    .addColumn('label_id', 'integer', (c) => c.references('labels.id').onDelete('cascade'))
    /** 'backlog' | 'label' | 'closed'; the API shows label lists only. */
    .addColumn('list_type', 'text', notNull)
    .addColumn('position', 'integer')
    /** Soft deletion: a deleted list keeps its row and leaves every list view. */
    .addColumn('deleted_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('board_lists_board').on('board_lists').columns(['board_id', 'position']).execute()

  await withId(db, db.schema.createTable('subscriptions'))
    .addColumn('user_id', 'integer', userRef)
    /** 'Label' | 'Issue' | 'MergeRequest' */
    .addColumn('subscribable_type', 'text', notNull)
    .addColumn('subscribable_id', 'integer', notNull)
    .addColumn('project_id', 'integer', optionalProjectRef)
    .addColumn('subscribed', 'integer', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('subscriptions_once', ['subscribable_type', 'subscribable_id', 'user_id', 'project_id'])
    .execute()

  await db.schema.alterTable('notes').addColumn('discussion_id', 'text').execute()
  await db.schema.alterTable('notes').addColumn('type', 'text').execute()
  await db.schema.alterTable('notes').addColumn('resolvable', 'integer', flagOff).execute()
  await db.schema.alterTable('notes').addColumn('resolved_at', 'bigint').execute()
  await db.schema.alterTable('notes').addColumn('resolved_by_id', 'integer', optionalUserRef).execute()
  await db.schema.createIndex('notes_discussion').on('notes').columns(['discussion_id', 'id']).execute()

  await createIssueCounts(db)
  await createIssueSearch(db)
}

/**
 * issue_counts(project_id, state, confidential) → value: the X-Total of unfiltered issue lists
 * without counting a million rows; and projects.open_issues_count, both kept by triggers.
 */
async function createIssueCounts(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('issue_counts')
    .addColumn('project_id', 'integer', projectRef)
    .addColumn('state', 'text', notNull)
    .addColumn('confidential', 'integer', notNull)
    .addColumn('value', 'bigint', notNull)
    .addPrimaryKeyConstraint('issue_counts_pk', ['project_id', 'state', 'confidential'])
    .execute()
  const add = (row: 'new' | 'old', delta: '+' | '-') => `
    insert into issue_counts (project_id, state, confidential, value) values (${row}.project_id, ${row}.state, ${row}.confidential, ${delta}1)
      on conflict (project_id, state, confidential) do update set value = issue_counts.value ${delta} 1;
    update projects set open_issues_count = open_issues_count ${delta} (case when ${row}.state = 'opened' then 1 else 0 end)
      where id = ${row}.project_id;`
  if (isPostgres(db)) {
    await sql.raw(`create function ingot_count_issues() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then ${add('old', '-')} end if;
        if tg_op in ('INSERT', 'UPDATE') then ${add('new', '+')} end if;
        return null;
      end $$`).execute(db)
    await sql.raw(`create trigger issues_counts after insert or delete or update of project_id, state, confidential on issues
      for each row execute function ingot_count_issues()`).execute(db)
    return
  }
  await sql.raw(`create trigger issues_counts_insert after insert on issues begin ${add('new', '+')} end`).execute(db)
  await sql.raw(`create trigger issues_counts_delete after delete on issues begin ${add('old', '-')} end`).execute(db)
  await sql.raw(`create trigger issues_counts_update after update of project_id, state, confidential on issues
    when old.project_id <> new.project_id or old.state <> new.state or old.confidential <> new.confidential
    begin ${add('old', '-')} ${add('new', '+')} end`).execute(db)
}

/**
 * Indexed substring search over issue titles and descriptions, matching what text-search.ts's
 * matchesSearch means (every word of three characters or more occurs, ignoring case): an FTS5
 * trigram index on SQLite (issues_search, kept by triggers), pg_trgm GIN indexes on PostgreSQL.
 */
async function createIssueSearch(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`create extension if not exists pg_trgm`.execute(db)
    await sql`create index issues_title_trgm on issues using gin (lower(title) gin_trgm_ops)`.execute(db)
    await sql`create index issues_description_trgm on issues using gin (lower(description) gin_trgm_ops)`.execute(db)
    return
  }
  await sql.raw(`create virtual table issues_search using fts5(title, description, content='issues', content_rowid='id',
    tokenize='trigram')`).execute(db)
  await sql.raw(`create trigger issues_search_insert after insert on issues begin
    insert into issues_search (rowid, title, description) values (new.id, new.title, new.description); end`).execute(db)
  await sql.raw(`create trigger issues_search_delete after delete on issues begin
    insert into issues_search (issues_search, rowid, title, description) values ('delete', old.id, old.title, old.description); end`).execute(db)
  await sql.raw(`create trigger issues_search_update after update of title, description on issues begin
    insert into issues_search (issues_search, rowid, title, description) values ('delete', old.id, old.title, old.description);
    insert into issues_search (rowid, title, description) values (new.id, new.title, new.description); end`).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw('drop trigger issues_counts on issues').execute(db)
    await sql.raw('drop function ingot_count_issues()').execute(db)
  } else {
    await sql.raw('drop table issues_search').execute(db)
  }
  await db.schema.dropIndex('notes_discussion').execute()
  for (const column of ['resolved_by_id', 'resolved_at', 'resolvable', 'type', 'discussion_id']) {
    await db.schema.alterTable('notes').dropColumn(column).execute()
  }
  for (const table of [
    'issue_counts', 'subscriptions', 'board_lists', 'boards', 'award_emoji', 'snippets', 'label_links', 'merge_requests',
    'issue_assignees', 'issues', 'labels', 'milestones', 'internal_ids',
  ]) {
    await db.schema.dropTable(table).execute()
  }
}
