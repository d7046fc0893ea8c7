import { said } from '../i18n/said.ts';
import { MAX_DOCUMENT_BYTES } from '../domain/mirror/mirror-ports.ts';
import type { DocumentName, Upstream } from '../domain/mirror/mirror-ports.ts';
import { createDownloader, guardedAgent, guardedRequest, readLimited, refuse } from './archive-downloader.ts';
import type { DownloadOptions } from './archive-downloader.ts';

/**
 * The upstream store as mirror mode reaches it: the same SSRF guard, redirect rules, time and
 * size limits as release downloads (archive-downloader.ts). Documents are read with
 * If-None-Match, so an unchanged listing costs a 304.
 */
export function createUpstreamClient(url: string, options: DownloadOptions): Upstream {
  const agent = guardedAgent(options);
  const download = createDownloader(options, agent);
  return {
    url,
    async document(name: DocumentName, etag: string | null) {
      const signal = AbortSignal.timeout(Math.max(options.timeoutMs, 120_000));
      const headers: Record<string, string> = { 'user-agent': 'appstore-mirror', accept: 'application/json' };
      if (etag !== null) headers['if-none-match'] = etag;
      const { response, host } = await guardedRequest(agent, options, `${url}/${name}.json`, {
        method: 'GET',
        headers,
        signal,
      });
      if (response.statusCode === 304) {
        await response.body.dump().catch(() => undefined);
        return { kind: 'unchanged' };
      }
      if (response.statusCode !== 200) {
        await response.body.dump().catch(() => undefined);
        throw refuse(said`HTTP ${response.statusCode} from ${host}`);
      }
      const body = (await readLimited(response, host, MAX_DOCUMENT_BYTES, `${name}.json`, options, signal)).toString(
        'utf8',
      );
      const tag = response.headers.etag;
      return { kind: 'fetched', body, etag: typeof tag === 'string' && tag.length <= 512 ? tag : null };
    },
    async archive(address) {
      return (await download(address)).bytes;
    },
    async archiveSize(address) {
      const signal = AbortSignal.timeout(options.timeoutMs);
      const { response } = await guardedRequest(agent, options, address, {
        method: 'HEAD',
        headers: { 'user-agent': 'appstore-mirror' },
        signal,
      });
      await response.body.dump().catch(() => undefined);
      const length = Number(response.headers['content-length'] ?? Number.NaN);
      return response.statusCode === 200 && Number.isFinite(length) ? length : null;
    },
  };
}
