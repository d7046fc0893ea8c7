import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { createHash } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { requireActingAppManager, requireAdmin } from '../accounts/authorization.ts';
import type { AccessTokenStore } from '../accounts/scoped-tokens.ts';
import { generateScopedToken } from '../accounts/scoped-token-format.ts';
import type { SecretKeys } from '../accounts/secret-key.ts';
import { tokenLookupHash } from '../accounts/token-codec.ts';
import type { AccountStore } from '../accounts/user.ts';
import { requireApp } from '../apps/app-registry.ts';
import type { AppRegistry } from '../apps/app-registry.ts';
import { auditEntry, visitorActing } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import type { RateLimiter } from '../rate-limit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import { matchPublisher, provenanceOf } from './claims-match.ts';
import type { IdTokenClaims } from './claims-match.ts';
import { BUILT_IN_ISSUERS, checkedPublisher, describePublisher } from './publishers.ts';
import type { AllowedIssuer, NewPublisher, PublisherRequest, TrustedPublisher } from './publishers.ts';

export interface TrustedPublisherStore {
  add(publisher: NewPublisher, createdBy: string, now: Date, audit: AuditEntry): Promise<number>;
  /** False when the app has no such publisher. */
  remove(appId: string, id: number, now: Date, audit: AuditEntry): Promise<boolean>;
  ofApp(appId: string): Promise<TrustedPublisher[]>;
  ofIssuer(issuer: string): Promise<TrustedPublisher[]>;
  /** Records the ids of the first exchange where the publisher had none (a re-created namesake then differs). */
  pin(id: number, ids: { readonly repositoryId: string | null; readonly ownerId: string | null }): Promise<void>;
  /** The issuers admins allowed (besides the built-in ones). */
  issuers(): Promise<AllowedIssuer[]>;
  allowIssuer(issuer: AllowedIssuer, now: Date, audit: AuditEntry): Promise<void>;
  /** False when it was not allowed; its publishers stay, and stop matching. */
  removeIssuer(url: string, now: Date, audit: AuditEntry): Promise<boolean>;
  /** False when this ID token was exchanged before (kept until it expires). */
  markIdTokenUsed(hash: string, expiresAt: Date): Promise<boolean>;
}

/** Checks an ID token's signature (the issuer's JWKS) and its times and audience; its verified claims. */
export interface IdTokenVerifier {
  verify(
    idToken: string,
    options: { readonly issuers: readonly AllowedIssuer[]; readonly audiences: readonly string[]; readonly now: Date },
  ): Promise<IdTokenClaims & { readonly iss: string; readonly exp: number }>;
}

export interface TrustedPublishingDeps {
  readonly publishers: TrustedPublisherStore;
  readonly registry: Pick<AppRegistry, 'findApp'>;
  readonly accounts: Pick<AccountStore, 'findUserById'>;
  readonly tokens: Pick<AccessTokenStore, 'insert'>;
  readonly verifier: IdTokenVerifier;
  readonly keys: SecretKeys;
  readonly limiter: RateLimiter;
  /** The audiences an ID token may be minted for: the store's public URL (with and without its slash) or a configured one. */
  readonly audiences: readonly string[];
  readonly now: () => Date;
}

/** A trusted publishing token lives this long (issue 53: at most 15 minutes). */
export const PUBLISHING_TOKEN_MS = 15 * 60_000;

export async function allowedIssuers(deps: Pick<TrustedPublishingDeps, 'publishers'>): Promise<AllowedIssuer[]> {
  return [...BUILT_IN_ISSUERS, ...(await deps.publishers.issuers())];
}

/** The app's trusted publishers: its maintainers and admins may read them. */
export async function listPublishers(appId: string, deps: Pick<TrustedPublishingDeps, 'publishers' | 'registry'>) {
  await requireApp(appId, deps.registry);
  return deps.publishers.ofApp(appId);
}

/** Adds a trusted publisher: the app's owner or an admin (the command line is one). */
export async function addPublisher(
  appId: string,
  request: PublisherRequest,
  acting: Acting,
  deps: Pick<TrustedPublishingDeps, 'publishers' | 'registry' | 'now'>,
): Promise<number> {
  const app = await requireApp(appId, deps.registry);
  requireActingAppManager(acting, app, said`add trusted publishers.`);
  const publisher = checkedPublisher(appId, request, await allowedIssuers(deps));
  const existing = await deps.publishers.ofApp(appId);
  if (existing.some((other) => describePublisher(other) === describePublisher(publisher)))
    throw new AppError('conflict', said`${appId} trusts this publisher already: ${describePublisher(publisher)}.`);
  if (existing.length >= 20)
    throw new AppError('conflict', said`${appId} has 20 trusted publishers: remove one first.`);
  const audit = auditEntry(acting, 'trusted_publisher.added', {
    appId,
    details: { publisher: describePublisher(publisher) },
  });
  return deps.publishers.add(publisher, acting.actor.name, deps.now(), audit);
}

