import type { Kysely } from 'kysely';

/**
 * External login (issue 29): the identities users sign in with at an OpenID Provider or GitHub,
 * each known by (provider, subject), never by its address; and the sign-ins under way (state,
 * nonce and PKCE verifier kept here, server-side, so any node can finish what another began).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('external_identities')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // The provider's id in the configuration ('github', 'keycloak').
    .addColumn('provider', 'text', (c) => c.notNull())
    // The provider's stable id of the person: `sub`, or GitHub's numeric user id.
    .addColumn('subject', 'text', (c) => c.notNull())
    // How the person is known there (login or address), shown on the account page only.
    .addColumn('label', 'text', (c) => c.notNull())
    // True while the user's administrator rights come from the provider's admin claim.
    .addColumn('admin_from_claim', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('external_identities_pkey', ['provider', 'subject'])
    .addUniqueConstraint('external_identities_user_provider', ['user_id', 'provider'])
    .execute();

  await db.schema
    .createTable('external_login_flows')
    // The keyed hash of the flow's `state` (or, for a sign-up waiting for a username, of the browser's cookie).
    .addColumn('key_hash', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('purpose', 'text', (c) => c.notNull())
    // The signed-in user who asked to link an identity.
    .addColumn('user_id', 'integer', (c) => c.references('users.id').onDelete('cascade'))
    // The keyed hash of the cookie of the browser that began it: the callback must come back to that browser.
    .addColumn('binding_hash', 'text', (c) => c.notNull())
    // JSON: nonce, PKCE verifier and the page to go on to; or the profile waiting for a username.
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('external_login_flows_expires_at')
    .on('external_login_flows')
    .column('expires_at')
    .execute();
}
