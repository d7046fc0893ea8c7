import { sql } from 'kysely';
import type { ColumnDefinitionBuilder, CreateTableBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * The data model for the whole contract. Conventions (see ../schema.ts): timestamps are ISO 8601
 * text, booleans are `boolean` columns, surrogate ids are generated integers. Everything that
 * belongs to an app or a release is deleted with it (ON DELETE CASCADE).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'sqlite' ? col.primaryKey().autoIncrement() : col.generatedByDefaultAsIdentity().primaryKey();
  const table = (name: string): CreateTableBuilder<string, never> => db.schema.createTable(name);
  const cascade = (col: ColumnDefinitionBuilder): ColumnDefinitionBuilder => col.notNull().onDelete('cascade');

  // One row: bumped in the same transaction as every write that changes what a listing shows.
  // The listings' ETags are derived from it, so every node sharing the database agrees.
  await table('content_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addColumn('instance_id', 'text', (c) => c.notNull())
    .addCheckConstraint('content_version_single_row', sql`id = 1`)
    .execute();

  await table('users')
    .addColumn('id', 'integer', id)
    .addColumn('username', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text')
    .addColumn('first_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('last_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('password_hash', 'text')
    .addColumn('is_admin', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // Tokens are found by a keyed hash; the retrievable copy is encrypted with a key kept
  // outside the database, so a copy of the database alone reveals no usable token.
  await table('api_tokens')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => cascade(c.references('users.id')).unique())
    .addColumn('lookup_hash', 'text', (c) => c.notNull().unique())
    .addColumn('encrypted_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();

  await table('sessions')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => cascade(c.references('users.id')))
    .addColumn('csrf_token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_user_id').on('sessions').column('user_id').execute();

  await table('categories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await table('category_translations')
    .addColumn('category_id', 'text', (c) => cascade(c.references('categories.id')))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('category_translations_pk', ['category_id', 'language'])
    .execute();

  await table('platform_releases')
    .addColumn('version', 'text', (c) => c.primaryKey())
    .addColumn('version_major', 'integer', (c) => c.notNull())
    .addColumn('version_minor', 'integer', (c) => c.notNull())
    .addColumn('version_patch', 'integer', (c) => c.notNull())
    .addColumn('has_release', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_supported', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await table('apps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('restrict'))
    .addColumn('certificate', 'text', (c) => c.notNull())
    .addColumn('is_featured', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_enterprise_only', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('transfer_unlocked', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('user_docs', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('admin_docs', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('developer_docs', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('issue_tracker', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('website', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('discussion', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_release_at', 'text')
    .execute();
  await db.schema.createIndex('apps_owner_id').on('apps').column('owner_id').execute();

  await table('app_translations')
    .addColumn('app_id', 'text', (c) => cascade(c.references('apps.id')))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('app_translations_pk', ['app_id', 'language'])
    .execute();

  await table('app_authors')
    .addColumn('id', 'integer', id)
    .addColumn('app_id', 'text', (c) => cascade(c.references('apps.id')))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('mail', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('homepage', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('app_authors_app_id').on('app_authors').columns(['app_id', 'position']).execute();

  await table('app_screenshots')
    .addColumn('id', 'integer', id)
    .addColumn('app_id', 'text', (c) => cascade(c.references('apps.id')))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('small_thumbnail', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('app_screenshots_app_id').on('app_screenshots').columns(['app_id', 'position']).execute();

  await table('app_categories')
    .addColumn('app_id', 'text', (c) => cascade(c.references('apps.id')))
    .addColumn('category_id', 'text', (c) => c.notNull().references('categories.id').onDelete('restrict'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_categories_pk', ['app_id', 'category_id'])
    .execute();
  await db.schema.createIndex('app_categories_category_id').on('app_categories').column('category_id').execute();

  await table('app_co_maintainers')
    .addColumn('app_id', 'text', (c) => cascade(c.references('apps.id')))
    .addColumn('user_id', 'integer', (c) => cascade(c.references('users.id')))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_co_maintainers_pk', ['app_id', 'user_id'])
    .execute();
  await db.schema.createIndex('app_co_maintainers_user_id').on('app_co_maintainers').column('user_id').execute();

  // (app, version, nightly) is unique: two concurrent publishes of one version end in one row.
  await table('releases')
    .addColumn('id', 'integer', id)
    .addColumn('app_id', 'text', (c) => cascade(c.references('apps.id')))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('is_nightly', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('download', 'text', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .addColumn('signature_digest', 'text', (c) => c.notNull().defaultTo('sha512'))
    .addColumn('archive_sha256', 'text', (c) => c.notNull())
    .addColumn('archive_size', 'integer', (c) => c.notNull())
    .addColumn('php_version_spec', 'text', (c) => c.notNull().defaultTo('*'))
    .addColumn('raw_php_version_spec', 'text', (c) => c.notNull().defaultTo('*'))
    .addColumn('platform_version_spec', 'text', (c) => c.notNull().defaultTo('*'))
    .addColumn('raw_platform_version_spec', 'text', (c) => c.notNull().defaultTo('*'))
    .addColumn('min_int_size', 'integer', (c) => c.notNull().defaultTo(32))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('releases_app_version_nightly', ['app_id', 'version', 'is_nightly'])
    .execute();

  for (const name of ['release_php_extensions', 'release_databases']) {
    await table(name)
      .addColumn('release_id', 'integer', (c) => cascade(c.references('releases.id')))
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('version_spec', 'text', (c) => c.notNull().defaultTo('*'))
      .addColumn('raw_version_spec', 'text', (c) => c.notNull().defaultTo('*'))
      .addPrimaryKeyConstraint(`${name}_pk`, ['release_id', 'position'])
      .execute();
  }

  await table('release_shell_commands')
    .addColumn('release_id', 'integer', (c) => cascade(c.references('releases.id')))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('command', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('release_shell_commands_pk', ['release_id', 'position'])
    .execute();

  await table('release_licenses')
    .addColumn('release_id', 'integer', (c) => cascade(c.references('releases.id')))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('license', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('release_licenses_pk', ['release_id', 'position'])
    .execute();

  await table('release_translations')
    .addColumn('release_id', 'integer', (c) => cascade(c.references('releases.id')))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('changelog', 'text', (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('release_translations_pk', ['release_id', 'language'])
    .execute();

  await table('ratings')
    .addColumn('id', 'integer', id)
    .addColumn('app_id', 'text', (c) => cascade(c.references('apps.id')))
    .addColumn('user_id', 'integer', (c) => cascade(c.references('users.id')))
    .addColumn('rating', 'double precision', (c) => c.notNull())
    .addColumn('rated_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('ratings_app_user', ['app_id', 'user_id'])
    .addCheckConstraint('ratings_range', sql`rating >= 0 and rating <= 1`)
    .execute();
  await db.schema.createIndex('ratings_rated_at').on('ratings').column('rated_at').execute();

  await table('rating_translations')
    .addColumn('rating_id', 'integer', (c) => cascade(c.references('ratings.id')))
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('rating_translations_pk', ['rating_id', 'language'])
    .execute();

  // The store's own revocations (`appstore ca revoke`), read on every check, so a revocation
  // takes effect at once on every node.
  await table('certificate_revocations')
    .addColumn('serial', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
    .addPrimaryKeyConstraint('certificate_revocations_pk', ['issuer', 'serial'])
    .execute();

  // Sliding-window counters shared by every node (publishing per day, token/new per minute,
  // failed logins per address and user).
  await table('rate_limit_hits')
    .addColumn('id', 'integer', id)
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('hit_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('rate_limit_hits_lookup')
    .on('rate_limit_hits')
    .columns(['bucket', 'subject', 'hit_at'])
    .execute();
}
