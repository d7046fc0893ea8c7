import type { Kysely } from 'kysely';
import { downloadKey } from '../../domain/archives/download-counts.ts';
import type { DownloadCounts } from '../../domain/archives/download-counts.ts';
import type { DownloadCountStore } from '../../domain/archives/download-counter.ts';
import type { DownloadStatsStore } from '../../domain/apps/app-downloads.ts';
import type { ReleaseDownloads } from '../../domain/archives/download-counts.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';
import { servedHere } from './served-archive.repository.ts';

/** Download counts: written in batches (download-counter.ts), read by the API and the pages. */
export function downloadStatsRepository(db: Kysely<Database>): DownloadCountStore & DownloadStatsStore {
  return {
    async add(batch) {
      // One order everywhere, so that two nodes' batches never wait on each other in a circle.
      const sorted = [...batch].sort((a, b) => a.releaseId - b.releaseId || (a.day < b.day ? -1 : 1));
      await db.transaction().execute(async (trx) => {
        for (const entry of sorted) {
          // From `releases`: a release deleted since its download is not counted (no row to name).
          await trx
            .insertInto('release_download_days')
            .columns(['release_id', 'day', 'count'])
            .expression(
              trx
                .selectFrom('releases')
                .select((eb) => ['id', eb.val(entry.day).as('day'), eb.val(entry.count).as('count')])
                .where('id', '=', entry.releaseId),
            )
            .onConflict((oc) =>
              oc
                .columns(['release_id', 'day'])
                .doUpdateSet((eb) => ({ count: eb('release_download_days.count', '+', eb.ref('excluded.count')) })),
            )
            .execute();
        }
        const totals = new Map<number, number>();
        for (const entry of sorted) totals.set(entry.releaseId, (totals.get(entry.releaseId) ?? 0) + entry.count);
        for (const [releaseId, count] of totals) {
          await trx
            .insertInto('release_downloads')
            .columns(['release_id', 'count'])
            .expression(
              trx
                .selectFrom('releases')
                .select((eb) => ['id', eb.val(count).as('count')])
                .where('id', '=', releaseId),
            )
            .onConflict((oc) =>
              oc
                .column('release_id')
                .doUpdateSet((eb) => ({ count: eb('release_downloads.count', '+', eb.ref('excluded.count')) })),
            )
            .execute();
        }
      });
    },

    async counts(appIds): Promise<DownloadCounts> {
      const counts = new Map<string, Map<string, number>>();
      if (appIds.length === 0) return counts;
      const rows = await db
        .selectFrom('releases')
        .innerJoin('apps', 'apps.id', 'releases.app_id')
        .leftJoin('release_downloads', 'release_downloads.release_id', 'releases.id')
        .select(['releases.app_id', 'releases.version', 'releases.is_nightly', 'release_downloads.count'])
        .where('releases.app_id', 'in', [...new Set(appIds)].slice(0, 1000))
        .where(servedHere)
        .execute();
      for (const row of rows) {
        let app = counts.get(row.app_id);
        if (app === undefined) counts.set(row.app_id, (app = new Map()));
        app.set(downloadKey(row.version, toBool(row.is_nightly)), Number(row.count ?? 0));
      }
      return counts;
    },

    async releaseDownloads(appId, sinceDay): Promise<ReleaseDownloads[]> {
      const rows = await db
        .selectFrom('releases')
        .innerJoin('apps', 'apps.id', 'releases.app_id')
        .leftJoin('release_downloads', 'release_downloads.release_id', 'releases.id')
        .select((eb) => [
          'releases.id',
          'releases.version',
          'releases.is_nightly',
          'releases.download',
          'release_downloads.count',
          servedHere(eb).as('served'),
        ])
        .where('releases.app_id', '=', appId)
        .execute();
      const days = new Map<number, { day: string; count: number }[]>();
      if (sinceDay !== null && rows.length > 0) {
        const dayRows = await db
          .selectFrom('release_download_days')
          .select(['release_id', 'day', 'count'])
          .where(
            'release_id',
            'in',
            rows.map((r) => Number(r.id)),
          )
          .where('day', '>=', sinceDay)
          .orderBy('day')
          .execute();
        for (const row of dayRows) {
          const list = days.get(Number(row.release_id)) ?? [];
          list.push({ day: row.day, count: Number(row.count) });
          days.set(Number(row.release_id), list);
        }
      }
      return rows.map((row) => ({
        version: row.version,
        nightly: toBool(row.is_nightly),
        download: row.download,
        served: toBool(row.served),
        total: Number(row.count ?? 0),
        days: days.get(Number(row.id)) ?? [],
      }));
    },
  };
}
