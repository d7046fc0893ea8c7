import { Type } from 'typebox';
import { APP_ID_MAX_LENGTH, APP_ID_PATTERN } from '../domain/app-id.ts';
import type { ErrorCode } from '../errors.ts';
import { ERROR_STATUS } from './error-status.ts';

/** The error body every 4xx and 5xx carries (contract §2). */
export const ErrorBodySchema = Type.Object(
  {
    detail: Type.String({ description: 'A sentence a person can act on' }),
    code: Type.String({ description: 'Stable snake_case error code' }),
    errors: Type.Optional(
      Type.Record(Type.String(), Type.Array(Type.String()), { description: 'Request validation: field → messages' }),
    ),
  },
  { $id: 'ErrorBody', title: 'Error' },
);

/** What any route with a body may be refused for before its handler runs. */
export const BODY_ERRORS = [
  'invalid_request',
  'malformed_json',
  'unsupported_media_type',
  'payload_too_large',
] as const satisfies readonly ErrorCode[];
/** What an authenticated route may be refused for before its handler runs. */
export const AUTH_ERRORS = [
  'not_authenticated',
  'rate_limited',
  'second_factor_required',
] as const satisfies readonly ErrorCode[];
/** The same for a route that takes tokens: a scoped token without the route's scope (or app) is refused too. */
export const TOKEN_AUTH_ERRORS = [...AUTH_ERRORS, 'insufficient_scope'] as const satisfies readonly ErrorCode[];

/**
 * The error responses of a route, from the codes it refuses with: the statuses come from the one
 * code → status table, so the OpenAPI document cannot drift from what the route answers.
 */
export function errorResponses(...codes: ReadonlyArray<ErrorCode | readonly ErrorCode[]>) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes.flat()) {
    const status = ERROR_STATUS[code];
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      { ...Type.Ref('ErrorBody'), description: `code: ${list.join(', ')}` },
    ]),
  );
}

/** An app id in a path: malformed ones are 400s that say what an app id looks like. */
export const AppIdParam = Type.String({
  pattern: APP_ID_PATTERN.source,
  maxLength: APP_ID_MAX_LENGTH,
  description: 'an app id: lower-case letters a-z, digits and underscores, such as news or files_antivirus',
});

export const NotModifiedSchema = Type.Null({ description: 'Not modified: the ETag in If-None-Match is current' });
