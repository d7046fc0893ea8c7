import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import type { Acting } from '../audit/audit.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import type { AppRegistry } from '../apps/app-registry.ts';
import { serialOf } from '../certificates/certificate-authority.ts';
import type { Revocation, RevocationStore } from '../certificates/revoke-certificate.ts';
import { revokeCertificate } from '../certificates/revoke-certificate.ts';
import type { Trust } from '../certificates/trust.ts';
import { normaliseSerial } from '../certificates/x509.ts';
import type { CertificateRequestStore } from './request-certificate.ts';

export interface RevokeBySerialDeps {
  readonly requests: Pick<CertificateRequestStore, 'findIssuedBySerial'>;
  readonly registry: Pick<AppRegistry, 'listApps'>;
  readonly trust: () => Promise<Trust>;
  readonly revocations: RevocationStore;
  readonly now: () => Date;
}

/**
 * Revokes a certificate the store knows by its serial alone: one it issued from the developer
 * pages, or one registered for an app. A serial is unique only per authority, so a certificate
 * the store has never seen must be uploaded instead (its issuer is read from it).
 */
export async function revokeBySerial(
  serialText: string,
  reason: string,
  acting: Acting,
  deps: RevokeBySerialDeps,
): Promise<Revocation> {
  requireAdmin(acting, said`revoke certificates.`);
  const compact = serialText.trim().replace(/[\s:]/g, '').toLowerCase();
  if (!/^[0-9a-f]{1,64}$/.test(compact))
    throw new AppError(
      'invalid_request',
      said`'${serialText.slice(0, 80)}' is not a serial number: give it in hexadecimal, as openssl x509 -noout -serial prints it.`,
      { serial: [said`hexadecimal, as openssl x509 -noout -serial prints it`] },
    );
  const serial = normaliseSerial(compact);
  const issued = await deps.requests.findIssuedBySerial(serial);
  let pem = issued?.certificate ?? null;
  if (pem === null) {
    const registered = (await deps.registry.listApps({})).find((app) => serialOf(app.certificate) === serial);
    pem = registered?.certificate ?? null;
  }
  if (pem === null) {
    throw new AppError(
      'not_found',
      said`No certificate with serial ${serial} was issued here or registered for an app: upload the certificate itself to revoke it.`,
      { serial: [said`not a certificate this store knows: upload the certificate instead`] },
    );
  }
  return revokeCertificate(pem, await deps.trust(), deps.revocations, deps.now(), acting, reason);
}
