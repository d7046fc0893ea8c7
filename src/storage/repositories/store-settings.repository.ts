import type { Kysely } from 'kysely';
import type { StoreSettings } from '../../domain/identity/request-certificate.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import type { Database } from '../schema.ts';
import { auditedWrite } from './audit.repository.ts';

/** The store's settings that administrators change on the admin pages. */
export function storeSettingsRepository(db: Kysely<Database>): StoreSettings {
  return {
    async get(name) {
      const row = await db.selectFrom('store_settings').select('value').where('name', '=', name).executeTakeFirst();
      return row?.value ?? null;
    },
    async set(name, value, now, audit) {
      const at = formatTimestamp(now);
      await auditedWrite(db, audit, now, async (trx) => {
        const before = await trx
          .selectFrom('store_settings')
          .select('value')
          .where('name', '=', name)
          .executeTakeFirst();
        if (before?.value === value) return { changed: false, result: undefined };
        await trx
          .insertInto('store_settings')
          .values({ name, value, updated_at: at })
          .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: at }))
          .execute();
        return { changed: true, result: undefined };
      });
    },
  };
}
