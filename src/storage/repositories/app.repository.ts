import type { Kysely, Transaction } from 'kysely';
import type { AppRegistry, AppSummary, RegisteredApp, RegistrationPlan } from '../../domain/apps/app-registry.ts';
import { isUniqueViolation } from '../database-errors.ts';
import { toBool } from '../schema.ts';
import type { Database } from '../schema.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import { deleteInWriteTransaction, writeTransaction } from '../write-transaction.ts';
import { auditedWrite } from './audit.repository.ts';
import { markAppsChanged } from './content-version.repository.ts';

/** The app with its co-maintainers, or null; inside a write transaction, as it is for every writer. */
export async function readRegisteredApp(
  db: Kysely<Database> | Transaction<Database>,
  appId: string,
): Promise<RegisteredApp | null> {
  const row = await db
    .selectFrom('apps')
    .select([
      'id',
      'owner_id',
      'certificate',
      'transfer_unlocked',
      'transfer_unlocked_at',
      'is_featured',
      'is_enterprise_only',
      'source',
    ])
    .where('id', '=', appId)
    .executeTakeFirst();
  if (row === undefined) return null;
  const maintainers = await db
    .selectFrom('app_co_maintainers')
    .select('user_id')
    .where('app_id', '=', appId)
    .orderBy('user_id')
    .execute();
  return {
    appId: row.id,
    ownerId: Number(row.owner_id),
    coMaintainerIds: maintainers.map((m) => Number(m.user_id)),
    certificate: row.certificate,
    transferUnlocked: toBool(row.transfer_unlocked),
    transferUnlockedAt: row.transfer_unlocked_at === null ? null : parseTimestamp(row.transfer_unlocked_at),
    isFeatured: toBool(row.is_featured),
    isEnterpriseOnly: toBool(row.is_enterprise_only),
    fromUpstream: row.source === 'upstream',
  };
}

