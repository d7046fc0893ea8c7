import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { APP_ID_PATTERN } from '../../../domain/app-id.ts';
import { AppError } from '../../../errors.ts';
import { etagListMatches } from '../../conditional-get.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';

const FILE_PATTERN = '^[0-9][0-9A-Za-z.+-]{0,63}\\.tar\\.gz$';

/** A single byte range of `size` bytes (RFC 9110 §14.1.2); null: serve it all (no range, several, or a form not understood). */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/**
 * The archives this store hosts (kept at publish, uploaded, or mirrored: docs/decisions.md,
 * docs/mirror.md): one stable URL per release, which the listings give as `download`. ETag (the
 * SHA-256), Range and HEAD, as download tools and Nextcloud's HTTP client expect. Each full
 * download (or one from the first byte) is counted, in memory and written in batches.
 */
export async function archiveRoutes(app: AppServer, container: Container): Promise<void> {
  const { archives, storage } = container.mirror;
  const params = Type.Object({
    appId: Type.String({ pattern: APP_ID_PATTERN.source, maxLength: 32 }),
    file: Type.String({ pattern: FILE_PATTERN, description: 'VERSION.tar.gz' }),
  });
  const schema = {
    description:
      'The URL the listings give as `download` for a release whose archive this store keeps (published or uploaded here, or taken from the upstream in mirror mode). ETag is the SHA-256; HEAD, If-None-Match (304) and one Range (206) are answered.',
    tags: ['archives'],
    params,
    response: {
      200: Type.Any({ description: 'The archive (application/gzip)' }),
      206: Type.Any({ description: 'The requested range' }),
      304: Type.Null({ description: 'Not modified' }),
      ...errorResponses('invalid_request', 'archive_not_found', 'range_not_satisfiable', 'archive_storage_unavailable'),
    },
  };
  const serve =
    (nightly: boolean) =>
    async (
      request: {
        params: { appId: string; file: string };
        headers: Record<string, string | string[] | undefined>;
        method: string;
      },
      reply: FastifyReply,
    ) => {
      const { appId } = request.params;
      const version = request.params.file.slice(0, -'.tar.gz'.length);
      const missing = (): AppError =>
        new AppError(
          'archive_not_found',
          `This store hosts no archive of ${appId} ${version}${nightly ? ' (nightly)' : ''}: the listings give the download of every release.`,
        );
      const found = await archives.find(appId, version, nightly);
      if (found === null) throw missing();
      if (found.retired !== null)
        throw new AppError(
          'archive_not_found',
          `${appId} ${version}${nightly ? ' (nightly)' : ''} was retired by its developer (${found.retired}): it is no longer offered. The listings give the releases to install.`,
        );
      const etag = `"${found.sha256}"`;
      const headers = {
        etag,
        'accept-ranges': 'bytes',
        'cache-control': 'public, max-age=3600',
        'content-disposition': `attachment; filename="${appId}-${version}.tar.gz"`,
        'x-content-type-options': 'nosniff',
      };
      const ifNoneMatch = request.headers['if-none-match'];
      if (typeof ifNoneMatch === 'string' && etagListMatches(ifNoneMatch, etag))
        return reply.headers(headers).code(304).send();
      const rangeHeader = typeof request.headers.range === 'string' ? request.headers.range : undefined;
      const ifRange = request.headers['if-range'];
      let range = parseRange(rangeHeader, found.size);
      if (typeof ifRange === 'string' && ifRange !== etag) range = null;
      if (range === 'unsatisfiable') {
        reply.header('content-range', `bytes */${found.size}`);
        throw new AppError(
          'range_not_satisfiable',
          `The archive has ${found.size} bytes: ${String(rangeHeader).slice(0, 60)} asks for none of them.`,
        );
      }
      // HEAD only asks whether the archive is there: nothing is read (Fastify's own HEAD would read it all).
      const head = request.method === 'HEAD';
      const body = head ? null : await storage.open(found.sha256, range ?? undefined);
      if (head ? !(await storage.has(found.sha256)) : body === null) throw missing();
      if (!head && (range === null || range.start === 0)) container.downloads.counter.count(found.releaseId);
      const sent = range ?? { start: 0, end: found.size - 1 };
      reply
        .headers(headers)
        .type('application/gzip')
        .header('content-length', sent.end - sent.start + 1);
      if (range !== null) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${found.size}`);
      return head ? reply.send() : reply.send(body);
    };
  // HEAD has a handler of its own (see above); the API page documents it with the GET.
  for (const [url, nightly, summary] of [
    ['/api/v1/archives/:appId/:file', false, "A release's archive kept here (HEAD, If-None-Match and one Range too)"],
    [
      '/api/v1/archives/:appId/nightly/:file',
      true,
      "A nightly release's archive kept here (HEAD, If-None-Match and one Range too)",
    ],
  ] as const) {
    app.route({ method: 'GET', url, exposeHeadRoute: false, schema: { ...schema, summary }, handler: serve(nightly) });
    app.route({ method: 'HEAD', url, schema: { ...schema, summary, hide: true }, handler: serve(nightly) });
  }
}
