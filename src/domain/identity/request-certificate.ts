import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import type { MailJobQueue } from '../accounts/mail-jobs.ts';
import type { SecretKeys } from '../accounts/secret-key.ts';
import type { User } from '../accounts/user.ts';
import type { AppRegistry } from '../apps/app-registry.ts';
import {
  checkCertificateRequest,
  issueCertificate,
  serialOf,
  signCertificateRequest,
} from '../certificates/certificate-authority.ts';
import type { CheckedRequest } from '../certificates/certificate-authority.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { IdentityStore } from './store-identity.ts';
import { loadOwnAuthority } from './store-identity.ts';

/**
 * Certificates from the developer pages (issue 27): a developer pastes a certificate request for
 * an app id that is free (or theirs, or unlocked for transfer) and the store's own authority signs
 * it at once; or, when an administrator requires approval, the request waits in a queue and the
 * developer is mailed the decision. The key never leaves the developer's machine: the store sees
 * only the request.
 */
export type RequestStatus = 'pending' | 'issued' | 'rejected';

export interface CertificateRequest {
  readonly id: number;
  /** Null for a certificate issued with `appstore ca issue`: nobody asked for it on a page. */
  readonly userId: number | null;
  readonly username: string | null;
  readonly appId: string;
  readonly csr: string;
  readonly status: RequestStatus;
  readonly certificate: string | null;
  readonly serial: string | null;
  readonly reason: string;
  readonly createdAt: Date;
  readonly decidedAt: Date | null;
  readonly decidedBy: string | null;
}

export interface CertificateRequestStore {
  add(
    request: { userId: number | null; appId: string; csr: string },
    issued: { certificate: string; serial: string; by: string } | null,
    now: Date,
    audit: AuditEntry,
  ): Promise<number>;
  /** Decides a pending request; false when it was decided already (by another administrator). */
  decide(
    id: number,
    decision: { status: 'issued'; certificate: string; serial: string } | { status: 'rejected'; reason: string },
    by: string,
    now: Date,
    audit: AuditEntry,
  ): Promise<boolean>;
  find(id: number): Promise<CertificateRequest | null>;
  /** Newest first. */
  list(filter: { status?: RequestStatus; userId?: number }, limit: number): Promise<CertificateRequest[]>;
  /** An issued certificate with this serial, if the store issued one. */
  findIssuedBySerial(serial: string): Promise<CertificateRequest | null>;
  /** The certificates issued for this app id at or after `since`, oldest first. */
  listIssuedFor(appId: string, since: Date): Promise<CertificateRequest[]>;
}

export interface StoreSettings {
  get(name: string): Promise<string | null>;
  set(name: string, value: string, now: Date, audit: AuditEntry): Promise<void>;
}

export interface CertificateRequestDeps {
  readonly requests: CertificateRequestStore;
  readonly settings: StoreSettings;
  readonly registry: Pick<AppRegistry, 'findApp'>;
  readonly identity: IdentityStore;
  readonly keys: SecretKeys;
  /** False when the store trusts an external authority (APPSTORE_CA_CERT): it holds no key to issue with. */
  readonly ownAuthority: boolean;
  readonly mail: MailJobQueue;
  readonly limiter: RateLimiter;
  readonly requestsPerDay: number;
  readonly now: () => Date;
}

const APPROVAL_SETTING = 'certificates.approval';

export async function approvalRequired(deps: Pick<CertificateRequestDeps, 'settings'>): Promise<boolean> {
  return (await deps.settings.get(APPROVAL_SETTING)) === 'required';
}

/** An administrator decides whether certificates wait for approval. */
export async function setApprovalRequired(
  required: boolean,
  acting: Acting,
  deps: Pick<CertificateRequestDeps, 'settings' | 'now'>,
): Promise<void> {
  requireAdmin(acting, said`change how certificates are issued.`);
  const value = required ? 'required' : 'automatic';
  await deps.settings.set(
    APPROVAL_SETTING,
    value,
    deps.now(),
    auditEntry(acting, 'settings.changed', { details: { name: APPROVAL_SETTING, value } }),
  );
}

