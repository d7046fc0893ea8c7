import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DatabaseHandle, Dialect } from './database.ts';
import * as initial from './migrations/0001-initial.ts';
import * as accountLinks from './migrations/0002-account-links.ts';
import * as listingVersions from './migrations/0003-listing-versions.ts';
import * as listingParts from './migrations/0004-listing-parts.ts';
import * as operations from './migrations/0005-operations.ts';
import * as discover from './migrations/0006-discover.ts';
import * as externalApps from './migrations/0007-external-apps.ts';
import * as versionNotifications from './migrations/0008-version-notifications.ts';
import * as listingPartIntegrity from './migrations/0009-listing-part-integrity.ts';
import * as mailQueue from './migrations/0010-mail-queue.ts';
import * as developerPages from './migrations/0011-developer-pages.ts';
import * as commandLineCertificates from './migrations/0012-command-line-certificates.ts';
import * as appIcons from './migrations/0013-app-icons.ts';
import * as externalLogin from './migrations/0014-external-login.ts';
import * as mirror from './migrations/0015-mirror.ts';
import * as releaseListingText from './migrations/0016-release-listing-text.ts';
import * as iconRenderCost from './migrations/0017-icon-render-cost.ts';
import * as transferUnlockTime from './migrations/0018-transfer-unlock-time.ts';
import * as usernameCase from './migrations/0019-username-case.ts';
import * as mirrorRecheck from './migrations/0020-mirror-recheck.ts';
import * as keptArchives from './migrations/0021-kept-archives.ts';
import * as downloadDays from './migrations/0022-download-days.ts';
import * as appStatus from './migrations/0023-app-status.ts';
import * as notifications from './migrations/0024-notifications.ts';
import * as subscriptionKeys from './migrations/0025-subscription-keys.ts';
import * as donations from './migrations/0026-donations.ts';
import * as scopedTokens from './migrations/0027-scoped-tokens.ts';
import * as trustedPublishing from './migrations/0028-trusted-publishing.ts';
import * as twoFactor from './migrations/0029-two-factor.ts';
import * as userLanguage from './migrations/0030-user-language.ts';
import * as moderation from './migrations/0031-moderation.ts';
import * as screenshotCopies from './migrations/0032-screenshot-copies.ts';
import * as moderationMarks from './migrations/0033-moderation-marks.ts';
import * as startUpIndexes from './migrations/0034-start-up-indexes.ts';
import * as inlineListingTexts from './migrations/0035-inline-listing-texts.ts';
import { formatTimestamp } from '../domain/timestamps.ts';
import { newEpoch, renewEpoch } from './repositories/content-version.repository.ts';

/** A step may return notes for the operator: what it found and did to the data (never secrets). */
type Step = { up(db: Kysely<unknown>, dialect: Dialect): Promise<void | readonly string[]> };

/** Every migration, in order. A new step is a new file here; applied steps are never edited. */
const STEPS: ReadonlyArray<readonly [string, Step]> = [
  ['0001-initial', initial],
  ['0002-account-links', accountLinks],
  ['0003-listing-versions', listingVersions],
  ['0004-listing-parts', listingParts],
  ['0005-operations', operations],
  ['0006-discover', discover],
  ['0007-external-apps', externalApps],
  ['0008-version-notifications', versionNotifications],
  ['0009-listing-part-integrity', listingPartIntegrity],
  ['0010-mail-queue', mailQueue],
  ['0011-developer-pages', developerPages],
  ['0012-command-line-certificates', commandLineCertificates],
  ['0013-app-icons', appIcons],
  ['0014-external-login', externalLogin],
  ['0015-mirror', mirror],
  ['0016-release-listing-text', releaseListingText],
  ['0017-icon-render-cost', iconRenderCost],
  ['0018-transfer-unlock-time', transferUnlockTime],
  ['0019-username-case', usernameCase],
  ['0020-mirror-recheck', mirrorRecheck],
  ['0021-kept-archives', keptArchives],
  ['0022-download-days', downloadDays],
  ['0023-app-status', appStatus],
  ['0024-notifications', notifications],
  ['0025-subscription-keys', subscriptionKeys],
  ['0026-donations', donations],
  ['0027-scoped-tokens', scopedTokens],
  ['0028-trusted-publishing', trustedPublishing],
  ['0029-two-factor', twoFactor],
  ['0030-user-language', userLanguage],
  ['0031-moderation', moderation],
  ['0032-screenshot-copies', screenshotCopies],
  ['0033-moderation-marks', moderationMarks],
  ['0034-start-up-indexes', startUpIndexes],
  ['0035-inline-listing-texts', inlineListingTexts],
];

