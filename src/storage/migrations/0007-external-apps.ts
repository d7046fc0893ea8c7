import type { Kysely } from 'kysely';

/**
 * ExApps (issue 17): a release whose info.xml has `<external-app>` has a row here, with its
 * container image, AppAPI scopes and environment variables. Such releases are listed in
 * appapi_apps.json and not in apps.json; a release without a row is an ordinary one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('release_external_apps')
    .addColumn('release_id', 'integer', (c) => c.primaryKey().references('releases.id').onDelete('cascade'))
    .addColumn('is_system', 'boolean', (c) => c.notNull())
    .addColumn('registry', 'text', (c) => c.notNull())
    .addColumn('image', 'text', (c) => c.notNull())
    .addColumn('image_tag', 'text', (c) => c.notNull())
    // JSON: ["FILES", …] and [{name, displayName, description, default}, …].
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('environment_variables', 'text', (c) => c.notNull())
    .execute();
}
