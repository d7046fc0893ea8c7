import type { ErrorCode } from '../errors.ts';
import type { SiteStrings } from './strings.ts';

/**
 * What a refused form says first in the page's language (issue 54): the error catalogue's
 * details are English, so a page in another language leads with a translated sentence by the
 * refusal's code, then shows the English detail marked as English.
 */
const BY_CODE: Partial<Record<ErrorCode, keyof SiteStrings>> = {
  invalid_request: 'refusedInvalidRequest',
  malformed_json: 'refusedInvalidRequest',
  payload_too_large: 'refusedPayloadTooLarge',
  not_found: 'refusedNotFound',
  user_not_found: 'refusedNotFound',
  release_not_found: 'refusedNotFound',
  rating_not_found: 'refusedNotFound',
  archive_not_found: 'refusedNotFound',
  not_authenticated: 'refusedNotAuthenticated',
  second_factor_required: 'refusedSecondFactor',
  forbidden: 'refusedForbidden',
  insufficient_scope: 'refusedForbidden',
  csrf_failed: 'refusedCsrf',
  rate_limited: 'refusedRateLimited',
  user_exists: 'refusedUserExists',
  invalid_user: 'refusedInvalidUser',
  invalid_link: 'refusedInvalidLink',
  email_not_verified: 'refusedEmailNotVerified',
  signup_closed: 'refusedSignupClosed',
  external_login_failed: 'refusedExternalLogin',
  invalid_certificate: 'refusedCertificate',
  certificate_untrusted: 'refusedCertificate',
  certificate_expired: 'refusedCertificate',
  certificate_not_yet_valid: 'refusedCertificate',
  certificate_revoked: 'refusedCertificate',
  invalid_signature: 'refusedSignature',
  invalid_csr: 'refusedCsr',
  invalid_download: 'refusedDownload',
  invalid_archive: 'refusedArchive',
  invalid_info_xml: 'refusedInfoXml',
  invalid_app_id: 'refusedAppId',
  app_not_found: 'refusedAppNotFound',
  app_not_registered: 'refusedAppNotFound',
  conflict: 'refusedConflict',
  identity_provider_unavailable: 'refusedUnavailable',
  authority_unavailable: 'refusedUnavailable',
  upstream_unavailable: 'refusedUnavailable',
  archive_storage_unavailable: 'refusedUnavailable',
  database_unavailable: 'refusedUnavailable',
};

/** Refusals whose translated sentence says it all: the English detail is not shown after it. */
const WHOLE: ReadonlySet<ErrorCode> = new Set(['csrf_failed', 'signup_closed']);

/** The translated lead of a refusal, and whether the English detail follows it. */
export function refusalSummary(
  s: SiteStrings,
  code: ErrorCode,
): { readonly text: string; readonly detailFollows: boolean } {
  const key = BY_CODE[code] ?? 'refusedGeneric';
  return { text: String(s[key]), detailFollows: !WHOLE.has(code) };
}
