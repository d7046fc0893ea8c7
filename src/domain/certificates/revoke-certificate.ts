import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import type { RevocationLookup } from './certificate-validator.ts';
import { appIdOf, issuingAuthority, parseCertificate } from './certificate-validator.ts';
import type { Trust } from './trust.ts';
import { normaliseSerial } from './x509.ts';

export interface RevokedCertificate {
  readonly issuer: string;
  readonly serial: string;
  readonly revokedAt: Date;
  readonly reason: string;
}

export interface RevocationStore extends RevocationLookup {
  /** Newest first. */
  list(limit: number): Promise<RevokedCertificate[]>;
  /** Records the revocation and its audit entry, unless it was recorded already. */
  revoke(
    issuer: string,
    serial: string,
    now: Date,
    reason: string,
    audit: AuditEntry,
  ): Promise<{ revokedAt: Date; alreadyRevoked: boolean }>;
}

export interface Revocation {
  readonly appId: string | null;
  readonly serial: string;
  readonly revokedAt: Date;
  readonly alreadyRevoked: boolean;
}

/**
 * `appstore ca revoke`: from now on, registration and publishing refuse this certificate on every
 * node (the check reads the database). Only certificates of a trusted authority can be revoked.
 */
export async function revokeCertificate(
  pem: string,
  trust: Trust,
  store: RevocationStore,
  now: Date,
  acting: Acting,
  reason = '',
): Promise<Revocation> {
  requireAdmin(acting, said`revoke certificates.`);
  const certificate = parseCertificate(pem);
  if (issuingAuthority(certificate, trust) === null) {
    throw new AppError(
      'certificate_untrusted',
      said`The certificate is not signed by this store's authority: there is nothing to revoke here.`,
    );
  }
  let appId: string | null = null;
  try {
    appId = appIdOf(certificate);
  } catch {
    appId = null;
  }
  const serial = normaliseSerial(certificate.serialNumber);
  const audit = auditEntry(acting, 'certificate.revoked', {
    ...(appId === null ? {} : { appId }),
    details: {
      serial,
      fingerprint: certificate.fingerprint256.replace(/:/g, '').toLowerCase(),
      issuer: certificate.issuer,
    },
  });
  // The reason is kept in the record, trimmed and at most 500 characters.
  const result = await store.revoke(certificate.issuer, serial, now, reason.trim().slice(0, 500), audit);
  return { appId, serial, ...result };
}

/** The store's revocations, newest first: administrators only. */
export function listRevocations(acting: Acting, store: RevocationStore): Promise<RevokedCertificate[]> {
  requireAdmin(acting, said`see the revoked certificates.`);
  return store.list(500);
}
