// The OAuth 2.0 provider: registered applications, the authorization codes of the code flow, and
// the OAuth side of access tokens (the application that holds a token and its refresh token), and
// the tokens of the client credentials grant, which act for an application, not for a user.
// Application secrets, codes, access and refresh tokens are stored as SHA-256 digests only.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely'
import { withId } from './helpers.js'

const notNull = (c: ColumnDefinitionBuilder) => c.notNull()

export async function up(db: Kysely<unknown>): Promise<void> {
  await withId(db, db.schema.createTable('oauth_applications'))
    .addColumn('name', 'text', notNull)
    .addColumn('uid', 'text', (c) => c.notNull().unique())
    .addColumn('secret_digest', 'text', notNull)
    .addColumn('redirect_uri', 'text', notNull)
    .addColumn('scopes', 'text', notNull)
    .addColumn('owner_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('trusted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', notNull)
    .addColumn('updated_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('oauth_applications_owner_id').on('oauth_applications').column('owner_id').execute()

  await withId(db, db.schema.createTable('oauth_access_grants'))
    .addColumn('application_id', 'integer', (c) => c.notNull().references('oauth_applications.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_digest', 'text', (c) => c.notNull().unique())
    .addColumn('redirect_uri', 'text', notNull)
    .addColumn('scopes', 'text', notNull)
    .addColumn('nonce', 'text')
    .addColumn('expires_at', 'bigint', notNull)
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', notNull)
    .execute()
  await db.schema.createIndex('oauth_access_grants_expires_at').on('oauth_access_grants').column('expires_at').execute()

  await withId(db, db.schema.createTable('oauth_client_tokens'))
    .addColumn('application_id', 'integer', (c) => c.notNull().references('oauth_applications.id').onDelete('cascade'))
    .addColumn('token_digest', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', notNull)
    .addColumn('expires_at', 'bigint')
    .addColumn('revoked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', notNull)
    .execute()

  await db.schema.alterTable('access_tokens')
    .addColumn('application_id', 'integer', (c) => c.references('oauth_applications.id').onDelete('cascade'))
    .execute()
  await db.schema.alterTable('access_tokens').addColumn('refresh_token_digest', 'text').execute()
  await db.schema.createIndex('access_tokens_refresh_token_digest').unique().on('access_tokens').column('refresh_token_digest').execute()
  await db.schema.createIndex('access_tokens_application_id_user_id').on('access_tokens').columns(['application_id', 'user_id']).execute()
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('access_tokens_application_id_user_id').execute()
  await db.schema.dropIndex('access_tokens_refresh_token_digest').execute()
  await db.schema.alterTable('access_tokens').dropColumn('refresh_token_digest').execute()
  await db.schema.alterTable('access_tokens').dropColumn('application_id').execute()
  await db.schema.dropTable('oauth_client_tokens').execute()
  await db.schema.dropTable('oauth_access_grants').execute()
  await db.schema.dropTable('oauth_applications').execute()
}