export async function removePublisher(
  appId: string,
  id: number,
  acting: Acting,
  deps: Pick<TrustedPublishingDeps, 'publishers' | 'registry' | 'now'>,
): Promise<void> {
  const app = await requireApp(appId, deps.registry);
  requireActingAppManager(acting, app, said`remove trusted publishers.`);
  const publisher = (await deps.publishers.ofApp(appId)).find((entry) => entry.id === id);
  const audit = auditEntry(acting, 'trusted_publisher.removed', {
    appId,
    details: { publisher: publisher === undefined ? String(id) : describePublisher(publisher) },
  });
  if (publisher === undefined || !(await deps.publishers.remove(appId, id, deps.now(), audit)))
    throw new AppError('not_found', said`${appId} has no trusted publisher ${id}.`);
}

const ISSUER_URL = /^https:\/\/[A-Za-z0-9.-]+(:[0-9]{1,5})?(\/[A-Za-z0-9._~/-]*)?$/;

/** An admin allows another issuer: GitHub Enterprise Server, self-managed GitLab, or another CI (with the claims its publishers must match). */
export async function allowIssuer(
  request: {
    readonly url: string;
    readonly provider: string;
    readonly name?: string;
    readonly requiredClaims?: readonly string[];
  },
  acting: Acting,
  deps: Pick<TrustedPublishingDeps, 'publishers' | 'now'>,
): Promise<AllowedIssuer> {
  requireAdmin(acting, said`allow OpenID issuers.`);
  const url = request.url.trim().replace(/\/+$/, '');
  if (!ISSUER_URL.test(url) || url.length > 300)
    throw new AppError(
      'invalid_request',
      said`The issuer must be an https:// URL, as its ID tokens' iss claim gives it.`,
      {
        url: [said`an https:// URL`],
      },
    );
  const provider = request.provider;
  if (provider !== 'github' && provider !== 'gitlab' && provider !== 'oidc')
    throw new AppError(
      'invalid_request',
      said`The provider is github (Enterprise Server), gitlab (self-managed) or oidc.`,
      {
        provider: [said`github, gitlab or oidc`],
      },
    );
  const requiredClaims = [...new Set(request.requiredClaims ?? [])];
  if (provider === 'oidc' && requiredClaims.length === 0)
    throw new AppError(
      'invalid_request',
      said`Name the claims every publisher of this issuer must match (such as sub): without them, one publisher could trust every job of the issuer.`,
      { requiredClaims: [said`at least one claim`] },
    );
  if (BUILT_IN_ISSUERS.some((entry) => entry.url === url))
    throw new AppError('conflict', said`${url} is always allowed.`);
  const issuer: AllowedIssuer = { url, provider, name: (request.name ?? url).slice(0, 100), requiredClaims };
  await deps.publishers.allowIssuer(
    issuer,
    deps.now(),
    auditEntry(acting, 'oidc_issuer.allowed', { details: { url, provider, requiredClaims: requiredClaims.join(' ') } }),
  );
  return issuer;
}

export async function removeIssuer(
  url: string,
  acting: Acting,
  deps: Pick<TrustedPublishingDeps, 'publishers' | 'now'>,
): Promise<void> {
  requireAdmin(acting, said`remove OpenID issuers.`);
  if (
    !(await deps.publishers.removeIssuer(
      url,
      deps.now(),
      auditEntry(acting, 'oidc_issuer.removed', { details: { url } }),
    ))
  )
    throw new AppError('not_found', said`${url} is not an issuer an administrator allowed.`);
}

/** The claims the audit log keeps of an exchange: what identifies the job, never the token. */
const AUDITED_CLAIMS = [
  'iss',
  'sub',
  'repository',
  'repository_id',
  'repository_owner_id',
  'workflow_ref',
  'project_path',
  'project_id',
  'namespace_id',
  'ref',
  'sha',
  'environment',
  'run_id',
  'run_attempt',
  'pipeline_id',
  'job_id',
  'jti',
] as const;

function auditedClaims(claims: IdTokenClaims): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of AUDITED_CLAIMS) {
    const value = claims[name];
    if (typeof value === 'string' || typeof value === 'number') kept[name] = String(value).slice(0, 300);
  }
  return kept;
}

/**
 * What marks an ID token as used: its issuer and `jti` when it has one, else its signature's
 * bytes. Not the text: base64url's spare bits and the decoder's leniency give many texts of one
 * token (the verifier also refuses texts that are not canonical).
 */
export function replayKey(idToken: string, claims: IdTokenClaims & { readonly iss: string }): string {
  const jti = claims['jti'];
  const signature = Buffer.from(idToken.slice(idToken.lastIndexOf('.') + 1), 'base64url');
  const identity =
    typeof jti === 'string' && jti !== '' ? `jti ${claims.iss} ${jti}` : `sig ${signature.toString('hex')}`;
  return createHash('sha256').update(identity).digest('hex');
}

