import type { ErrorCode } from '../errors.ts';

/** The one place where error codes become HTTP statuses. A code without a status fails to compile. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_request: 400,
  malformed_json: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  not_found: 404,
  method_not_allowed: 405,
  not_authenticated: 401,
  forbidden: 403,
  csrf_failed: 403,
  rate_limited: 429,
  user_exists: 409,
  user_not_found: 404,
  invalid_user: 400,
  invalid_import: 400,
  database_unavailable: 503,
  internal_error: 500,
};
