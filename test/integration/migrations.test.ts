import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { currentSchema, migrateToLatest } from '../../src/storage/migrate.ts';
import { toBool } from '../../src/storage/schema.ts';
import type { DatabaseHandle } from '../../src/storage/database.ts';
import { formatTimestamp } from '../../src/domain/timestamps.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';

const TABLES = [
  'access_tokens',
  'account_links',
  'api_tokens',
  'app_authors',
  'app_categories',
  'app_co_maintainers',
  'app_icons',
  'app_screenshots',
  'app_translations',
  'apps',
  'audit_log',
  'categories',
  'category_translations',
  'certificate_requests',
  'certificate_revocations',
  'content_version',
  'discover_entries',
  'external_identities',
  'external_login_flows',
  'housekeeping_leases',
  'listing_part_formats',
  'listing_parts',
  'mail_queue',
  'mirror_documents',
  'mirror_releases',
  'moderation_marks',
  'notification_optouts',
  'notifications_sent',
  'oidc_issuers',
  'passkeys',
  'pending_challenges',
  'platform_releases',
  'publish_jobs',
  'rate_limit_hits',
  'rating_reports',
  'rating_translations',
  'ratings',
  'recovery_codes',
  'release_databases',
  'release_download_days',
  'release_downloads',
  'release_external_apps',
  'release_licenses',
  'release_php_extensions',
  'release_shell_commands',
  'release_translations',
  'releases',
  'screenshot_copies',
  'sessions',
  'store_identity',
  'store_settings',
  'subscription_keys',
  'totp_secrets',
  'trusted_publishers',
  'used_id_tokens',
  'users',
];

