import { AppError } from '../../errors.ts';
import type { RevocationLookup } from './certificate-validator.ts';
import { appIdOf, issuingAuthority, parseCertificate } from './certificate-validator.ts';
import type { Trust } from './trust.ts';
import { normaliseSerial } from './x509.ts';

export interface RevocationStore extends RevocationLookup {
  revoke(issuer: string, serial: string, now: Date, reason: string): Promise<{ revokedAt: Date; alreadyRevoked: boolean }>;
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
export async function revokeCertificate(pem: string, trust: Trust, store: RevocationStore, now: Date, reason = ''): Promise<Revocation> {
  const certificate = parseCertificate(pem);
  if (issuingAuthority(certificate, trust) === null) {
    throw new AppError('certificate_untrusted', "The certificate is not signed by this store's authority: there is nothing to revoke here.");
  }
  let appId: string | null = null;
  try {
    appId = appIdOf(certificate);
  } catch {
    appId = null;
  }
  const serial = normaliseSerial(certificate.serialNumber);
  const result = await store.revoke(certificate.issuer, serial, now, reason);
  return { appId, serial, ...result };
}
