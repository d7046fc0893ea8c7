import { said } from '../../i18n/said.ts';
import { createHash } from 'node:crypto';
import { auditEntry } from '../audit/audit.ts';
import type { Provenance } from '../accounts/token-scopes.ts';
import type { Acting } from '../audit/audit.ts';
import { AppError, isAppError } from '../../errors.ts';
import { requireReleaseManager } from '../accounts/authorization.ts';
import type { User } from '../accounts/user.ts';
import type { AppRegistry, RegisteredApp } from '../apps/app-registry.ts';
import { refuseUpstreamApp, sameCertificate } from '../apps/app-registry.ts';
import type { RevocationLookup } from '../certificates/certificate-validator.ts';
import { validateCertificate } from '../certificates/certificate-validator.ts';
import { decodeSignature, isValidSignature } from '../certificates/signature.ts';
import type { Trust } from '../certificates/trust.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { CatalogStore } from '../catalog/import-catalog.ts';
import type { Downloader } from '../archive-download.ts';
import { parseWebAddress } from '../encodings.ts';
import type { KeptArchives } from '../archives/kept-archives.ts';
import type { NotifyQueue } from '../notifications/notifications.ts';
import { forgetArchives } from '../archives/kept-archives.ts';
import { isLatestRelease } from './latest-release.ts';
import { readRelease } from './read-release.ts';
import { appNotRegistered } from './release-store.ts';
import type { PublishSlot, PublishSlots } from './publish-slots.ts';
import type { ReleaseStore } from './release-store.ts';

export interface PublishInput {
  readonly download: string;
  readonly signature: string;
  readonly nightly: boolean;
}

export interface PublishDeps {
  readonly download: Downloader;
  readonly catalog: Pick<CatalogStore, 'categoryIds'>;
  readonly trust: () => Promise<Trust>;
  readonly revocations: RevocationLookup;
  readonly registry: AppRegistry;
  readonly releases: ReleaseStore;
  /** Where the archive is kept (unless APPSTORE_KEEP_ARCHIVES is off), and what the save replaced is deleted. */
  readonly archives: KeptArchives;
  /** The publisher is mailed when a publish let in fails (issue 52; unless they turned it off). */
  readonly notify: NotifyQueue;
  readonly limiter: RateLimiter;
  readonly uploadsPerDay: number;
  /** Publishes under way per user and on this node (publish-slots.ts). */
  readonly slots: PublishSlots;
  readonly now: () => Date;
}

export interface PublishResult {
  readonly appId: string;
  readonly version: string;
  readonly created: boolean;
  /** Why the archive's icon was left out (the release is published without one), when it was. */
  readonly iconProblem?: string;
  /** Where the publish's time went, in milliseconds (the response's Server-Timing, the log). */
  readonly timings: PublishTimings;
}

/**
 * A publish's time by step, in milliseconds: waiting for a place among the publishes under way
 * (`queue`), fetching the archive or receiving the upload (`transfer`), the checks from reading
 * the archive to the signature (`check`), keeping the archive and the transaction (`save`).
 */
export interface PublishTimings {
  readonly queue: number;
  readonly transfer: number;
  readonly check: number;
  readonly save: number;
}

/** The time before the checks: its queue and its transfer. */
export type ArrivalTimings = Pick<PublishTimings, 'queue' | 'transfer'>;

const since = (start: number): number => performance.now() - start;

/** Waits for the slot's turn, then gets the archive (`transfer`): what it got, and how long each took. */
export async function arrive<T>(slot: PublishSlot, transfer: () => Promise<T>): Promise<[T, ArrivalTimings]> {
  const waiting = performance.now();
  await slot.turn();
  const transferring = performance.now();
  const value = await transfer();
  return [value, { queue: transferring - waiting, transfer: since(transferring) }];
}

/** The body's own checks (the address's form, the signature's encoding): what a form can show at once. */
export function checkPublishInput(input: PublishInput): Buffer {
  if (parseWebAddress(input.download) === null) {
    throw new AppError('invalid_request', said`Invalid request body: download: Enter a valid HTTPS URL.`, {
      download: [said`Enter a valid HTTPS URL.`],
    });
  }
  return checkSignatureField(input.signature);
}

/** The signature as given (base64 of an RSA SHA-512 signature), decoded; refused with the field named. */
export function checkSignatureField(signature: string): Buffer {
  try {
    return decodeSignature(signature);
  } catch (error) {
    const message = isAppError(error) ? error.detail : 'The signature is not base64.';
    throw new AppError('invalid_request', said`Invalid request body: signature: ${message}`, { signature: [message] });
  }
}