describe(`migrations (${DIALECT})`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  before(async () => {
    database = await createTestDatabase();
    handle = await database.open({ migrate: false });
  });
  after(() => database.dispose());

  // Look at the current schema's catalogue only: an operator's database may hold other schemas.
  const ownTables = async (): Promise<string[]> => {
    const query =
      handle.dialect === 'postgres'
        ? sql<{
            name: string;
          }>`select table_name as name from information_schema.tables where table_schema = ${await currentSchema(handle)}`
        : sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`;
    return (await query.execute(handle.db)).rows
      .map((r) => r.name)
      .filter((name) => name !== 'appstore_migrations')
      .sort();
  };

  test('from empty: every table of the data model, then nothing more to apply', async () => {
    assert.deepEqual(await ownTables(), []);
    const first = await migrateToLatest(handle, new Date());
    assert.deepEqual(first.applied, [
      '0001-initial',
      '0002-account-links',
      '0003-listing-versions',
      '0004-listing-parts',
      '0005-operations',
      '0006-discover',
      '0007-external-apps',
      '0008-version-notifications',
      '0009-listing-part-integrity',
      '0010-mail-queue',
      '0011-developer-pages',
      '0012-command-line-certificates',
      '0013-app-icons',
      '0014-external-login',
      '0015-mirror',
      '0016-release-listing-text',
      '0017-icon-render-cost',
      '0018-transfer-unlock-time',
      '0019-username-case',
      '0020-mirror-recheck',
      '0021-kept-archives',
      '0022-download-days',
      '0023-app-status',
      '0024-notifications',
      '0025-subscription-keys',
      '0026-donations',
      '0027-scoped-tokens',
      '0028-trusted-publishing',
      '0029-two-factor',
      '0030-user-language',
      '0031-moderation',
      '0032-screenshot-copies',
      '0033-moderation-marks',
      '0034-start-up-indexes',
      '0035-inline-listing-texts',
    ]);
    const tables = await ownTables();
    assert.deepEqual(tables, TABLES);
    const second = await migrateToLatest(handle, new Date());
    assert.deepEqual(second.applied, []);
  });

  test('the content version starts at 1 with a random instance id, and survives re-migration', async () => {
    const row = await handle.db.selectFrom('content_version').selectAll().executeTakeFirstOrThrow();
    assert.equal(Number(row.version), 1);
    assert.match(row.instance_id, /^[0-9a-f]{12}$/);
    await migrateToLatest(handle, new Date());
    const again = await handle.db.selectFrom('content_version').selectAll().execute();
    assert.equal(again.length, 1);
    assert.equal(again[0]?.instance_id, row.instance_id);
  });

  test('booleans round-trip, releases are unique per (app, version, nightly), deletes cascade', async () => {
    const { db } = handle;
    const now = formatTimestamp(new Date());
    const user = await db
      .insertInto('users')
      .values({ username: 'alice', first_name: 'A', last_name: 'L', is_admin: true, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('apps')
      .values({
        id: 'news',
        owner_id: user.id,
        certificate: 'PEM',
        is_featured: true,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const app = await db.selectFrom('apps').select(['is_featured', 'is_enterprise_only']).executeTakeFirstOrThrow();
    assert.equal(toBool(app.is_featured), true);
    assert.equal(toBool(app.is_enterprise_only), false);
    const release = {
      app_id: 'news',
      version: '1.0.0',
      download: 'https://example.com/news.tar.gz',
      signature: 'sig',
      archive_sha256: 'ab',
      archive_size: 10,
      created_at: now,
      updated_at: now,
    };
    await db
      .insertInto('releases')
      .values({ ...release, is_nightly: false })
      .execute();
    await db
      .insertInto('releases')
      .values({ ...release, is_nightly: true })
      .execute();
    await assert.rejects(
      db
        .insertInto('releases')
        .values({ ...release, is_nightly: false })
        .execute(),
    );
    const stored = await db
      .selectFrom('releases')
      .select('id')
      .where('is_nightly', '=', true)
      .executeTakeFirstOrThrow();
    await db.insertInto('release_licenses').values({ release_id: stored.id, position: 0, license: 'agpl' }).execute();
    await db.deleteFrom('apps').where('id', '=', 'news').execute();
    assert.equal((await db.selectFrom('releases').selectAll().execute()).length, 0);
    assert.equal((await db.selectFrom('release_licenses').selectAll().execute()).length, 0);
  });

  test('a rating outside 0..1 is refused by the database itself', async () => {
    const { db } = handle;
    const now = formatTimestamp(new Date());
    const user = await db.selectFrom('users').select('id').executeTakeFirstOrThrow();
    await db
      .insertInto('apps')
      .values({ id: 'mail', owner_id: user.id, certificate: 'PEM', created_at: now, updated_at: now })
      .execute();
    await assert.rejects(
      db
        .insertInto('ratings')
        .values({ app_id: 'mail', user_id: user.id, rating: 1.5, rated_at: now, updated_at: now })
        .execute(),
    );
  });

  test('PostgreSQL keeps a listing text in its release row, and a saved part uncompressed outside it', async (t) => {
    if (DIALECT !== 'postgres') {
      t.skip('SQLite keeps rows whole');
      return;
    }
    const { db } = handle;
    const now = formatTimestamp(new Date());
    const user = await db.selectFrom('users').select('id').executeTakeFirstOrThrow();
    await db
      .insertInto('apps')
      .values({ id: 'inline', owner_id: user.id, certificate: 'PEM', created_at: now, updated_at: now })
      .execute();
    // As the bench's releases: a 684-character signature and a 1.3 KB text, over 2 KB together,
    // neither of which compresses (random base64, as signatures are).
    await db
      .insertInto('releases')
      .values({
        app_id: 'inline',
        version: '1.0.0',
        is_nightly: false,
        download: 'https://example.com/inline-1.0.0.tar.gz',
        signature: randomBytes(513).toString('base64'),
        archive_sha256: 'ab',
        archive_size: 10,
        created_at: now,
        updated_at: now,
        listing_text: Buffer.from(`{"version":"1.0.0","signature":"${randomBytes(975).toString('base64')}"}`),
        listing_text_format: 'test',
        listing_text_updated_at: now,
      })
      .execute();
    const toastRows = async (table: string): Promise<number> => {
      const { rows } = await sql<{ toast: string }>`select reltoastrelid::regclass::text as toast from pg_class
        where oid = ${table}::regclass`.execute(db);
      const toast = rows[0]?.toast ?? '';
      assert.match(toast, /^pg_toast\.pg_toast_\d+$/);
      const counted = await sql<{ n: string }>`select count(*) as n from ${sql.raw(toast)}`.execute(db);
      return Number(counted.rows[0]?.n);
    };
    assert.equal(await toastRows('releases'), 0, 'the text stays in the row');
    const { rows: storage } = await sql<{ attstorage: string }>`select attstorage from pg_attribute
      where attrelid = 'listing_parts'::regclass and attname = 'deflated'`.execute(db);
    assert.equal(storage[0]?.attstorage, 'e');
  });
});
