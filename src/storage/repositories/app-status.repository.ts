import type { Kysely, Transaction, UpdateResult } from 'kysely';
import type { AuditEntry } from '../../domain/audit/audit.ts';
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
      return listedChange(db, now, audit, appId, (trx) =>
        trx
          .updateTable('apps')
          .set(
            deprecation === null
              ? { deprecated_at: null, deprecation_reason: '', successor_id: '' }
              : {
                  deprecated_at: formatTimestamp(now),
                  deprecation_reason: deprecation.reason,
                  successor_id: deprecation.successor,
                },
          )
          .where('id', '=', appId)
          .executeTakeFirst(),
      );
    },

    async setOrphan(appId, orphan, now, audit) {
      const changed = await listedChange(db, now, audit, appId, (trx) =>
        trx
          .updateTable('apps')
          .set({ orphaned_at: orphan ? formatTimestamp(now) : null })
          .where('id', '=', appId)
          .where('orphaned_at', orphan ? 'is' : 'is not', null)
          .executeTakeFirst(),
      );
      // Already so: nothing changed, but the app is there.
      return (
        changed || (await db.selectFrom('apps').select('id').where('id', '=', appId).executeTakeFirst()) !== undefined
      );
    },

    async setRetired(target, retirement, now, audit) {
      return listedChange(db, now, audit, target.appId, (trx) =>
        trx
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
          .executeTakeFirst(),
      );
    },
  };
}

/**
 * One update of what the listings show of an app, in a write transaction that moves the content
 * version (and the app's listing) only when it changed a row; true when it did.
 */
async function listedChange(
  db: Kysely<Database>,
  now: Date,
  audit: AuditEntry,
  appId: string,
  update: (trx: Transaction<Database>) => Promise<UpdateResult>,
): Promise<boolean> {
  const { result } = await writeTransaction(
    db,
    now,
    async (trx) => {
      const changed = Number((await update(trx)).numUpdatedRows) > 0;
      if (changed) await markAppsChanged(trx, [appId]);
      return { changed, result: changed };
    },
    audit,
  );
  return result;
}
