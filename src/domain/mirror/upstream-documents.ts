import { AppError, isAppError } from '../../errors.ts';
import { DOCUMENTS } from './mirror-ports.ts';
import type { DocumentAnswer, DocumentName, MirrorDeps, MirrorState, MirrorUpdate } from './mirror-ports.ts';
import { parseUpstreamListing, UnusableDocument } from './upstream-listing.ts';
import type { UpstreamListing } from './upstream-listing.ts';

/**
 * The upstream's documents, read for a sync or a plan (docs/mirror.md): each with its stored ETag,
 * each parsed or the sync refused with which document could not be used and why.
 */
export const upstreamUnusable = (name: string, problem: string): AppError =>
  new AppError(
    'upstream_unusable',
    `The upstream's ${name}.json cannot be used (${problem}): nothing was changed; the previous data stays served.`,
  );

/** The upstream's documents as a sync reads them: what is new (to store with its ETag), and every body. */
export interface Documents {
  readonly fresh: MirrorUpdate['documents'];
  readonly status: Record<DocumentName, 'unchanged' | 'fetched'>;
  readonly bodies: Record<DocumentName, string>;
}

/** Reads every document with If-None-Match; an upstream that cannot be read refuses the sync. */
export async function readDocuments(deps: MirrorDeps, state: MirrorState): Promise<Documents> {
  const fresh: { name: DocumentName; etag: string | null; body: string }[] = [];
  const status = {} as Record<DocumentName, 'unchanged' | 'fetched'>;
  const bodies = {} as Record<DocumentName, string>;
  for (const name of DOCUMENTS) {
    const stored = state.documents.get(name);
    let answer: DocumentAnswer;
    try {
      answer = await deps.upstream.document(name, stored?.etag ?? null);
      if (answer.kind === 'unchanged' && stored === undefined) answer = await deps.upstream.document(name, null);
    } catch (error) {
      if (!isAppError(error)) throw error;
      throw new AppError(
        'upstream_unavailable',
        `The upstream ${deps.upstream.url} could not be read (${name}.json: ${error.detail}): nothing was changed; the previous data stays served.`,
      );
    }
    if (answer.kind === 'unchanged') {
      status[name] = 'unchanged';
      bodies[name] = stored?.body ?? '';
    } else {
      status[name] = 'fetched';
      bodies[name] = answer.body;
      fresh.push({ name, etag: answer.etag, body: answer.body });
    }
  }
  return { fresh, status, bodies };
}

export function parseJson(name: string, body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw upstreamUnusable(name, 'not JSON');
  }
}

export function parseListing(name: DocumentName, body: string): UpstreamListing {
  try {
    return parseUpstreamListing(parseJson(name, body), name === 'appapi_apps');
  } catch (error) {
    if (error instanceof UnusableDocument) throw upstreamUnusable(name, error.message);
    throw error;
  }
}

export function parseCatalogue<T>(name: DocumentName, body: string, parse: (data: unknown) => T): T {
  try {
    return parse(parseJson(name, body));
  } catch (error) {
    if (isAppError(error) && error.code !== 'upstream_unusable') throw upstreamUnusable(name, error.detail);
    throw error;
  }
}
