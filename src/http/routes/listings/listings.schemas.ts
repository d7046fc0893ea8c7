import { Type } from 'typebox';
import { NotModifiedSchema } from '../../schemas.ts';

/** Headers a listing request may send; all optional. */
export const ListingRequestHeaders = Type.Object({
  'if-none-match': Type.Optional(Type.String({ description: 'ETag of a previous response' })),
  'if-modified-since': Type.Optional(Type.String({ description: 'HTTP date; used when If-None-Match is absent' })),
  'accept-encoding': Type.Optional(Type.String({ description: 'br and gzip are served pre-compressed' })),
});

export function listingResponses(item: string, description: string) {
  return {
    200: Type.Array(Type.Ref(item), { description }),
    304: NotModifiedSchema,
  };
}