/** Apps: registration, co-maintainers, flags and deletion (releases and ratings go with the app). */
export function appRepository(db: Kysely<Database>): AppRegistry {
  const register: AppRegistry['register'] = async (appId, certificate, userId, plan, now, audit) => {
    const at = formatTimestamp(now);
    const { result } = await writeTransaction<RegistrationPlan>(
      db,
      now,
      async (trx) => {
        const existing = await readRegisteredApp(trx, appId);
        const decided = plan(existing);
        if (decided.kind === 'create') {
          await trx
            .insertInto('apps')
            .values({ id: appId, owner_id: userId, certificate, created_at: at, updated_at: at })
            .execute();
          // Until its first release the app's texts are its id, as in the original store.
          await trx
            .insertInto('app_translations')
            .values({ app_id: appId, language: 'en', name: appId, summary: appId, description: appId })
            .execute();
          return { changed: true, result: decided };
        }
        if (decided.changed) {
          await trx
            .updateTable('apps')
            .set({
              owner_id: decided.ownerId,
              certificate,
              transfer_unlocked: false,
              transfer_unlocked_at: null,
              updated_at: at,
            })
            .where('id', '=', appId)
            .execute();
          // Their signatures were made with the old key: they cannot be verified any more.
          if (decided.certificateChanged) await trx.deleteFrom('releases').where('app_id', '=', appId).execute();
          // A new owner decides anew which CI may publish the app: the old owner's choices end.
          if (existing !== null && decided.ownerId !== existing.ownerId)
            await trx.deleteFrom('trusted_publishers').where('app_id', '=', appId).execute();
          await markAppsChanged(trx, [appId]);
        }
        return { changed: decided.changed, result: decided };
      },
      audit,
    );
    return result;
  };

  return {
    findApp: (appId) => readRegisteredApp(db, appId),

    async listApps(filter) {
      let query = db
        .selectFrom('apps')
        .innerJoin('users', 'users.id', 'apps.owner_id')
        .select([
          'apps.id',
          'apps.owner_id',
          'apps.certificate',
          'apps.transfer_unlocked',
          'apps.transfer_unlocked_at',
          'apps.is_featured',
          'apps.is_enterprise_only',
          'apps.created_at',
          'apps.source',
          'users.username',
        ]);
      const { userId, appId } = filter;
      if (appId !== undefined) query = query.where('apps.id', '=', appId);
      if (userId !== undefined) {
        query = query.where((eb) =>
          eb.or([
            eb('apps.owner_id', '=', userId),
            eb('apps.id', 'in', eb.selectFrom('app_co_maintainers').select('app_id').where('user_id', '=', userId)),
          ]),
        );
      }
      const rows = await query.orderBy('apps.id').execute();
      const ids = rows.map((row) => row.id);
      const maintainers =
        ids.length === 0
          ? []
          : await db
              .selectFrom('app_co_maintainers')
              .innerJoin('users', 'users.id', 'app_co_maintainers.user_id')
              .select(['app_co_maintainers.app_id', 'users.id', 'users.username'])
              .where('app_co_maintainers.app_id', 'in', ids)
              .orderBy('users.username')
              .execute();
      return rows.map((row): AppSummary => {
        const mine = maintainers
          .filter((m) => m.app_id === row.id)
          .map((m) => ({ id: Number(m.id), username: m.username }));
        return {
          appId: row.id,
          ownerId: Number(row.owner_id),
          ownerName: row.username,
          coMaintainerIds: mine.map((m) => m.id),
          coMaintainers: mine,
          certificate: row.certificate,
          transferUnlocked: toBool(row.transfer_unlocked),
          transferUnlockedAt: row.transfer_unlocked_at === null ? null : parseTimestamp(row.transfer_unlocked_at),
          isFeatured: toBool(row.is_featured),
          isEnterpriseOnly: toBool(row.is_enterprise_only),
          fromUpstream: row.source === 'upstream',
          createdAt: parseTimestamp(row.created_at),
        };
      });
    },

    async register(appId, certificate, userId, plan, now, audit) {
      try {
        return await register(appId, certificate, userId, plan, now, audit);
      } catch (error) {
        // Two first registrations of one id at once: the loser now sees the app and is judged again.
        if (!isUniqueViolation(error)) throw error;
        return register(appId, certificate, userId, plan, now, audit);
      }
    },

    async addCoMaintainer(appId, userId, now, audit) {
      const { result } = await writeTransaction(
        db,
        now,
        async (trx) => {
          const inserted = await trx
            .insertInto('app_co_maintainers')
            .values({ app_id: appId, user_id: userId, created_at: formatTimestamp(now) })
            .onConflict((oc) => oc.columns(['app_id', 'user_id']).doNothing())
            .executeTakeFirst();
          const added = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
          return { changed: added, result: added };
        },
        audit,
      );
      return result;
    },

    removeCoMaintainer: (appId, userId, now, audit) =>
      deleteInWriteTransaction(
        db,
        now,
        (trx) =>
          trx
            .deleteFrom('app_co_maintainers')
            .where('app_id', '=', appId)
            .where('user_id', '=', userId)
            .executeTakeFirst(),
        audit,
      ),

    async setFlags(appId, flags, now, audit) {
      const { result } = await writeTransaction(
        db,
        now,
        async (trx) => {
          const app = await readRegisteredApp(trx, appId);
          const featured = flags.featured ?? app?.isFeatured;
          const enterprise = flags.enterpriseOnly ?? app?.isEnterpriseOnly;
          const changed = app !== null && (featured !== app.isFeatured || enterprise !== app.isEnterpriseOnly);
          if (changed) {
            await trx
              .updateTable('apps')
              .set({
                is_featured: featured ?? false,
                is_enterprise_only: enterprise ?? false,
                updated_at: formatTimestamp(now),
              })
              .where('id', '=', appId)
              .execute();
            await markAppsChanged(trx, [appId]);
          }
          return { changed, result: changed };
        },
        audit,
      );
      return result;
    },

    async setTransferUnlocked(appId, unlocked, now, audit) {
      return auditedWrite(db, audit, now, async (trx) => {
        const at = formatTimestamp(now);
        const updated = await trx
          .updateTable('apps')
          .set({ transfer_unlocked: unlocked, transfer_unlocked_at: unlocked ? at : null, updated_at: at })
          .where('id', '=', appId)
          .where('transfer_unlocked', '=', !unlocked)
          .executeTakeFirst();
        const changed = Number(updated.numUpdatedRows) > 0;
        return { changed, result: changed };
      });
    },

    deleteApp: (appId, now, audit) =>
      deleteInWriteTransaction(
        db,
        now,
        (trx) => trx.deleteFrom('apps').where('id', '=', appId).executeTakeFirst(),
        audit,
      ),
  };
}
