import type { Kysely, Transaction } from 'kysely';
import { parsePlatformVersion } from '../../domain/versions/semantic-version.ts';
import type { PlatformRelease } from '../../domain/catalog/catalog.ts';
import type { ImportSummary } from '../../domain/catalog/import-catalog.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import { writeTransaction } from '../write-transaction.ts';
import type { AuditOf } from '../write-transaction.ts';

export async function listPlatformReleases(
  db: Kysely<Database>,
  options: { supportedOnly: boolean },
): Promise<PlatformRelease[]> {
  let query = db
    .selectFrom('platform_releases')
    .select(['version', 'has_release', 'is_supported'])
    .orderBy('version_major', 'desc')
    .orderBy('version_minor', 'desc')
    .orderBy('version_patch', 'desc');
  if (options.supportedOnly) query = query.where('is_supported', '=', true);
  const rows = await query.execute();
  return rows.map((r) => ({
    version: r.version,
    hasRelease: toBool(r.has_release),
    isSupported: toBool(r.is_supported),
  }));
}

/** Creates or updates the given platform releases; others stay. Nothing is written when nothing differs. */
export async function upsertPlatformReleases(
  db: Kysely<Database>,
  releases: readonly PlatformRelease[],
  at: Date,
  audit: AuditOf<ImportSummary> | null = null,
): Promise<ImportSummary> {
  const { result } = await writeTransaction(
    db,
    at,
    async (trx) => {
      const summary = await writePlatformReleases(trx, releases, at);
      return { changed: summary.created + summary.updated > 0, result: summary };
    },
    audit,
  );
  return result;
}

/** upsertPlatformReleases' writes, inside the caller's write transaction. */
export async function writePlatformReleases(
  trx: Transaction<Database>,
  releases: readonly PlatformRelease[],
  at: Date,
): Promise<ImportSummary> {
  const existing = new Map((await listPlatformReleases(trx, { supportedOnly: false })).map((r) => [r.version, r]));
  const now = formatTimestamp(at);
  let created = 0;
  let updated = 0;
  for (const release of releases) {
    const before = existing.get(release.version);
    if (before === undefined) {
      const [major = 0, minor = 0, patch = 0] = parsePlatformVersion(release.version) ?? [];
      await trx
        .insertInto('platform_releases')
        .values({
          version: release.version,
          version_major: major,
          version_minor: minor,
          version_patch: patch,
          has_release: release.hasRelease,
          is_supported: release.isSupported,
          created_at: now,
          updated_at: now,
        })
        .execute();
      created += 1;
    } else if (before.hasRelease !== release.hasRelease || before.isSupported !== release.isSupported) {
      await trx
        .updateTable('platform_releases')
        .set({ has_release: release.hasRelease, is_supported: release.isSupported, updated_at: now })
        .where('version', '=', release.version)
        .execute();
      updated += 1;
    }
  }
  return { created, updated, unchanged: releases.length - created - updated };
}
