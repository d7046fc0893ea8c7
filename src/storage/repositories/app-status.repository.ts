import type { Kysely } from 'kysely';
import type { AppStatusStore, RetirementReason } from '../../domain/apps/app-status.ts';
import { RETIREMENT_REASONS } from '../../domain/apps/app-status.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';
import { writeTransaction } from '../write-transaction.ts';
import { markAppsChanged } from './content-version.repository.ts';

const asReason = (value: string): RetirementReason => RETIREMENT_REASONS.find((r) => r === value) ?? 'other';

/** Deprecation, orphaning and retired releases: each a write that moves the listings (their fields change). */
export function appStatusRepository(db: Kysely<Database>): AppStatusStore {
  return {
    async status(appId) {
      const [app, retired] = await Promise.all([
        db
          .selectFrom('apps')
          .select(['deprecated_at', 'deprecation_reason', 'successor_id', 'orphaned_at'])
          .where('id', '=', appId)
          .executeTakeFirst(),
        db
          .selectFrom('releases')
          .select(['version', 'is_nightly', 'retirement_reason', 'retirement_note', 'retired_at'])
          .where('app_id', '=', appId)
          .where('retired_at', 'is not', null)
          .orderBy('retired_at', 'desc')
          .execute(),
      ]);
      return {
        deprecated:
          app?.deprecated_at === null || app === undefined
            ? null
            : { at: app.deprecated_at, reason: app.deprecation_reason, successor: app.successor_id },
        orphanedSince: app?.orphaned_at ?? null,
        retired: retired.map((r) => ({
          version: r.version,
          nightly: toBool(r.is_nightly),
          reason: asReason(r.retirement_reason),
          note: r.retirement_note,
          at: r.retired_at ?? '',
        })),
      };
    },

    async setDeprecation(appId, deprecation, now, audit) {
      const at = formatTimestamp(now);
      const { result } = await writeTransaction(
        db,
        now,
        async (trx) => {
          const updated = await trx
            .updateTable('apps')
            .set(
              deprecation === null
                ? { deprecated_at: null, deprecation_reason: '', successor_id: '' }
                : { deprecated_at: at, deprecation_reason: deprecation.reason, successor_id: deprecation.successor },
            )
            .where('id', '=', appId)
            .executeTakeFirst();
          const found = Number(updated.numUpdatedRows) > 0;
          if (found) await markAppsChanged(trx, [appId]);
          return { changed: found, result: found };
        },
        audit,
      );
      return result;
    },

    async setOrphan(appId, orphan, now, audit) {
      const { result } = await writeTransaction(
        db,
        now,
        async (trx) => {
          const updated = await trx
            .updateTable('apps')
            .set({ orphaned_at: orphan ? formatTimestamp(now) : null })
            .where('id', '=', appId)
            .$if(orphan, (q) => q.where('orphaned_at', 'is', null))
            .executeTakeFirst();
          const changed = Number(updated.numUpdatedRows) > 0;
          if (changed) await markAppsChanged(trx, [appId]);
          // Already so: nothing changes, but the app is there.
          const exists =
            changed ||
            (await trx.selectFrom('apps').select('id').where('id', '=', appId).executeTakeFirst()) !== undefined;
          return { changed, result: exists };
        },
        audit,
      );
      return result;
    },

    async setRetired(target, retirement, now, audit) {
      const { result } = await writeTransaction(
        db,
        now,
        async (trx) => {
          const updated = await trx
            .updateTable('releases')
            .set(
              retirement === null
                ? { retired_at: null, retirement_reason: '', retirement_note: '' }
                : {
                    retired_at: formatTimestamp(now),
                    retirement_reason: retirement.reason,
                    retirement_note: retirement.note,
                  },
            )
            .where('app_id', '=', target.appId)
            .where('version', '=', target.version)
            .where('is_nightly', '=', target.nightly)
            .where('retired_at', retirement === null ? 'is not' : 'is', null)
            .executeTakeFirst();
          const changed = Number(updated.numUpdatedRows) > 0;
          if (changed) await markAppsChanged(trx, [target.appId]);
          return { changed, result: changed };
        },
        audit,
      );
      return result;
    },
  };
}
