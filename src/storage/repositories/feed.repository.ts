import type { Kysely } from 'kysely';
import type { FeedStore } from '../../domain/feeds/release-feed.ts';
import type { Donation } from '../../domain/releases/release-data.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';

/** The feeds' releases: the newest ones a query lets in, with their app's name and changelog in a language. */
export function feedRepository(db: Kysely<Database>): FeedStore {
  return {
    async donations(appId) {
      const row = await db.selectFrom('apps').select('donations').where('id', '=', appId).executeTakeFirst();
      try {
        const parsed = JSON.parse(row?.donations ?? '[]') as unknown;
        return Array.isArray(parsed) ? (parsed as Donation[]) : [];
      } catch {
        return [];
      }
    },
    async appExists(appId) {
      return (await db.selectFrom('apps').select('id').where('id', '=', appId).executeTakeFirst()) !== undefined;
    },
    async newestReleases(query, limit) {
      const rows = await db
        .selectFrom('releases')
        .select(['id', 'app_id', 'version', 'is_nightly', 'created_at', 'updated_at'])
        .where('retired_at', 'is', null)
        .$if(query.appId !== null, (q) => q.where('app_id', '=', query.appId ?? ''))
        .$if(!query.nightly, (q) => q.where('is_nightly', '=', false))
        // A pre-release has a hyphen in its version (1.2.0-beta.1): the only place one can be.
        .$if(!query.prerelease, (q) => q.where('version', 'not like', '%-%'))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      if (rows.length === 0) return [];
      const languages = [...new Set([query.language, 'en'])];
      const [names, changelogs, authors] = await Promise.all([
        db
          .selectFrom('app_translations')
          .select(['app_id', 'language', 'name'])
          .where('app_id', 'in', [...new Set(rows.map((r) => r.app_id))])
          .where('language', 'in', languages)
          .execute(),
        db
          .selectFrom('release_translations')
          .select(['release_id', 'language', 'changelog'])
          .where(
            'release_id',
            'in',
            rows.map((r) => r.id),
          )
          .where('language', 'in', languages)
          .execute(),
        db
          .selectFrom('app_authors')
          .select(['app_id', 'name'])
          .where('app_id', 'in', [...new Set(rows.map((r) => r.app_id))])
          .where('position', '=', 0)
          .execute(),
      ]);
      const pick = <T extends { language: string }>(list: readonly T[]): T | undefined =>
        list.find((t) => t.language === query.language) ?? list.find((t) => t.language === 'en');
      return rows.map((row) => ({
        appId: row.app_id,
        appName: pick(names.filter((n) => n.app_id === row.app_id))?.name ?? row.app_id,
        author: authors.find((a) => a.app_id === row.app_id)?.name ?? '',
        version: row.version,
        nightly: toBool(row.is_nightly),
        changelog: pick(changelogs.filter((c) => Number(c.release_id) === Number(row.id)))?.changelog ?? '',
        created: row.created_at,
        updated: row.updated_at,
      }));
    },
  };
}
