import type { Kysely } from 'kysely';
import type { NotificationStore } from '../../domain/notifications/notification-look.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';

/** Who turned which notifications off, what the looks sent already, and what they look at. */
export function notificationRepository(db: Kysely<Database>): NotificationStore {
  return {
    async optedOut(userId) {
      const rows = await db.selectFrom('notification_optouts').select('kind').where('user_id', '=', userId).execute();
      return new Set(rows.map((r) => r.kind));
    },
    async setOptedOut(userId, kinds) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('notification_optouts').where('user_id', '=', userId).execute();
        if (kinds.length > 0)
          await trx
            .insertInto('notification_optouts')
            .values(kinds.map((kind) => ({ user_id: userId, kind })))
            .execute();
      });
    },
    async markSent(key, now) {
      const inserted = await db
        .insertInto('notifications_sent')
        .values({ key, sent_at: formatTimestamp(now) })
        .onConflict((oc) => oc.column('key').doNothing())
        .executeTakeFirst();
      return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
    async maintainedApps() {
      const [apps, maintainers, releases] = await Promise.all([
        db.selectFrom('apps').select(['id', 'owner_id', 'certificate']).where('source', '=', '').execute(),
        db.selectFrom('app_co_maintainers').select(['app_id', 'user_id']).execute(),
        db
          .selectFrom('releases')
          .select(['app_id', 'platform_version_spec', 'is_nightly'])
          .where('retired_at', 'is', null)
          .execute(),
      ]);
      return apps.map((app) => ({
        appId: app.id,
        certificate: app.certificate,
        maintainerIds: [
          Number(app.owner_id),
          ...maintainers.filter((m) => m.app_id === app.id).map((m) => Number(m.user_id)),
        ],
        platformSpecs: releases
          .filter((r) => r.app_id === app.id && !toBool(r.is_nightly))
          .map((r) => r.platform_version_spec),
      }));
    },
    async expiringTokens(from, until) {
      const rows = await db
        .selectFrom('access_tokens')
        .select(['id', 'user_id', 'name', 'expires_at'])
        .where('kind', '=', 'personal')
        .where('expires_at', '>', formatTimestamp(from))
        .where('expires_at', '<=', formatTimestamp(until))
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        userId: Number(row.user_id),
        name: row.name,
        expiresAt: parseTimestamp(row.expires_at),
      }));
    },

    async newestMajor() {
      const rows = await db
        .selectFrom('platform_releases')
        .select(['version_major', 'created_at'])
        .where('is_supported', '=', true)
        .execute();
      if (rows.length === 0) return null;
      const major = Math.max(...rows.map((r) => Number(r.version_major)));
      const since = rows
        .filter((r) => Number(r.version_major) === major)
        .map((r) => r.created_at)
        .sort()[0];
      return since === undefined ? null : { major, since };
    },
  };
}