function requireOwnAuthority(deps: Pick<CertificateRequestDeps, 'ownAuthority'>): void {
  if (!deps.ownAuthority) {
    throw new AppError(
      'authority_unavailable',
      said`This store trusts an external certificate authority, whose key it does not hold: ask the store's administrators how to get a certificate.`,
    );
  }
}

/** The id is free, the user's own, or unlocked for transfer; else someone else's app. */
async function requireFreeOrOwn(
  appId: string,
  userId: number,
  deps: Pick<CertificateRequestDeps, 'registry'>,
): Promise<void> {
  const app = await deps.registry.findApp(appId);
  if (app === null || app.ownerId === userId || app.transferUnlocked) return;
  throw new AppError(
    'forbidden',
    said`The app id ${appId} belongs to another developer: choose another id (the CN of the request), or ask its owner to unlock it for transfer.`,
    { csr: [said`${appId} belongs to another developer`] },
  );
}

export type CertificateOutcome =
  | { readonly status: 'issued'; readonly id: number; readonly appId: string; readonly certificate: string }
  | { readonly status: 'pending'; readonly id: number; readonly appId: string };

/** A developer asks for a certificate: issued now, or queued for an administrator. */
export async function requestCertificate(
  csr: string,
  user: User,
  acting: Acting,
  deps: CertificateRequestDeps,
): Promise<CertificateOutcome> {
  requireOwnAuthority(deps);
  const checked = await checkCertificateRequest(csr);
  const { appId } = checked;
  await requireFreeOrOwn(appId, user.id, deps);
  await deps.limiter.consume({ ...RATE_LIMITS.certificate, limit: deps.requestsPerDay }, String(user.id));
  if (await approvalRequired(deps)) {
    const id = await deps.requests.add(
      { userId: user.id, appId, csr: storedCsr(csr) },
      null,
      deps.now(),
      auditEntry(acting, 'certificate.requested', { appId }),
    );
    return { status: 'pending', id, appId };
  }
  const { id, certificate } = await issueAndRecord(checked, csr, user.id, acting, deps);
  return { status: 'issued', id, appId, certificate };
}

const storedCsr = (csr: string): string => csr.trim() + '\n';

/** Signs a checked request at once and records it as issued, audited (`certificate.issued`, without approval). */
async function issueAndRecord(
  checked: CheckedRequest,
  csr: string,
  userId: number | null,
  acting: Acting,
  deps: Pick<CertificateRequestDeps, 'requests' | 'identity' | 'keys' | 'now'>,
): Promise<{ id: number; certificate: string }> {
  const certificate = await signCertificateRequest(
    checked,
    await loadOwnAuthority(deps.identity, deps.keys),
    deps.now(),
  );
  const serial = serialOf(certificate);
  const audit = auditEntry(acting, 'certificate.issued', {
    appId: checked.appId,
    details: { serial, approval: false },
  });
  const id = await deps.requests.add(
    { userId, appId: checked.appId, csr: storedCsr(csr) },
    { certificate, serial, by: acting.actor.name },
    deps.now(),
    audit,
  );
  return { id, certificate };
}

/**
 * The operator signs a request from the command line (`appstore ca issue`), for any app id: it is
 * recorded and audited like the certificates of the developer pages, so it can be revoked by serial.
 */
export async function issueFromCommandLine(
  csr: string,
  acting: Acting,
  deps: Pick<CertificateRequestDeps, 'requests' | 'identity' | 'keys' | 'ownAuthority' | 'now'>,
): Promise<string> {
  requireAdmin(acting, said`issue certificates without a request.`);
  requireOwnAuthority(deps);
  return (await issueAndRecord(await checkCertificateRequest(csr), csr, null, acting, deps)).certificate;
}

/** The user's own requests, newest first. */
export function myCertificateRequests(
  user: User,
  deps: Pick<CertificateRequestDeps, 'requests'>,
): Promise<CertificateRequest[]> {
  return deps.requests.list({ userId: user.id }, 50);
}

