/**
 * The one catalogue of error codes. Domain code throws `AppError` with one of these codes and a
 * sentence a person can act on; `http/error-status.ts` is the only place that turns a code into an
 * HTTP status, and the CLI prints the sentence.
 */
import type { Said } from './i18n/said.ts';
import { englishOf, isSaid } from './i18n/said.ts';

export const ERROR_CODES = [
  // request shape
  'invalid_request', // body, query or path parameter fails its schema
  'malformed_json', // the body is not JSON
  'unsupported_media_type',
  'payload_too_large',
  'headers_too_large', // the request line and headers exceed the server's limit
  'request_timeout', // the request was not received in time (headers or body)
  'expectation_failed', // an Expect header other than 100-continue
  // routing
  'not_found', // unknown path
  'method_not_allowed',
  // accounts and authentication
  'not_authenticated', // no, malformed or wrong credentials
  'second_factor_required', // the password was right; the account's second factor is due (or Basic cannot carry it)
  'forbidden', // authenticated, but not allowed
  'insufficient_scope', // a scoped token without the scope (or the app) the action needs
  'csrf_failed', // a session-authenticated change without the CSRF token
  'rate_limited',
  'user_exists',
  'user_not_found',
  'invalid_user', // a user's fields break a rule (name, password)
  'invalid_link', // a mailed link that is unknown, expired or already used
  'email_not_verified', // the right password, for an account whose address is not confirmed yet
  'signup_closed', // sign-up is by invitation only (APPSTORE_SIGNUP=closed)
  'external_login_failed', // an external login's answer cannot be trusted (state, nonce, ID token) or the provider refused
  'identity_provider_unavailable', // the identity provider cannot be reached, or answers what is not its protocol
  // certificates, signatures, registration
  'invalid_certificate', // not exactly one PEM X.509 certificate
  'certificate_untrusted', // not signed by this store's authority
  'certificate_expired',
  'certificate_not_yet_valid',
  'certificate_revoked',
  'invalid_app_id', // the certificate's CN is not an app id
  'invalid_signature',
  'invalid_csr',
  // release archives and info.xml
  'invalid_download', // the archive could not be fetched (or not within the limits)
  'invalid_archive',
  'invalid_info_xml',
  'authority_unavailable', // the store's own authority is not in use or not set up
  'app_not_found',
  'app_not_registered', // publishing for an app id nobody registered
  'release_not_found',
  'rating_not_found',
  'conflict', // the request is valid but contradicts the current state
  // catalogue imports (CLI) and admin data
  'invalid_import',
  // mirror mode (docs/mirror.md)
  'mirror_not_configured', // a mirror command on a store without APPSTORE_MIRROR_ROOT_CERT
  'upstream_unavailable', // the upstream store could not be read: nothing changed
  'upstream_unusable', // the upstream answered what is not a listing: nothing changed
  'invalid_mirror_file', // an export file that is damaged, or not this store's format: refused whole
  'archive_not_found', // no archive stored here for that release
  'range_not_satisfiable', // a Range outside the archive
  'archive_storage_unavailable', // the object storage holding the archives cannot be reached: nothing changed
  // server side
  'configuration_error', // a file or setting of the store itself is missing or wrong (the log says which)
  'database_unavailable',
  'restart_needed', // this node runs with a secret key that was rotated away: it waits for its restart
  'internal_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Per-field messages, keyed by the field's path (`download`, `0.translations.en.name`). */
export type FieldErrors = Record<string, string[]>;

/** Per-field messages as thrown: each may be said, to be translated on a page. */
export type SaidFieldErrors = Record<string, Array<string | Said>>;

export class AppError extends Error {
  /** The English detail: what the API and the CLI show. */
  readonly detail: string;
  /** The detail with what translates it, when it was written with the `said` tag. */
  readonly said?: Said;
  readonly errors?: FieldErrors;
  /** The field messages as thrown, when any was said. */
  readonly saidErrors?: SaidFieldErrors;

  constructor(
    readonly code: ErrorCode,
    detail: string | Said,
    errors?: SaidFieldErrors,
    /** For rate_limited: seconds until the client may try again. */
    readonly retryAfterSeconds?: number,
  ) {
    const english = englishOf(detail);
    super(english);
    this.name = 'AppError';
    this.detail = english;
    if (isSaid(detail)) this.said = detail;
    if (errors !== undefined) {
      const plain: FieldErrors = {};
      let anySaid = false;
      for (const [field, messages] of Object.entries(errors)) {
        plain[field] = messages.map(englishOf);
        anySaid ||= messages.some(isSaid);
      }
      this.errors = plain;
      if (anySaid) this.saidErrors = errors;
    }
  }
}

/** Seconds a client is told to wait (Retry-After) when the database cannot answer. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The database cannot answer now (down, unreachable, locked, full): 503 with Retry-After over HTTP. */
export function databaseUnavailable(detail: string): AppError {
  return new AppError('database_unavailable', detail, undefined, DATABASE_RETRY_AFTER_SECONDS);
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