/**
 * What was checked before the download still holds inside the save's transaction: the app is
 * registered, the user may publish for it, and its certificate is the one the signature was
 * verified against (a re-registration deletes every release signed with the old key; a release
 * saved after it would be listed with a signature no server can verify).
 */
function confirmStillPublishable(current: RegisteredApp | null, checked: RegisteredApp, user: User): void {
  if (current === null) throw appNotRegistered(checked.appId);
  requireReleaseManager(user, current);
  if (!sameCertificate(current.certificate, checked.certificate)) {
    throw new AppError(
      'conflict',
      said`The certificate registered for ${current.appId} changed while this release was being checked; the release is signed for the old one and was not saved. Sign the archive with the key of the new certificate and publish again.`,
    );
  }
}

/** A publish let in: its decoded signature, and its place among the publishes under way. */
export interface AdmittedPublish {
  readonly signature: Buffer;
  readonly slot: PublishSlot;
}

/**
 * What is refused before anything is downloaded (issue 49): the body's own checks, a user who owns
 * or co-maintains no app (nothing they could publish would be taken), too many publishes under way
 * (publish-slots.ts), and the daily limit. The slot must be released: `publishAdmitted`
 * does, whatever happens.
 */
export async function admitPublish(input: PublishInput, user: User, deps: PublishDeps): Promise<AdmittedPublish> {
  const signature = checkPublishInput(input);
  const slot = await admitPublisher(user, deps);
  // Counted against the daily limit only once admitted: a publish refused for being one too many
  // at once (429, try again in 30 s) must not use up the day's uploads of a CI job that obeys it.
  try {
    await countPublish(user, deps);
  } catch (error) {
    slot.release();
    throw error;
  }
  return { signature, slot };
}

/** A user who may publish something, given a place among the publishes under way (to be released). */
export async function admitPublisher(user: User, deps: PublishDeps): Promise<PublishSlot> {
  if (!user.isAdmin && (await deps.registry.listApps({ userId: user.id })).length === 0) {
    throw new AppError(
      'forbidden',
      said`You own or co-maintain no app here, so no release of yours can be published. Register the app first (POST /api/v1/apps, or Register an app on the developer pages), or ask its owner to add you as a co-maintainer.`,
    );
  }
  return deps.slots.admit(user.id);
}

/** One publish against the user's daily limit (429 beyond it). */
export const countPublish = (user: User, deps: PublishDeps): Promise<void> =>
  deps.limiter.consume({ ...RATE_LIMITS.publish, limit: deps.uploadsPerDay }, String(user.id));

/**
 * `POST /api/v1/apps/releases` (contract §6), in this order, storing nothing on any failure:
 * admission (above), body, download, release reader, registered app, owner or co-maintainer, the
 * app's current certificate, the signature over the exact bytes, then one transaction.
 */
export async function publishRelease(
  input: PublishInput,
  user: User,
  acting: Acting,
  deps: PublishDeps,
): Promise<PublishResult> {
  return publishAdmitted(input, await admitPublish(input, user, deps), user, acting, deps);
}

/** The publish once admitted: waits for its turn to download, and frees its place at the end. */
export async function publishAdmitted(
  input: PublishInput,
  admitted: AdmittedPublish,
  user: User,
  acting: Acting,
  deps: PublishDeps,
  origin: PublishOrigin = 'api',
): Promise<PublishResult> {
  try {
    // Read into the slot's buffer: nothing here keeps a view of it once the publish ends.
    const [{ bytes }, arrival] = await arrive(admitted.slot, () =>
      deps.download(input.download, admitted.slot.buffer()),
    );
    return await checkAndSave(
      { bytes, signature: admitted.signature, nightly: input.nightly, developerDownload: input.download },
      user,
      acting,
      deps,
      arrival,
    );
  } catch (error) {
    await notifyFailure(user, `${ORIGINS[origin]}, from ${input.download}`, error, deps);
    throw error;
  } finally {
    admitted.slot.release();
  }
}

/** Where a publish came from, as its failure mail says it. */
export type PublishOrigin = 'api' | 'page';
const ORIGINS: Record<PublishOrigin, string> = { api: 'through the API', page: 'on the publish page' };

/** Mails the publisher that a publish let in failed, and why (never throws: the refusal is what the caller hears). */
export async function notifyFailure(
  user: User,
  source: string,
  error: unknown,
  deps: Pick<PublishDeps, 'notify'>,
): Promise<void> {
  const detail = isAppError(error)
    ? error.detail
    : 'The store failed while checking it; the failure was logged. Try again later.';
  await deps.notify
    .enqueue({ kind: 'notify', userIds: [user.id], notification: { kind: 'publish-failed', source, detail } })
    .catch(() => undefined);
}

