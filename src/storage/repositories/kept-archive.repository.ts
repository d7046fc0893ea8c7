import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { KeepStore } from '../../domain/archives/keep-archives.ts';
import type { ArchiveReferences } from '../../domain/archives/kept-archives.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';
import { writeTransaction } from '../write-transaction.ts';
import { markAppsChanged } from './content-version.repository.ts';
import { servedHere } from './served-archive.repository.ts';

/** Which releases name which archives, and the kept releases' URLs (domain/archives). */
export function keptArchiveRepository(db: Kysely<Database>): ArchiveReferences & KeepStore {
  /** The copies of screenshots an app lists now (issue 54): others are orphans, pruned like archives. */
  const listedCopies = () =>
    db
      .selectFrom('screenshot_copies')
      .innerJoin('app_screenshots', 'app_screenshots.url', 'screenshot_copies.url')
      .select(['screenshot_copies.sha256', 'screenshot_copies.thumbnail_sha256']);
  return {
    async unreferenced(sha256s) {
      const named = new Set<string>();
      for (let i = 0; i < sha256s.length; i += 500) {
        const batch = sha256s.slice(i, i + 500);
        const rows = await db
          .selectFrom('releases')
          .select('archive_sha256')
          .where('archive_sha256', 'in', batch)
          .execute();
        for (const row of rows) named.add(row.archive_sha256);
        // Screenshot copies and their thumbnails live in the same storage (issue 54).
        const shots = await listedCopies()
          .where((eb) =>
            eb.or([eb('screenshot_copies.sha256', 'in', batch), eb('screenshot_copies.thumbnail_sha256', 'in', batch)]),
          )
          .execute();
        for (const shot of shots)
          for (const hash of [shot.sha256, shot.thumbnail_sha256]) if (hash !== null) named.add(hash);
      }
      return sha256s.filter((sha256) => !named.has(sha256));
    },
    async ofApp(appId) {
      const rows = await db.selectFrom('releases').select('archive_sha256').where('app_id', '=', appId).execute();
      return rows.map((row) => row.archive_sha256);
    },
    async served() {
      const rows = await db
        .selectFrom('releases')
        .innerJoin('apps', 'apps.id', 'releases.app_id')
        .select('releases.archive_sha256')
        .where(servedHere)
        .execute();
      return new Set(rows.map((row) => row.archive_sha256));
    },
    async all() {
      const [rows, shots] = await Promise.all([
        db.selectFrom('releases').select('archive_sha256').distinct().execute(),
        listedCopies().execute(),
      ]);
      const named = new Set(rows.map((row) => row.archive_sha256));
      for (const shot of shots)
        for (const hash of [shot.sha256, shot.thumbnail_sha256]) if (hash !== null) named.add(hash);
      return named;
    },

    async unkept(appId) {
      let query = db
        .selectFrom('releases')
        .innerJoin('apps', 'apps.id', 'releases.app_id')
        .select([
          'releases.id',
          'releases.app_id',
          'releases.version',
          'releases.is_nightly',
          'releases.download',
          'releases.archive_sha256',
          'releases.archive_size',
        ])
        .where('apps.source', '=', '')
        .where('releases.developer_download', 'is', null);
      if (appId !== null) query = query.where('releases.app_id', '=', appId);
      const rows = await query.orderBy('releases.app_id').orderBy('releases.id').execute();
      return rows.map((row) => ({
        id: Number(row.id),
        appId: row.app_id,
        version: row.version,
        nightly: toBool(row.is_nightly),
        download: row.download,
        sha256: row.archive_sha256,
        size: Number(row.archive_size),
      }));
    },
    async markKept(release, url, now) {
      const { result } = await writeTransaction(db, now, async (trx) => {
        const updated = await trx
          .updateTable('releases')
          .set({ download: url, developer_download: release.download, listing_text: null })
          .where('id', '=', release.id)
          .where('archive_sha256', '=', release.sha256)
          .where('download', '=', release.download)
          .where('developer_download', 'is', null)
          .executeTakeFirst();
        const changed = Number(updated.numUpdatedRows) > 0;
        if (changed) await markAppsChanged(trx, [release.appId]);
        return { changed, result: changed };
      });
      return result;
    },
    async keptElsewhere(base) {
      // At every start: only the rows a new public URL moves are read (usually none).
      const rows = await db
        .selectFrom('releases')
        .select(['id', 'app_id', 'version', 'is_nightly', 'download'])
        .where('developer_download', 'is not', null)
        .where(sql<boolean>`substr(download, 1, ${base.length}) <> ${base}`)
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        appId: row.app_id,
        version: row.version,
        nightly: toBool(row.is_nightly),
        download: row.download,
      }));
    },
    async moveKept(moves, now) {
      await writeTransaction(db, now, async (trx) => {
        const apps = new Set<string>();
        for (const move of moves) {
          const row = await trx
            .updateTable('releases')
            .set({ download: move.download, listing_text: null })
            .where('id', '=', move.id)
            .where('developer_download', 'is not', null)
            .returning('app_id')
            .executeTakeFirst();
          if (row !== undefined) apps.add(row.app_id);
        }
        await markAppsChanged(trx, [...apps]);
        return { changed: apps.size > 0, result: null };
      });
    },
  };
}
