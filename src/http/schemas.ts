import { Type } from 'typebox';
import { APP_ID_MAX_LENGTH, APP_ID_PATTERN } from '../domain/certificates/x509.ts';

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

export const errorResponse = (description: string) => ({ ...Type.Ref('ErrorBody'), description });

/** An app id in a path: malformed ones are 400s. */
export const AppIdParam = Type.String({ pattern: APP_ID_PATTERN.source, maxLength: APP_ID_MAX_LENGTH, description: 'App id' });

export const NotModifiedSchema = Type.Null({ description: 'Not modified: the ETag in If-None-Match is current' });
