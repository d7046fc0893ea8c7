import type { Kysely } from 'kysely';
import type { KeyRotationStore } from '../../domain/identity/rotate-secret-key.ts';
import type { IdentityStore, StoredAuthority } from '../../domain/identity/store-identity.ts';
import type { AuditEntry } from '../../domain/audit/audit.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import type { Database } from '../schema.ts';
import { insertAudit } from '../audit-row.ts';
import { auditedWrite } from './audit.repository.ts';

/** The one row of `store_identity`: the secret key's fingerprint and the store's own authority. */
export function identityRepository(db: Kysely<Database>): IdentityStore & KeyRotationStore {
  return {
    async claimFingerprint(fingerprint, now) {
      const recorded = () =>
        db.selectFrom('store_identity').select('key_fingerprint').where('id', '=', 1).executeTakeFirst();
      // Read first: every start and every command checks, and only the first ever needs to write.
      const known = await recorded();
      if (known !== undefined) return known.key_fingerprint;
      const at = formatTimestamp(now);
      await db
        .insertInto('store_identity')
        .values({ id: 1, key_fingerprint: fingerprint, created_at: at, updated_at: at })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      const row = await db
        .selectFrom('store_identity')
        .select('key_fingerprint')
        .where('id', '=', 1)
        .executeTakeFirstOrThrow();
      return row.key_fingerprint;
    },

    async readFingerprint() {
      const row = await db
        .selectFrom('store_identity')
        .select('key_fingerprint')
        .where('id', '=', 1)
        .executeTakeFirst();
      return row?.key_fingerprint ?? null;
    },

    async readAuthority() {
      const row = await db
        .selectFrom('store_identity')
        .select(['authority_certificate', 'authority_key', 'retired_authorities'])
        .where('id', '=', 1)
        .executeTakeFirst();
      if (row === undefined || row.authority_certificate === null || row.authority_key === null) return null;
      return {
        certificatePem: row.authority_certificate,
        sealedKey: row.authority_key,
        retiredPem: row.retired_authorities,
      };
    },

    storeAuthorityIfNone: (authority, now, audit) => writeAuthority(db, authority, now, audit, null),
    replaceAuthority: (current, authority, now, audit) => writeAuthority(db, authority, now, audit, current),

    async rotateKey(from, to, plan, now, audit) {
      return db.transaction().execute(async (trx) => {
        // First the guard, which also locks the row (PostgreSQL) or the database (SQLite).
        const claimed = await trx
          .updateTable('store_identity')
          .set({ key_fingerprint: to, updated_at: formatTimestamp(now) })
          .where('id', '=', 1)
          .where('key_fingerprint', '=', from)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) === 0) return null;
        const identity = await trx
          .selectFrom('store_identity')
          .selectAll()
          .where('id', '=', 1)
          .executeTakeFirstOrThrow();
        let tokens = 0;
        let dropped = 0;
        for (const row of await trx.selectFrom('api_tokens').select(['user_id', 'encrypted_token']).execute()) {
          const next = plan.token(Number(row.user_id), row.encrypted_token);
          if (next === null) {
            dropped++;
            await trx.deleteFrom('api_tokens').where('user_id', '=', row.user_id).execute();
          } else {
            tokens++;
            await trx
              .updateTable('api_tokens')
              .set({ lookup_hash: next.lookupHash, encrypted_token: next.sealed })
              .where('user_id', '=', row.user_id)
              .execute();
          }
        }
        if (identity.authority_certificate !== null && identity.authority_key !== null) {
          const resealed = plan.authority({
            certificatePem: identity.authority_certificate,
            sealedKey: identity.authority_key,
            retiredPem: identity.retired_authorities,
          });
          await trx
            .updateTable('store_identity')
            .set({ authority_key: resealed.sealedKey })
            .where('id', '=', 1)
            .execute();
        }
        const sessions = Number((await trx.deleteFrom('sessions').executeTakeFirst()).numDeletedRows);
        const links = Number((await trx.deleteFrom('account_links').executeTakeFirst()).numDeletedRows);
        await insertAudit(trx, audit, now);
        return { tokens, dropped, sessions, links };
      });
    },
  };
}

/** Stores the authority where the stored certificate is `expected` (null: none yet); false when it was not. */
function writeAuthority(
  db: Kysely<Database>,
  authority: StoredAuthority,
  now: Date,
  audit: AuditEntry,
  expected: string | null,
): Promise<boolean> {
  return auditedWrite(db, audit, now, async (trx) => {
    const result = await trx
      .updateTable('store_identity')
      .set({
        authority_certificate: authority.certificatePem,
        authority_key: authority.sealedKey,
        retired_authorities: authority.retiredPem,
        updated_at: formatTimestamp(now),
      })
      .where('id', '=', 1)
      .where('authority_certificate', expected === null ? 'is' : '=', expected)
      .executeTakeFirst();
    const written = Number(result.numUpdatedRows) > 0;
    return { changed: written, result: written };
  });
}