export interface PublishingToken {
  readonly token: string;
  readonly expiresAt: Date;
  readonly app: string;
}

/**
 * `POST /api/v1/trusted-publishing/token`: a CI job's ID token, verified and matched against the
 * trusted publishers of its issuer (of `app` when named), becomes a token that can publish that
 * app's releases for 15 minutes. Each ID token is exchanged once. A refusal names the claim that
 * did not match and what the token said, never what another app's publisher expects.
 */
export async function exchangeIdToken(
  idToken: string,
  appId: string | undefined,
  address: string,
  deps: TrustedPublishingDeps,
): Promise<PublishingToken> {
  await deps.limiter.consume(RATE_LIMITS.trustedPublishing, address);
  if (appId !== undefined) await requireApp(appId, deps.registry);
  const now = deps.now();
  const claims = await deps.verifier.verify(idToken, {
    issuers: await allowedIssuers(deps),
    audiences: deps.audiences,
    now,
  });
  const candidates = (await deps.publishers.ofIssuer(claims.iss)).filter(
    (publisher) => appId === undefined || publisher.appId === appId,
  );
  const results = candidates.map((publisher) => ({ publisher, result: matchPublisher(claims, publisher) }));
  const matched = results.filter((entry) => entry.result.matches);
  if (matched.length === 0) {
    const near = results.find((entry) => !entry.result.matches && entry.result.sameRepository);
    if (near !== undefined && !near.result.matches)
      throw new AppError('forbidden', untrusted(appId, near.result.mismatch.detail, false), {
        [`claims.${near.result.mismatch.claim}`]: [near.result.mismatch.detail],
      });
    const first = results.find((entry) => !entry.result.matches);
    const detail =
      first !== undefined && !first.result.matches
        ? first.result.mismatch.detail
        : said`no trusted publisher of issuer ${claims.iss} is registered`;
    const claim = first !== undefined && !first.result.matches ? first.result.mismatch.claim : 'iss';
    throw new AppError('forbidden', untrusted(appId, detail, true), { [`claims.${claim}`]: [detail] });
  }
  const apps = [...new Set(matched.map((entry) => entry.publisher.appId))];
  if (apps.length > 1)
    throw new AppError(
      'invalid_request',
      said`Several apps trust this CI job (${apps.join(', ')}): name the one to publish with "app" in the body.`,
      { app: [said`name one app`] },
    );
  const chosen = matched[0];
  if (chosen === undefined || !chosen.result.matches) throw new Error('unreachable');
  const { publisher } = chosen;
  const app = await requireApp(publisher.appId, deps.registry);
  const owner = await deps.accounts.findUserById(app.ownerId);
  if (owner === null || !owner.isActive)
    throw new AppError('forbidden', said`The owner of ${app.appId} cannot publish now (the account is disabled).`);
  if (!(await deps.publishers.markIdTokenUsed(replayKey(idToken, claims), new Date(claims.exp * 1000))))
    throw new AppError(
      'not_authenticated',
      said`This ID token was exchanged already: each is used once. Ask the CI for a new one.`,
    );
  const pin = chosen.result.pin;
  if (pin.repositoryId !== null || pin.ownerId !== null) await deps.publishers.pin(publisher.id, pin);
  const provenance = provenanceOf(claims, publisher);
  const token = generateScopedToken('publishing');
  const expiresAt = new Date(now.getTime() + PUBLISHING_TOKEN_MS);
  const name = `${provenance.repository}${provenance.runId === null ? '' : ` run ${provenance.runId}`}`.slice(0, 100);
  const acting = visitorActing(
    address,
    null,
    `trusted publisher (${provenance.provider} ${provenance.repository})`.slice(0, 150),
  );
  await deps.tokens.insert(
    {
      userId: owner.id,
      kind: 'publishing',
      name,
      scopes: ['release:publish'],
      apps: [app.appId],
      createdAt: now,
      expiresAt,
      provenance,
      lookupHash: tokenLookupHash(deps.keys, token),
    },
    auditEntry(acting, 'trusted_publishing.exchanged', {
      appId: app.appId,
      subjectUser: owner.username,
      details: {
        publisher: describePublisher(publisher),
        ...auditedClaims(claims),
        expiresAt: expiresAt.toISOString(),
      },
    }),
    now,
  );
  return { token, expiresAt, app: app.appId };
}

/** No trusted publisher (of the app, or of any app) matches the job: why, and how to register one. */
function untrusted(appId: string | undefined, why: string | Said, tellOwner: boolean): Said {
  if (appId === undefined)
    return tellOwner
      ? said`No app on this store trusts this CI job: ${why}. The app's owner registers the repository and workflow on the app's page (Trusted publishers).`
      : said`No app on this store trusts this CI job: ${why}.`;
  return tellOwner
    ? said`The app ${appId} does not trust this CI job: ${why}. The app's owner registers the repository and workflow on the app's page (Trusted publishers).`
    : said`The app ${appId} does not trust this CI job: ${why}.`;
}
