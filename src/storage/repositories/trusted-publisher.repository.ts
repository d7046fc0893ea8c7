import type { Kysely, Selectable } from 'kysely';
import type { TrustedPublisherStore } from '../../domain/trusted-publishing/trusted-publishing.ts';
import type { PublisherProvider, TrustedPublisher } from '../../domain/trusted-publishing/publishers.ts';
import { formatTimestamp, parseTimestamp } from '../../domain/timestamps.ts';
import { isUniqueViolation } from '../database-errors.ts';
import type { Database, TrustedPublishersTable } from '../schema.ts';
import { auditedWrite } from './audit.repository.ts';

function toPublisher(row: Selectable<TrustedPublishersTable>): TrustedPublisher {
  return {
    id: Number(row.id),
    appId: row.app_id,
    provider: row.provider as PublisherProvider,
    issuer: row.issuer,
    repository: row.repository,
    repositoryId: row.repository_id,
    ownerId: row.owner_id,
    workflow: row.workflow,
    environment: row.environment,
    ref: row.ref,
    claims: row.claims === null ? null : (JSON.parse(row.claims) as Record<string, string>),
    createdAt: parseTimestamp(row.created_at),
    createdBy: row.created_by,
  };
}

/** Trusted publishers, allowed issuers and used ID tokens (migration 0028). */
export function trustedPublisherRepository(db: Kysely<Database>): TrustedPublisherStore {
  return {
    async add(publisher, createdBy, now, audit) {
      return auditedWrite(db, audit, now, async (trx) => {
        const row = await trx
          .insertInto('trusted_publishers')
          .values({
            app_id: publisher.appId,
            provider: publisher.provider,
            issuer: publisher.issuer,
            repository: publisher.repository,
            repository_id: publisher.repositoryId,
            owner_id: publisher.ownerId,
            workflow: publisher.workflow,
            environment: publisher.environment,
            ref: publisher.ref,
            claims: publisher.claims === null ? null : JSON.stringify(publisher.claims),
            created_at: formatTimestamp(now),
            created_by: createdBy,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        return { changed: true, result: Number(row.id) };
      });
    },

    async remove(appId, id, now, audit) {
      return auditedWrite(db, audit, now, async (trx) => {
        const result = await trx
          .deleteFrom('trusted_publishers')
          .where('id', '=', id)
          .where('app_id', '=', appId)
          .executeTakeFirst();
        const done = Number(result.numDeletedRows) > 0;
        return { changed: done, result: done };
      });
    },

    async ofApp(appId) {
      const rows = await db
        .selectFrom('trusted_publishers')
        .selectAll()
        .where('app_id', '=', appId)
        .orderBy('id')
        .execute();
      return rows.map(toPublisher);
    },

    async ofIssuer(issuer) {
      const rows = await db
        .selectFrom('trusted_publishers')
        .selectAll()
        .where('issuer', '=', issuer)
        .orderBy('id')
        .execute();
      return rows.map(toPublisher);
    },

    async pin(id, ids) {
      if (ids.repositoryId !== null)
        await db
          .updateTable('trusted_publishers')
          .set({ repository_id: ids.repositoryId })
          .where('id', '=', id)
          .where('repository_id', 'is', null)
          .execute();
      if (ids.ownerId !== null)
        await db
          .updateTable('trusted_publishers')
          .set({ owner_id: ids.ownerId })
          .where('id', '=', id)
          .where('owner_id', 'is', null)
          .execute();
    },

    async issuers() {
      const rows = await db.selectFrom('oidc_issuers').selectAll().orderBy('url').execute();
      return rows.map((row) => ({
        url: row.url,
        provider: row.provider as PublisherProvider,
        name: row.name,
        requiredClaims: row.required_claims === '' ? [] : row.required_claims.split(' '),
      }));
    },

    async allowIssuer(issuer, now, audit) {
      await auditedWrite(db, audit, now, async (trx) => {
        const values = {
          provider: issuer.provider,
          name: issuer.name,
          required_claims: issuer.requiredClaims.join(' '),
        };
        await trx
          .insertInto('oidc_issuers')
          .values({ url: issuer.url, created_at: formatTimestamp(now), ...values })
          .onConflict((oc) => oc.column('url').doUpdateSet(values))
          .execute();
        return { changed: true, result: undefined };
      });
    },

    async removeIssuer(url, now, audit) {
      return auditedWrite(db, audit, now, async (trx) => {
        const result = await trx.deleteFrom('oidc_issuers').where('url', '=', url).executeTakeFirst();
        const done = Number(result.numDeletedRows) > 0;
        return { changed: done, result: done };
      });
    },

    async markIdTokenUsed(hash, expiresAt) {
      try {
        await db
          .insertInto('used_id_tokens')
          .values({ token_hash: hash, expires_at: formatTimestamp(expiresAt) })
          .execute();
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
  };
}
