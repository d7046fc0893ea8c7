import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
import { externalLoginFailed } from '../domain/accounts/external-login.ts';
import { AppError } from '../errors.ts';

/** An error's `code` and `cause`, as openid-client and oauth4webapi give them. */
interface CodedError {
  readonly code?: unknown;
  readonly name: string;
  readonly message: string;
  readonly cause?: unknown;
  /** An OAuth error answer (ResponseBodyError, AuthorizationResponseError). */
  readonly error?: unknown;
  readonly error_description?: unknown;
}

const coded = (value: unknown): CodedError | null => (value instanceof Error ? (value as CodedError) : null);

/** What the client library's refusal means for the person signing in, as a sentence. */
function explain(name: string, error: CodedError): Said {
  const cause = coded(error.cause) ?? error;
  const claim = (cause.cause as { claim?: unknown } | undefined)?.claim;
  switch (error.code) {
    case 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED':
      return said`The ID token from ${name} has expired or is not valid yet (${cause.message}).`;
    case 'OAUTH_JWT_CLAIM_COMPARISON_FAILED':
      if (claim === 'nonce')
        return said`The ID token from ${name} was made for another sign-in: its nonce is not the one this sign-in sent.`;
      if (claim === 'aud' || claim === 'azp')
        return said`The ID token from ${name} was issued for another client than this store (its audience).`;
      if (claim === 'iss') return said`The ID token was issued by another issuer than ${name}'s.`;
      return typeof claim === 'string'
        ? said`The ID token from ${name} has an unexpected "${claim}" claim (${cause.message}).`
        : said`The ID token from ${name} has an unexpected claim (${cause.message}).`;
    case 'OAUTH_KEY_SELECTION_FAILED':
      return said`The ID token is signed with a key ${name} does not publish.`;
    default:
      if (/signature verification failed/i.test(cause.message))
        return said`The ID token's signature does not verify with ${name}'s published keys.`;
      return said`${name}'s answer could not be verified (${cause.message}).`;
  }
}

/**
 * Codes of answers that are not the protocol at all: the provider is down, does not answer in
 * time (OAUTH_TIMEOUT: it accepted the connection and said nothing), or something else answers in
 * its place.
 */
const UNAVAILABLE = new Set([
  'OAUTH_RESPONSE_IS_NOT_CONFORM',
  'OAUTH_RESPONSE_IS_NOT_JSON',
  'OAUTH_PARSE_ERROR',
  'OAUTH_MISSING_SERVER_METADATA',
  'OAUTH_INVALID_SERVER_METADATA',
  'OAUTH_TIMEOUT',
  'OAUTH_ABORT',
]);

/** A network failure anywhere in the chain of causes (fetch's TypeError, a refused or reset connection, a timeout). */
function unreachable(error: CodedError): boolean {
  for (let at: unknown = error; at instanceof Error; at = (at as CodedError).cause) {
    const failure = at as CodedError;
    // fetch's "fetch failed" (no code; a library's argument errors carry ERR_ codes and are not this).
    if (at instanceof TypeError && !(typeof failure.code === 'string' && failure.code.startsWith('ERR_'))) return true;
    if (failure.name === 'AbortError' || failure.name === 'TimeoutError') return true;
    if (
      typeof failure.code === 'string' &&
      (UNAVAILABLE.has(failure.code) || /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(failure.code))
    )
      return true;
  }
  return false;
}

/**
 * A failure of the provider's protocol as the catalogue's error: an answer that cannot be trusted
 * is `external_login_failed` (a 400 page that says why); a provider that cannot be reached, or
 * answers what is not its protocol, is `identity_provider_unavailable`.
 */
export function providerFailure(name: string, error: unknown): AppError {
  if (error instanceof AppError) return error;
  const failure = coded(error);
  if (failure === null) return externalLoginFailed(said`${name}'s answer could not be used.`);
  if (typeof failure.error === 'string') {
    const answered = failure.error.slice(0, 100);
    const description =
      typeof failure.error_description === 'string' && failure.error_description !== ''
        ? failure.error_description.slice(0, 300)
        : '';
    return externalLoginFailed(
      description === ''
        ? said`${name} refused the sign-in (it answered "${answered}").`
        : said`${name} refused the sign-in (it answered "${answered}: ${description}").`,
    );
  }
  if (unreachable(failure)) {
    // The cause (addresses, ports) stays in the log, where the error handler writes it.
    const unavailable = new AppError(
      'identity_provider_unavailable',
      said`${name} cannot be reached, or does not answer as an identity provider should. Try again later; if it lasts, tell the store's operators.`,
    );
    unavailable.cause = failure;
    return unavailable;
  }
  return externalLoginFailed(explain(name, failure));
}
