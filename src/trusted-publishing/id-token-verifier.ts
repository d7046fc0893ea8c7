import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import type { JSONWebKeySet, JWTPayload } from 'jose';
import { guardedAgent, guardedRequest, readLimited } from '../downloads/archive-downloader.ts';
import type { DownloadOptions } from '../downloads/archive-downloader.ts';
import type { IdTokenVerifier } from '../domain/trusted-publishing/trusted-publishing.ts';
import type { AllowedIssuer } from '../domain/trusted-publishing/publishers.ts';
import { AppError } from '../errors.ts';

/** Seconds of clock difference tolerated on exp, nbf and iat. */
export const CLOCK_SKEW_SECONDS = 60;
/** The keys of an issuer are fetched again after this long, and on an unknown key id (not more than once per cooldown). */
const KEYS_MAX_AGE_MS = 60 * 60_000;
const REFRESH_COOLDOWN_MS = 5_000;
const MAX_DOCUMENT_BYTES = 256 * 1024;
/** The longest an ID token may claim to live from now: longer is not a CI job's token (and could outlive the replay record). */
const MAX_LIFETIME_SECONDS = 7 * 86_400;
/** Three base64url segments, nothing else (no padding, no whitespace jose's decoder would skip). */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
/** Asymmetric algorithms only: never `none`, never an HMAC keyed with something public. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'];

const refuse = (detail: Said): AppError =>
  new AppError('not_authenticated', said`The ID token was not accepted: ${detail}.`);

interface CachedKeys {
  readonly keys: JSONWebKeySet;
  readonly kids: ReadonlySet<string>;
  readonly fetchedAt: number;
}

/**
 * Verifies CI jobs' ID tokens (issue 53): the issuer must be allowed; its keys come from its
 * discovery document's `jwks_uri`, fetched through the download guard (HTTPS, allowed addresses,
 * size and time limits), cached, and fetched again on an unknown key id; jose checks the
 * signature, `iss`, `aud`, `exp`, `nbf` and `iat` with CLOCK_SKEW_SECONDS.
 */
