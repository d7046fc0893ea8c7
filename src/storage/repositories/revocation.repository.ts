import type { Kysely } from 'kysely';
import type { RevocationStore } from '../../domain/certificates/revoke-certificate.ts';
import type { Database } from '../schema.ts';
import { auditedWrite } from './audit.repository.ts';
import { parseTimestamp, formatTimestamp } from '../../domain/timestamps.ts';

/** The store's own revocations: read at every certificate check, so they apply at once everywhere. */
export function revocationRepository(db: Kysely<Database>): RevocationStore {
  const findRevocation: RevocationStore['findRevocation'] = async (issuer, serial) => {
    const row = await db
      .selectFrom('certificate_revocations')
      .select('revoked_at')
      .where('issuer', '=', issuer)
      .where('serial', '=', serial)
      .executeTakeFirst();
    return row === undefined ? null : { revokedAt: parseTimestamp(row.revoked_at) };
  };

  return {
    findRevocation,
    async list(limit) {
      const rows = await db
        .selectFrom('certificate_revocations')
        .selectAll()
        .orderBy('revoked_at', 'desc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        issuer: row.issuer,
        serial: row.serial,
        revokedAt: parseTimestamp(row.revoked_at),
        reason: row.reason,
      }));
    },
    async revoke(issuer, serial, now, reason, audit) {
      const inserted = await auditedWrite(db, audit, now, async (trx) => {
        const result = await trx
          .insertInto('certificate_revocations')
          .values({ issuer, serial, revoked_at: formatTimestamp(now), reason })
          .onConflict((oc) => oc.columns(['issuer', 'serial']).doNothing())
          .executeTakeFirst();
        return { changed: Number(result.numInsertedOrUpdatedRows ?? 0) > 0, result };
      });
      const stored = await findRevocation(issuer, serial);
      if (stored === null) throw new Error('a revocation just written is missing');
      return { revokedAt: stored.revokedAt, alreadyRevoked: Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0 };
    },
  };
}