/** The names of every migration, in order (what a migration from empty applies). */
export const MIGRATION_NAMES: readonly string[] = STEPS.map(([name]) => name);

/** An arbitrary constant: the advisory lock that serialises migrations on PostgreSQL. */
const POSTGRES_LOCK_ID = 7_310_421_9;

export async function currentSchema(handle: DatabaseHandle): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(handle.db);
  const schema = rows[0]?.schema;
  if (schema === undefined || schema === null) throw new Error('PostgreSQL has no current schema: check search_path');
  return schema;
}

/** Whether the database holds a store: its migrations table (in the current schema on PostgreSQL). */
export async function storeExists(handle: DatabaseHandle): Promise<boolean> {
  const { rows } =
    handle.dialect === 'postgres'
      ? await sql<{
          found: number;
        }>`select 1 as found from information_schema.tables where table_schema = current_schema() and table_name = 'appstore_migrations'`.execute(
          handle.db,
        )
      : await sql<{
          found: number;
        }>`select 1 as found from sqlite_master where type = 'table' and name = 'appstore_migrations'`.execute(
          handle.db,
        );
  return rows.length > 0;
}

export interface MigrationReport {
  readonly applied: string[];
  /** What the applied steps found and did to the data, for the operator to read (each names its step). */
  readonly notes: string[];
}

/**
 * Applies every pending migration, each in its own transaction, recording it in
 * `appstore_migrations`; then makes sure the content version row exists. Concurrent runs (several
 * nodes starting at once) wait for each other: an advisory lock on PostgreSQL, the write lock on
 * SQLite. Only the current schema is ever looked at. `until` stops after the step of that name (a
 * test's database as an earlier version left it).
 */
export async function migrateToLatest(
  handle: DatabaseHandle,
  now: Date,
  options: { readonly until?: string } = {},
): Promise<MigrationReport> {
  const db = handle.db as unknown as Kysely<MigrationsTable>;
  // Under the lock too: two `create table if not exists` at once on PostgreSQL can both try to
  // create the table's type, and the second fails on pg_type's unique index.
  await db.transaction().execute(async (trx) => {
    if (handle.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${POSTGRES_LOCK_ID})`.execute(trx);
    await trx.schema
      .createTable('appstore_migrations')
      .ifNotExists()
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('applied_at', 'text', (c) => c.notNull())
      .execute();
  });
  const applied: string[] = [];
  const notes: string[] = [];
  // Steps recorded as applied stay applied: only the others need the lock and a look of their own
  // (a start on an up-to-date database: one read, not a transaction per step).
  const recorded = new Set(
    (await db.selectFrom('appstore_migrations').select('name').execute()).map((row) => row.name),
  );
  const until = STEPS.findIndex(([name]) => name === options.until);
  const pending = STEPS.slice(0, until === -1 ? STEPS.length : until + 1).filter(([name]) => !recorded.has(name));
  for (const [name, step] of pending) {
    const ran = await db.transaction().execute(async (trx) => {
      if (handle.dialect === 'postgres') await sql`select pg_advisory_xact_lock(${POSTGRES_LOCK_ID})`.execute(trx);
      else await sql`update appstore_migrations set name = name where 0`.execute(trx); // takes the write lock
      const done = await trx
        .selectFrom('appstore_migrations')
        .select('name')
        .where('name', '=', name)
        .executeTakeFirst();
      if (done !== undefined) return false;
      try {
        const found = await step.up(trx as unknown as Kysely<unknown>, handle.dialect);
        for (const note of found ?? []) notes.push(`${name}: ${note}`);
      } catch (error) {
        throw new Error(`migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      await trx
        .insertInto('appstore_migrations')
        .values({ name, applied_at: formatTimestamp(now) })
        .execute();
      return true;
    });
    if (ran) applied.push(name);
  }
  // Data migrated means content that earlier ETags did not name: a new epoch (no row yet: a new database).
  if (applied.length > 0) await renewEpoch(handle.db);
  await handle.db
    .insertInto('content_version')
    .values({ id: 1, version: 1, changed_at: formatTimestamp(now), instance_id: newEpoch() })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return { applied, notes };
}

interface MigrationsTable {
  appstore_migrations: { name: string; applied_at: string };
}
