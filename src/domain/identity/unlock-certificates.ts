import { X509Certificate } from 'node:crypto';
import { auditEntry } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import type { MailJobQueue } from '../accounts/mail-jobs.ts';
import type { RevocationStore } from '../certificates/revoke-certificate.ts';
import type { CertificateRequestStore } from './request-certificate.ts';

export interface UnlockCertificateDeps {
  readonly requests: Pick<CertificateRequestStore, 'listIssuedFor'>;
  readonly revocations: Pick<RevocationStore, 'revoke'>;
  readonly mail: MailJobQueue;
  readonly now: () => Date;
}

/** What the revocation record says; the holder's mail says it in full. */
export const UNLOCK_REVOCATION_REASON =
  'issued while the app was unlocked for transfer, which ended without passing the app to its holder';

/**
 * While an owner has an app unlocked for transfer, anyone may get a certificate for its id from
 * the store's authority (issue 27). When the unlock ends without the app passing to them (the owner
 * locks it again, or someone else registers it), those certificates are revoked, each audited
 * (`certificate.revoked`, the holder named) and its holder mailed, so none outlives the unlock.
 * Certificates of the resulting owner, and those an operator issued with `appstore ca issue`
 * (no holder), stay. Returns the serials revoked.
 */
export async function revokeIssuedDuringUnlock(
  appId: string,
  since: Date,
  owner: number,
  acting: Acting,
  deps: UnlockCertificateDeps,
): Promise<string[]> {
  const revoked: string[] = [];
  for (const issued of await deps.requests.listIssuedFor(appId, since)) {
    if (issued.userId === null || issued.userId === owner || issued.certificate === null || issued.serial === null)
      continue;
    const { issuer } = new X509Certificate(issued.certificate);
    const audit = auditEntry(acting, 'certificate.revoked', {
      appId,
      ...(issued.username === null ? {} : { subjectUser: issued.username }),
      details: { serial: issued.serial, issuer, reason: 'transfer unlock ended' },
    });
    const result = await deps.revocations.revoke(issuer, issued.serial, deps.now(), UNLOCK_REVOCATION_REASON, audit);
    if (result.alreadyRevoked) continue;
    revoked.push(issued.serial);
    await deps.mail.enqueue({ kind: 'certificate-revoked', userId: issued.userId, appId, serial: issued.serial });
  }
  return revoked;
}