/** One request, for the user who made it, or an administrator. */
export async function readCertificateRequest(
  id: number,
  acting: Acting,
  deps: Pick<CertificateRequestDeps, 'requests'>,
): Promise<CertificateRequest> {
  const request = await deps.requests.find(id);
  const mine = request !== null && acting.actor.kind === 'user' && acting.actor.userId === request.userId;
  if (request === null || (!mine && !acting.isAdmin))
    throw new AppError('not_found', said`There is no such certificate request (or it is not yours).`);
  return request;
}

export function pendingCertificateRequests(
  acting: Acting,
  deps: Pick<CertificateRequestDeps, 'requests'>,
): Promise<CertificateRequest[]> {
  requireAdmin(acting, said`see the certificate requests.`);
  return deps.requests.list({ status: 'pending' }, 200);
}

/** A request waiting for an administrator; only developers' requests wait, so it has a requester. */
type PendingRequest = CertificateRequest & { readonly userId: number; readonly username: string };

async function pendingRequest(id: number, deps: Pick<CertificateRequestDeps, 'requests'>): Promise<PendingRequest> {
  const request = await deps.requests.find(id);
  if (request === null) throw new AppError('not_found', said`There is no certificate request ${id}.`);
  const { userId, username } = request;
  if (request.status !== 'pending' || userId === null || username === null)
    throw new AppError('conflict', decidedAlready(request));
  return { ...request, userId, username };
}

const decided = (request: CertificateRequest): AppError =>
  new AppError('conflict', said`The request for ${request.appId} was decided by another administrator meanwhile.`);

/** An administrator approves: the certificate is issued (if the id is still free or the requester's) and the requester mailed. Returns the request as it was. */
export async function approveCertificateRequest(
  id: number,
  acting: Acting,
  deps: CertificateRequestDeps,
): Promise<CertificateRequest> {
  requireAdmin(acting, said`approve certificate requests.`);
  requireOwnAuthority(deps);
  const request = await pendingRequest(id, deps);
  await requireFreeOrOwn(request.appId, request.userId, deps);
  const certificate = await issueCertificate(request.csr, await loadOwnAuthority(deps.identity, deps.keys), deps.now());
  const serial = serialOf(certificate);
  const audit = auditEntry(acting, 'certificate.issued', {
    appId: request.appId,
    subjectUser: request.username,
    details: { serial, approval: true, request: id },
  });
  if (
    !(await deps.requests.decide(id, { status: 'issued', certificate, serial }, acting.actor.name, deps.now(), audit))
  )
    throw decided(request);
  await deps.mail.enqueue({
    kind: 'certificate-decided',
    userId: request.userId,
    appId: request.appId,
    issued: true,
    reason: '',
  });
  return request;
}

export async function rejectCertificateRequest(
  id: number,
  reason: string,
  acting: Acting,
  deps: CertificateRequestDeps,
): Promise<CertificateRequest> {
  requireAdmin(acting, said`reject certificate requests.`);
  const request = await pendingRequest(id, deps);
  const why = reason.trim().slice(0, 1000);
  const audit = auditEntry(acting, 'certificate.rejected', {
    appId: request.appId,
    subjectUser: request.username,
    details: { request: id, reason: why },
  });
  if (!(await deps.requests.decide(id, { status: 'rejected', reason: why }, acting.actor.name, deps.now(), audit)))
    throw decided(request);
  await deps.mail.enqueue({
    kind: 'certificate-decided',
    userId: request.userId,
    appId: request.appId,
    issued: false,
    reason: why,
  });
  return request;
}

/** The refusal of a decision on a request that was decided already, saying how and by whom. */
function decidedAlready(request: CertificateRequest): Said {
  const by = request.decidedBy;
  if (request.status === 'issued')
    return by === null
      ? said`The request for ${request.appId} was issued already.`
      : said`The request for ${request.appId} was issued already by ${by}.`;
  if (request.status === 'rejected')
    return by === null
      ? said`The request for ${request.appId} was rejected already.`
      : said`The request for ${request.appId} was rejected already by ${by}.`;
  return said`The request for ${request.appId} was decided already.`;
}
