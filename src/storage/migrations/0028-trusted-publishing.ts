import type { Kysely } from 'kysely';
import type { Dialect } from '../database.ts';

/**
 * Trusted publishing (issue 53): the CI workflows an app's owner trusts to publish it, the OpenID
 * issuers an admin allows besides GitHub's and gitlab.com, the ID tokens already exchanged (each
 * is used once), and where each release published this way came from (`releases.provenance`).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('trusted_publishers')
    .addColumn('id', dialect === 'sqlite' ? 'integer' : 'bigserial', (c) =>
      dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey(),
    )
    .addColumn('app_id', 'text', (c) => c.notNull().references('apps.id').onDelete('cascade'))
    /** github, gitlab or oidc. */
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('issuer', 'text', (c) => c.notNull())
    /** owner/repository (GitHub), the project path (GitLab), '' (another issuer: `claims` say it all). */
    .addColumn('repository', 'text', (c) => c.notNull())
    /** The numeric ids, given or pinned by the first exchange: a re-created namesake has others. */
    .addColumn('repository_id', 'text')
    .addColumn('owner_id', 'text')
    .addColumn('workflow', 'text')
    .addColumn('environment', 'text')
    .addColumn('ref', 'text')
    /** JSON object: claim → the value it must have (another issuer). */
    .addColumn('claims', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('trusted_publishers_issuer').on('trusted_publishers').column('issuer').execute();
  await db.schema.createIndex('trusted_publishers_app').on('trusted_publishers').column('app_id').execute();
  await db.schema
    .createTable('oidc_issuers')
    .addColumn('url', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    /** Space-separated claims every publisher of this issuer must name (another issuer). */
    .addColumn('required_claims', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('used_id_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('releases').addColumn('provenance', 'text').execute();
}