/** An archive to publish, downloaded from the developer's URL or uploaded (`developerDownload` null). */
export interface ArchiveToPublish {
  readonly bytes: Buffer;
  readonly signature: Buffer;
  readonly nightly: boolean;
  readonly developerDownload: string | null;
}

/**
 * The checks of an archive at hand, then the save: release reader, registered app, owner or
 * co-maintainer, the app's current certificate, the signature over the exact bytes, then one
 * transaction. An uploaded archive is always kept (there is no other place to download it from).
 */
export async function checkAndSave(
  input: ArchiveToPublish,
  user: User,
  acting: Acting,
  deps: PublishDeps,
  arrival: ArrivalTimings,
): Promise<PublishResult> {
  const checking = performance.now();
  const { bytes, signature } = input;
  const candidate = await readRelease(bytes, {
    nightly: input.nightly,
    validCategories: await deps.catalog.categoryIds(),
  });
  const appId = candidate.app.id;
  const app = await deps.registry.findApp(appId);
  if (app === null) throw appNotRegistered(appId);
  refuseUpstreamApp(app);
  requireReleaseManager(user, app);

  let publicKey;
  try {
    publicKey = (await validateCertificate(app.certificate, await deps.trust(), deps.revocations, deps.now()))
      .publicKey;
  } catch (error) {
    if (!isAppError(error)) throw error;
    throw new AppError(
      error.code,
      said`The certificate registered for ${appId} can no longer be used: ${error.detail} Register a new one with POST /api/v1/apps.`,
    );
  }
  if (!isValidSignature(bytes, signature, publicKey)) {
    throw new AppError(
      'invalid_signature',
      said`The signature does not match this archive and the certificate registered for ${appId}. Sign the exact file you publish, with \`openssl dgst -sha512 -sign ${appId}.key ${appId}.tar.gz | openssl base64\`.`,
    );
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const saving = performance.now();
  // Kept before the release is saved: a listed release always has its archive here.
  const keep = deps.archives.keepNew || input.developerDownload === null;
  if (keep) await deps.archives.storage.put(sha256, bytes);
  let saved;
  try {
    saved = await deps.releases.saveRelease(
      candidate,
      {
        download: keep
          ? deps.archives.url(appId, candidate.release.version, input.nightly)
          : (input.developerDownload ?? ''),
        // '' for an upload: kept, with no URL of the developer's.
        developerDownload: keep ? (input.developerDownload ?? '') : null,
        signature: signature.toString('base64'),
        sha256,
        size: bytes.length,
        provenance: user.limits?.provenance ?? null,
      },
      {
        confirm: (current) => confirmStillPublishable(current, app, user),
        isLatest: (others) => isLatestRelease(candidate.release.version, input.nightly, others),
      },
      deps.now(),
      (result) =>
        auditEntry(acting, result.created ? 'release.published' : 'release.updated', {
          appId,
          details: {
            version: candidate.release.version,
            nightly: input.nightly,
            download: input.developerDownload,
            ...(input.developerDownload === null ? { uploaded: true } : {}),
            kept: keep,
            sha256,
            size: bytes.length,
            ...(candidate.iconProblem === undefined ? {} : { icon: candidate.iconProblem }),
            ...provenanceDetails(user.limits?.provenance ?? null),
          },
        }),
    );
  } catch (error) {
    if (keep) await forgetArchives([sha256], deps.archives);
    throw error;
  }
  await forgetArchives(saved.replaced, deps.archives);
  const { created } = saved;
  return {
    appId,
    version: candidate.release.version,
    created,
    ...(candidate.iconProblem === undefined ? {} : { iconProblem: candidate.iconProblem }),
    timings: { ...arrival, check: saving - checking, save: since(saving) },
  };
}

/** Where a trusted publishing job ran, for the audit entry of its release. */
function provenanceDetails(provenance: Provenance | null): Record<string, string> {
  if (provenance === null) return {};
  const details: Record<string, string> = { provenance: provenance.provider, repository: provenance.repository };
  if (provenance.commit !== null) details['commit'] = provenance.commit;
  if (provenance.workflow !== null) details['workflow'] = provenance.workflow;
  if (provenance.runUrl !== null) details['run'] = provenance.runUrl;
  else if (provenance.runId !== null) details['run'] = provenance.runId;
  return details;
}
