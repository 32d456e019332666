// Platform core: users and their credentials, namespaces (personal and groups), projects,
// memberships, shares, stars, custom attributes, contribution events and durable jobs.
import { sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely'
import { isPostgres, withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()
const flagOff = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0)
const flagOn = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(1)
const emptyText = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo('')
const zero = (c: ColumnDefinitionBuilder) => c.notNull().defaultTo(0)

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('users'))
    .addColumn('username', 'text', notNull)
    .addColumn('username_lower', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', notNull)
    .addColumn('email_lower', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', notNull)
    .addColumn('password_digest', 'text')
    .addColumn('password_expires_at', 'bigint')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('admin', 'integer', flagOff)
    .addColumn('external', 'integer', flagOff)
    .addColumn('ghost', 'integer', flagOff)
    .addColumn('can_create_group', 'integer', flagOn)
    .addColumn('projects_limit', 'integer', notNull)
    .addColumn('private_profile', 'integer', flagOff)
    .addColumn('two_factor_enabled', 'integer', flagOff)
    .addColumn('bio', 'text', emptyText)
    .addColumn('location', 'text', emptyText)
    .addColumn('public_email', 'text', emptyText)
    .addColumn('messenger', 'text', emptyText)
    .addColumn('professional_network', 'text', emptyText)
    .addColumn('microblog', 'text', emptyText)
    .addColumn('website_url', 'text', emptyText)
    .addColumn('organization', 'text', emptyText)
    .addColumn('theme_id', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('color_scheme_id', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('avatar_path', 'text')
    .addColumn('status_emoji', 'text')
    .addColumn('status_message', 'text')
    .addColumn('confirmed_at', 'bigint')
    .addColumn('current_sign_in_at', 'bigint')
    .addColumn('last_sign_in_at', 'bigint')
    .addColumn('last_activity_on', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('users_created_at').on('users').columns(['created_at', 'id']).execute()
  await db.schema.createIndex('users_name').on('users').column('name').execute()
  await db.schema.createIndex('users_state').on('users').column('state').execute()

  await withId(db, db.schema.createTable('identities'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('provider', 'text', notNull)
    .addColumn('extern_uid', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addUniqueConstraint('identities_provider_extern_uid', ['provider', 'extern_uid'])
    .execute()
  await db.schema.createIndex('identities_user_id').on('identities').column('user_id').execute()

  await withId(db, db.schema.createTable('access_tokens'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('kind', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', notNull)
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked', 'integer', flagOff)
    .addColumn('last_used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('access_tokens_user_id').on('access_tokens').columns(['user_id', 'kind']).execute()

  await withId(db, db.schema.createTable('ssh_keys'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('title', 'text', notNull)
    .addColumn('key', 'text', notNull)
    .addColumn('fingerprint', 'text', (c) => c.notNull().unique())
    .addColumn('key_type', 'text', notNull)
    .addColumn('key_bits', 'integer', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('ssh_keys_user_id').on('ssh_keys').column('user_id').execute()

  await withId(db, db.schema.createTable('namespaces'))
    .addColumn('kind', 'text', notNull)
    .addColumn('name', 'text', notNull)
    .addColumn('path', 'text', notNull)
    .addColumn('full_path', 'text', notNull)
    .addColumn('full_path_lower', 'text', (c) => c.notNull().unique())
    .addColumn('full_name', 'text', notNull)
    .addColumn('parent_id', 'integer', (c) => c.references('namespaces.id').onDelete('cascade'))
    .addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('description', 'text', emptyText)
    .addColumn('visibility_level', 'integer', notNull)
    .addColumn('lfs_enabled', 'integer', flagOn)
    .addColumn('request_access_enabled', 'integer', flagOff)
    .addColumn('avatar_path', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('namespaces_parent_id').on('namespaces').column('parent_id').execute()
  await db.schema.createIndex('namespaces_owner_id').on('namespaces').column('owner_id').execute()
  await db.schema.createIndex('namespaces_kind_name').on('namespaces').columns(['kind', 'name']).execute()

  await withId(db, db.schema.createTable('projects'))
    .addColumn('namespace_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('name', 'text', notNull)
    .addColumn('path', 'text', notNull)
    .addColumn('path_lower', 'text', notNull)
    .addColumn('description', 'text')
    .addColumn('visibility_level', 'integer', notNull)
    .addColumn('creator_id', 'integer', notNull)
    .addColumn('default_branch', 'text')
    .addColumn('archived', 'integer', flagOff)
    .addColumn('issues_enabled', 'integer', flagOn)
    .addColumn('merge_requests_enabled', 'integer', flagOn)
    .addColumn('jobs_enabled', 'integer', flagOn)
    .addColumn('wiki_enabled', 'integer', flagOn)
    .addColumn('snippets_enabled', 'integer', flagOn)
    .addColumn('container_registry_enabled', 'integer', flagOn)
    .addColumn('shared_runners_enabled', 'integer', flagOn)
    .addColumn('lfs_enabled', 'integer', flagOn)
    .addColumn('request_access_enabled', 'integer', flagOff)
    .addColumn('public_jobs', 'integer', flagOn)
    .addColumn('resolve_outdated_diff_discussions', 'integer', flagOff)
    .addColumn('only_allow_merge_if_pipeline_succeeds', 'integer', flagOff)
    .addColumn('only_allow_merge_if_all_discussions_are_resolved', 'integer', flagOff)
    .addColumn('printing_merge_request_link_enabled', 'integer', flagOn)
    .addColumn('merge_method', 'text', (c) => c.notNull().defaultTo('merge'))
    .addColumn('ci_config_path', 'text')
    .addColumn('tag_list', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('avatar_path', 'text')
    .addColumn('import_status', 'text', (c) => c.notNull().defaultTo('none'))
    .addColumn('import_error', 'text')
    .addColumn('runners_token', 'text', notNull)
    .addColumn('star_count', 'integer', zero)
    .addColumn('forks_count', 'integer', zero)
    .addColumn('open_issues_count', 'integer', zero)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addColumn('last_activity_at', 'bigint', notNull)
    .addUniqueConstraint('projects_namespace_path', ['namespace_id', 'path_lower'])
    .addUniqueConstraint('projects_namespace_name', ['namespace_id', 'name'])
    .execute()
  // Every order_by of the project lists, each with id as the tie-breaker that keeps pages stable.
  for (const column of ['created_at', 'updated_at', 'last_activity_at', 'name', 'path']) {
    await db.schema.createIndex(`projects_${column}`).on('projects').columns([column, 'id']).execute()
  }
  await db.schema.createIndex('projects_visibility').on('projects').columns(['visibility_level', 'created_at']).execute()

  await db.schema.createTable('project_statistics')
    .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id').onDelete('cascade'))
    .addColumn('commit_count', 'bigint', zero)
    .addColumn('storage_size', 'bigint', zero)
    .addColumn('repository_size', 'bigint', zero)
    .addColumn('lfs_objects_size', 'bigint', zero)
    .addColumn('job_artifacts_size', 'bigint', zero)
    .execute()

  await withId(db, db.schema.createTable('members'))
    .addColumn('source_type', 'text', notNull)
    .addColumn('source_id', 'integer', notNull)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('access_level', 'integer', notNull)
    .addColumn('expires_at', 'text')
    .addColumn('created_by_id', 'integer')
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('members_source_user', ['source_type', 'source_id', 'user_id'])
    .execute()
  await db.schema.createIndex('members_user_id').on('members').columns(['user_id', 'source_type']).execute()

  await withId(db, db.schema.createTable('project_group_links'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('namespaces.id').onDelete('cascade'))
    .addColumn('group_access', 'integer', notNull)
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .addUniqueConstraint('project_group_links_project_group', ['project_id', 'group_id'])
    .execute()
  await db.schema.createIndex('project_group_links_group_id').on('project_group_links').column('group_id').execute()

  await db.schema.createTable('stars')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('created_at', 'bigint', notNull)
    .addPrimaryKeyConstraint('stars_pk', ['user_id', 'project_id'])
    .execute()
  await db.schema.createIndex('stars_project_id').on('stars').column('project_id').execute()

  await withId(db, db.schema.createTable('custom_attributes'))
    .addColumn('subject_type', 'text', notNull)
    .addColumn('subject_id', 'integer', notNull)
    .addColumn('key', 'text', notNull)
    .addColumn('value', 'text', notNull)
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .addUniqueConstraint('custom_attributes_subject_key', ['subject_type', 'subject_id', 'key'])
    .execute()
  await db.schema.createIndex('custom_attributes_key_value')
    .on('custom_attributes').columns(['subject_type', 'key', 'value']).execute()

  await withId(db, db.schema.createTable('events'))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id').onDelete('cascade'))
    .addColumn('author_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('action', 'text', notNull)
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'integer')
    .addColumn('target_iid', 'integer')
    .addColumn('target_title', 'text')
    .addColumn('push_data', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('events_author').on('events').columns(['author_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('events_project').on('events').columns(['project_id', 'created_at', 'id']).execute()
  await db.schema.createIndex('events_created_at').on('events').column('created_at').execute()

  await withId(db, db.schema.createTable('jobs'))
    .addColumn('kind', 'text', notNull)
    .addColumn('payload', 'text', notNull)
    .addColumn('unique_key', 'text', (c) => c.unique())
    .addColumn('run_at', 'bigint', notNull)
    .addColumn('attempts', 'integer', zero)
    .addColumn('locked_until', 'bigint')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('jobs_run_at').on('jobs').columns(['run_at', 'id']).execute()

  await createCounters(db)
}

/**
 * Maintained counts behind the X-Total of the unfiltered user and project lists, kept by triggers
 * so that no write path can forget them: users (the ghost aside) and projects per visibility level.
 */
async function createCounters(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('counters')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', notNull)
    .execute()
  await sql`insert into counters (name, value)
    select 'users', count(*) from users where ghost = 0
    union all select 'projects.visibility.0', count(*) from projects where visibility_level = 0
    union all select 'projects.visibility.10', count(*) from projects where visibility_level = 10
    union all select 'projects.visibility.20', count(*) from projects where visibility_level = 20`.execute(db)
  const bump = (delta: string, level: string) =>
    `update counters set value = value ${delta} 1 where name = 'projects.visibility.' || ${level};`
  if (isPostgres(db)) {
    await sql.raw(`create function ingot_count_users() returns trigger language plpgsql as $$
      begin
        if tg_op = 'INSERT' and new.ghost = 0 then update counters set value = value + 1 where name = 'users'; end if;
        if tg_op = 'DELETE' and old.ghost = 0 then update counters set value = value - 1 where name = 'users'; end if;
        return null;
      end $$`).execute(db)
    await sql.raw(`create trigger users_counter after insert or delete on users
      for each row execute function ingot_count_users()`).execute(db)
    await sql.raw(`create function ingot_count_projects() returns trigger language plpgsql as $$
      begin
        if tg_op in ('DELETE', 'UPDATE') then ${bump('-', 'old.visibility_level')} end if;
        if tg_op in ('INSERT', 'UPDATE') then ${bump('+', 'new.visibility_level')} end if;
        return null;
      end $$`).execute(db)
    await sql.raw(`create trigger projects_counter after insert or delete or update of visibility_level on projects
      for each row execute function ingot_count_projects()`).execute(db)
    return
  }
  await sql.raw(`create trigger users_counter_insert after insert on users when new.ghost = 0
    begin update counters set value = value + 1 where name = 'users'; end`).execute(db)
  await sql.raw(`create trigger users_counter_delete after delete on users when old.ghost = 0
    begin update counters set value = value - 1 where name = 'users'; end`).execute(db)
  await sql.raw(`create trigger projects_counter_insert after insert on projects
    begin ${bump('+', 'new.visibility_level')} end`).execute(db)
  await sql.raw(`create trigger projects_counter_delete after delete on projects
    begin ${bump('-', 'old.visibility_level')} end`).execute(db)
  await sql.raw(`create trigger projects_counter_update after update of visibility_level on projects
    when old.visibility_level <> new.visibility_level
    begin ${bump('-', 'old.visibility_level')} ${bump('+', 'new.visibility_level')} end`).execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'counters', 'jobs', 'events', 'custom_attributes', 'stars', 'project_group_links', 'members', 'project_statistics',
    'projects', 'namespaces', 'ssh_keys', 'access_tokens', 'identities', 'users',
  ]) {
    await db.schema.dropTable(table).execute()
  }
}
