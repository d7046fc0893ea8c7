import type { ExpressionBuilder, Kysely } from 'kysely';
import type { Database } from '../schema.ts';

/**
 * Whether the store serves a release's archive (kept or uploaded here, or taken from an upstream):
 * the one condition the archive route, the download counts and the archives check share.
 */
export const servedHere = (eb: ExpressionBuilder<Database, 'apps' | 'releases'>) =>
  eb.or([eb('apps.source', '=', 'upstream'), eb('releases.developer_download', 'is not', null)]);

/** A release whose archive this store serves (kept at publish, or taken from the upstream). */
export interface ServedArchive {
  readonly releaseId: number;
  readonly sha256: string;
  readonly size: number;
  /** Why its developer retired it (issue 52); null when it is offered. */
  readonly retired: string | null;
}

/** What the archive route reads: where a release's archive is. */
export function servedArchiveRepository(db: Kysely<Database>) {
  return {
    async find(appId: string, version: string, nightly: boolean): Promise<ServedArchive | null> {
      const row = await db
        .selectFrom('releases')
        .innerJoin('apps', 'apps.id', 'releases.app_id')
        .select([
          'releases.id',
          'releases.archive_sha256',
          'releases.archive_size',
          'releases.retired_at',
          'releases.retirement_reason',
        ])
        .where('releases.app_id', '=', appId)
        .where('releases.version', '=', version)
        .where('releases.is_nightly', '=', nightly)
        .where(servedHere)
        .executeTakeFirst();
      return row === undefined
        ? null
        : {
            releaseId: Number(row.id),
            sha256: row.archive_sha256,
            size: Number(row.archive_size),
            retired: row.retired_at === null ? null : row.retirement_reason,
          };
    },
  };
}
