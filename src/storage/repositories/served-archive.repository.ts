import type { Kysely } from 'kysely';
import { downloadKey } from '../../domain/mirror/download-counts.ts';
import type { DownloadCounts } from '../../domain/mirror/download-counts.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';

/** A release whose archive this store serves (kept at publish, or taken from the upstream). */
export interface ServedArchive {
  readonly releaseId: number;
  readonly sha256: string;
  readonly size: number;
}

/** What the archive route reads and writes: where a release's archive is, and its download count. */
export function servedArchiveRepository(db: Kysely<Database>) {
  return {
    async find(appId: string, version: string, nightly: boolean): Promise<ServedArchive | null> {
      const row = await db
        .selectFrom('releases')
        .innerJoin('apps', 'apps.id', 'releases.app_id')
        .select(['releases.id', 'releases.archive_sha256', 'releases.archive_size'])
        .where('releases.app_id', '=', appId)
        .where('releases.version', '=', version)
        .where('releases.is_nightly', '=', nightly)
        .where((eb) => eb.or([eb('apps.source', '=', 'upstream'), eb('releases.developer_download', 'is not', null)]))
        .executeTakeFirst();
      return row === undefined
        ? null
        : { releaseId: Number(row.id), sha256: row.archive_sha256, size: Number(row.archive_size) };
    },
    /**
     * The download counts of the apps' releases, for the apps whose archives this store serves
     * (taken from the upstream); an app absent from the answer has its archives elsewhere.
     */
    async downloads(appIds: readonly string[]): Promise<DownloadCounts> {
      const counts = new Map<string, Map<string, number>>();
      if (appIds.length === 0) return counts;
      const rows = await db
        .selectFrom('releases')
        .innerJoin('apps', 'apps.id', 'releases.app_id')
        .leftJoin('release_downloads', 'release_downloads.release_id', 'releases.id')
        .select(['releases.app_id', 'releases.version', 'releases.is_nightly', 'release_downloads.count'])
        .where('releases.app_id', 'in', [...new Set(appIds)].slice(0, 1000))
        .where('apps.source', '=', 'upstream')
        .execute();
      for (const row of rows) {
        let app = counts.get(row.app_id);
        if (app === undefined) counts.set(row.app_id, (app = new Map()));
        app.set(downloadKey(row.version, toBool(row.is_nightly)), Number(row.count ?? 0));
      }
      return counts;
    },
    /** One more download of the release: a count, nothing about who (a release deleted meanwhile is not counted). */
    async countDownload(releaseId: number): Promise<void> {
      await db
        .insertInto('release_downloads')
        .values({ release_id: releaseId, count: 1 })
        .onConflict((oc) =>
          oc.column('release_id').doUpdateSet((eb) => ({ count: eb('release_downloads.count', '+', 1) })),
        )
        .execute()
        .catch(() => undefined);
    },
  };
}
