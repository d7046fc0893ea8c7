import type { Kysely } from 'kysely';

/**
 * App icons (issue 28): the icon of each app's latest release, taken from its archive and rebuilt
 * safe at publishing (domain/releases/app-icon.ts), served at /icons/HASH.svg.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('app_icons')
    .addColumn('app_id', 'text', (c) => c.primaryKey().references('apps.id').onDelete('cascade'))
    // The first 32 hex digits of the SVG's SHA-256: the icon's address.
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('svg', 'text', (c) => c.notNull())
    // True for app-dark.svg (drawn dark): shown on a light background.
    .addColumn('dark', 'boolean', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('app_icons_hash').on('app_icons').column('hash').execute();
}