export function idTokenVerifier(
  options: Omit<DownloadOptions, 'maxBytes'>,
  clock: () => Date = () => new Date(),
): IdTokenVerifier {
  const download: DownloadOptions = { ...options, maxBytes: MAX_DOCUMENT_BYTES };
  const agent = guardedAgent(download);
  const cache = new Map<string, CachedKeys>();
  /** Fetches under way, shared by the tokens that wait for them (a burst of tokens with a new kid fetches once). */
  const loading = new Map<string, Promise<CachedKeys>>();

  async function fetchJson(url: string, what: string): Promise<unknown> {
    const signal = AbortSignal.timeout(download.timeoutMs);
    try {
      const { response, host } = await guardedRequest(agent, download, url, {
        method: 'GET',
        signal,
        headers: { accept: 'application/json', 'user-agent': 'appstore-trusted-publishing' },
      });
      if (response.statusCode !== 200) {
        await response.body.dump().catch(() => undefined);
        throw new Error(`HTTP ${response.statusCode}`);
      }
      const body = await readLimited(response, host, MAX_DOCUMENT_BYTES, what, download, signal);
      return JSON.parse(body.toString('utf8')) as unknown;
    } catch (error) {
      // The download guard speaks of archives; here it fetched the issuer's documents.
      const reason = (
        error instanceof AppError ? error.detail : error instanceof Error ? error.message : 'failed'
      ).replace('could not fetch the archive from', 'could not reach');
      const hint = reason.includes('private, loopback or reserved')
        ? ' (an issuer on the intranet, such as GitHub Enterprise Server, needs APPSTORE_DOWNLOAD_ALLOW_PRIVATE=1)'
        : '';
      throw new AppError(
        'identity_provider_unavailable',
        said`Could not read the ${what} of the issuer: ${reason}${hint}.`,
      );
    }
  }

  function loadKeys(issuer: string): Promise<CachedKeys> {
    const under = loading.get(issuer);
    if (under !== undefined) return under;
    const load = fetchKeys(issuer).finally(() => loading.delete(issuer));
    loading.set(issuer, load);
    return load;
  }

  async function fetchKeys(issuer: string): Promise<CachedKeys> {
    const discovery = (await fetchJson(`${issuer}/.well-known/openid-configuration`, 'discovery document')) as {
      issuer?: unknown;
      jwks_uri?: unknown;
    };
    if (
      discovery.issuer !== issuer ||
      typeof discovery.jwks_uri !== 'string' ||
      !discovery.jwks_uri.startsWith('https://')
    )
      throw new AppError(
        'identity_provider_unavailable',
        said`The discovery document of ${issuer} does not name this issuer or an https:// jwks_uri.`,
      );
    const keys = (await fetchJson(discovery.jwks_uri, 'keys (JWKS)')) as JSONWebKeySet;
    if (typeof keys !== 'object' || keys === null || !Array.isArray(keys.keys))
      throw new AppError('identity_provider_unavailable', said`The keys of ${issuer} are not a JWK set.`);
    const entry: CachedKeys = {
      keys,
      kids: new Set(keys.keys.map((key) => key.kid).filter((kid): kid is string => typeof kid === 'string')),
      fetchedAt: clock().getTime(),
    };
    cache.set(issuer, entry);
    return entry;
  }

  async function keysFor(issuer: string, kid: string | undefined): Promise<CachedKeys> {
    const cached = cache.get(issuer);
    const age = cached === undefined ? Infinity : clock().getTime() - cached.fetchedAt;
    if (cached === undefined || age > KEYS_MAX_AGE_MS) return loadKeys(issuer);
    // A key the cache does not know: the issuer rotated its keys (within the cooldown, the cache answers).
    if (kid !== undefined && !cached.kids.has(kid) && age > REFRESH_COOLDOWN_MS) return loadKeys(issuer);
    return cached;
  }

  return {
    async verify(idToken, { issuers, audiences, now }) {
      let unverified: JWTPayload;
      let kid: string | undefined;
      if (!COMPACT_JWS.test(idToken) || !canonical(idToken))
        throw refuse(said`it is not a JWT in compact form (three base64url parts, without padding or spaces)`);
      try {
        unverified = decodeJwt(idToken);
        kid = decodeProtectedHeader(idToken).kid;
      } catch {
        throw refuse(said`it is not a JWT (header.payload.signature, base64url)`);
      }
      const iss = typeof unverified.iss === 'string' ? unverified.iss : '';
      const issuer: AllowedIssuer | undefined = issuers.find((entry) => entry.url === iss);
      if (issuer === undefined)
        throw refuse(
          said`its issuer (iss ${JSON.stringify(iss.slice(0, 200))}) is not one this store allows: GitHub Actions, GitLab.com, or one an administrator added`,
        );
      const keys = await keysFor(issuer.url, kid);
      try {
        const { payload } = await jwtVerify(idToken, createLocalJWKSet(keys.keys), {
          issuer: issuer.url,
          audience: [...audiences],
          algorithms: ALGORITHMS,
          clockTolerance: CLOCK_SKEW_SECONDS,
          currentDate: now,
          requiredClaims: ['exp', 'iat'],
        });
        if (typeof payload.iat === 'number' && payload.iat > now.getTime() / 1000 + CLOCK_SKEW_SECONDS)
          throw refuse(said`it was issued in the future (iat)`);
        if ((payload.exp ?? 0) > now.getTime() / 1000 + MAX_LIFETIME_SECONDS)
          throw refuse(said`it claims to be valid for more than 7 days (exp): no CI job token does`);
        return { ...payload, iss: issuer.url, exp: payload.exp ?? 0 };
      } catch (error) {
        if (error instanceof AppError) throw error;
        throw explain(error, audiences);
      }
    },
  };
}

/** Each segment decodes and encodes back to itself: no second text of the same bytes. */
function canonical(idToken: string): boolean {
  return idToken.split('.').every((part) => Buffer.from(part, 'base64url').toString('base64url') === part);
}

function explain(error: unknown, audiences: readonly string[]): AppError {
  if (error instanceof errors.JWTExpired) return refuse(said`it has expired (exp): ask the CI for a new one`);
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return refuse(said`it is not valid yet (nbf is in the future)`);
    if (error.claim === 'aud')
      return refuse(
        said`its audience (aud) is not this store: request the token with the audience ${JSON.stringify(audiences[0] ?? '')}`,
      );
    return refuse(said`its ${error.claim} claim is not valid (${error.reason})`);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return refuse(said`its signature does not verify with the issuer's keys`);
  if (error instanceof errors.JWKSNoMatchingKey)
    return refuse(said`the issuer has no key with the token's key id (kid)`);
  if (error instanceof errors.JOSEAlgNotAllowed) return refuse(said`its algorithm (alg) is not allowed`);
  if (error instanceof errors.JOSEError) return refuse(said`it is malformed (${error.code})`);
  return refuse(said`it could not be verified`);
}
