import { said } from '../../i18n/said.ts';
import { requireAppInScope } from '../accounts/token-scopes.ts';
import { X509Certificate, createHash } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import { requireAppManager, roleOn } from '../accounts/authorization.ts';
import type { User } from '../accounts/user.ts';
import type { RevocationLookup } from '../certificates/certificate-validator.ts';
import { validateCertificate } from '../certificates/certificate-validator.ts';
import { weakKeyProblem } from '../certificates/key-strength.ts';
import { decodeSignature, isValidSignature } from '../certificates/signature.ts';
import type { Trust } from '../certificates/trust.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { KeptArchives } from '../archives/kept-archives.ts';
import { forgetArchives } from '../archives/kept-archives.ts';
import type { AppRegistry, RegisteredApp, RegistrationPlan } from './app-registry.ts';
import { refuseUpstreamApp, sameCertificate } from './app-registry.ts';
import type { UnlockEnded } from './manage-apps.ts';

export interface RegisterDeps {
  readonly trust: () => Promise<Trust>;
  readonly revocations: RevocationLookup;
  readonly registry: AppRegistry;
  readonly limiter: RateLimiter;
  readonly uploadsPerDay: number;
  readonly now: () => Date;
  /** A registration while the app was unlocked for transfer ends the unlock. */
  readonly unlockEnded: UnlockEnded;
  /** A new certificate deletes the app's releases, and their archives here. */
  readonly archives: KeptArchives;
}

export interface RegistrationResult {
  readonly appId: string;
  readonly created: boolean;
  readonly releasesDeleted: boolean;
}

/**
 * Contract §5. New id: the requester owns it. Existing id: the owner (or an admin) updates it;
 * anyone, while the owner has unlocked the app for transfer, takes it over; others are refused.
 */
export function planRegistration(existing: RegisteredApp | null, user: User, certificate: string): RegistrationPlan {
  if (existing === null) return { kind: 'create' };
  refuseUpstreamApp(existing);
  const certificateChanged = !sameCertificate(existing.certificate, certificate);
  const update = (ownerId: number): RegistrationPlan => ({
    kind: 'update',
    ownerId,
    certificateChanged,
    changed: certificateChanged || ownerId !== existing.ownerId || existing.transferUnlocked,
  });
  if (existing.transferUnlocked && roleOn(user, existing) !== 'owner') return update(user.id);
  requireAppManager(
    user,
    existing,
    said`register a certificate for it. To hand it over, the owner (or an administrator) unlocks it for transfer first.`,
  );
  return update(existing.ownerId);
}

/** `POST /api/v1/apps`: 100 a day per user; certificate, then signature over the id, then ownership. */
export async function registerApp(
  input: { certificate: string; signature: string },
  user: User,
  acting: Acting,
  deps: RegisterDeps,
): Promise<RegistrationResult> {
  await deps.limiter.consume({ ...RATE_LIMITS.register, limit: deps.uploadsPerDay }, String(user.id));
  const certificate = input.certificate.trim();
  const valid = await validateCertificate(certificate, await deps.trust(), deps.revocations, deps.now());
  const weak = weakKeyProblem(valid.publicKey, 'certificate');
  if (weak !== null)
    throw new AppError('invalid_certificate', said`${weak} Then ask for a certificate for the new key.`);
  requireAppInScope(user, valid.appId);
  if (!isValidSignature(Buffer.from(valid.appId, 'utf8'), decodeSignature(input.signature), valid.publicKey)) {
    throw new AppError(
      'invalid_signature',
      said`The signature does not match: sign the app id '${valid.appId}' itself (no trailing newline) with the key of this certificate: printf '%s' ${valid.appId} | openssl dgst -sha512 -sign ${valid.appId}.key | openssl base64`,
    );
  }
  const details = {
    serial: valid.serial,
    fingerprint: createHash('sha256').update(new X509Certificate(certificate).raw).digest('hex'),
  };
  // Read before: a new certificate deletes the releases, whose archives are then deleted too.
  const archivesBefore = await deps.archives.references.ofApp(valid.appId);
  let previousOwner: number | null = null;
  let unlockedSince: Date | null = null;
  const audit = (decided: RegistrationPlan): AuditEntry | null => {
    if (decided.kind === 'create') return auditEntry(acting, 'app.registered', { appId: valid.appId, details });
    if (!decided.changed) return null;
    const transferred = decided.ownerId !== previousOwner;
    const event = decided.certificateChanged
      ? 'app.certificate_changed'
      : transferred
        ? 'app.transferred'
        : 'app.transfer_locked';
    return auditEntry(acting, event, {
      appId: valid.appId,
      details: { ...details, transferred, releasesDeleted: decided.certificateChanged },
    });
  };
  const plan = await deps.registry.register(
    valid.appId,
    certificate,
    user.id,
    (existing) => {
      previousOwner = existing?.ownerId ?? null;
      unlockedSince = existing?.transferUnlocked === true ? (existing.transferUnlockedAt ?? new Date(0)) : null;
      return planRegistration(existing, user, certificate);
    },
    deps.now(),
    audit,
  );
  if (plan.kind === 'update' && plan.certificateChanged) await forgetArchives(archivesBefore, deps.archives);
  // Taken over, or re-registered by its owner: the unlock is over (the write cleared it).
  if (plan.kind === 'update' && plan.changed && unlockedSince !== null)
    await deps.unlockEnded(valid.appId, unlockedSince, plan.ownerId, acting);
  return {
    appId: valid.appId,
    created: plan.kind === 'create',
    releasesDeleted: plan.kind === 'update' && plan.certificateChanged,
  };
}
