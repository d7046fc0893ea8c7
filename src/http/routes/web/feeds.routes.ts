import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { feedFlag, releaseFeed } from '../../../domain/feeds/release-feed.ts';
import { atomFeed, rssFeed } from '../../../web/feed-xml.ts';
import { etagListMatches } from '../../conditional-get.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';

const FORMATS = {
  atom: { type: 'application/atom+xml; charset=utf-8', render: atomFeed },
  rss: { type: 'application/rss+xml; charset=utf-8', render: rssFeed },
} as const;

const Query = Type.Object(
  {
    app: Type.Optional(Type.String({ maxLength: 64, description: 'one app id: its releases only' })),
    nightly: Type.Optional(Type.String({ maxLength: 8, description: 'true: nightlies too' })),
    prerelease: Type.Optional(Type.String({ maxLength: 8, description: 'true: pre-releases (1.0.0-beta) too' })),
  },
  { additionalProperties: true },
);
type FeedQueryString = { app?: string; nightly?: string; prerelease?: string };

/**
 * The release feeds at the original's paths (issue 52): `/{lang}/feeds/releases.rss` and
 * `.atom` (and the same without the language, in English): the newest ten releases, `?app=`,
 * `?nightly=true`, `?prerelease=true`. ETag (the body's digest) and 304; cached five minutes.
 */
export async function feedRoutes(app: AppServer, container: Container): Promise<void> {
  const store = container.feeds;
  const site = `${container.publicUrl}/`;
  const serve =
    (format: keyof typeof FORMATS) =>
    async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const query = request.query as FeedQueryString;
      const lang = ((request.params as { lang?: string }).lang ?? 'en').toLowerCase();
      const releases = await releaseFeed(
        {
          appId: query.app === undefined || query.app === '' ? null : query.app,
          nightly: feedFlag(query.nightly),
          prerelease: feedFlag(query.prerelease),
          language: lang.split('-')[0] ?? 'en',
        },
        store,
      );
      const one = query.app === undefined || query.app === '' ? null : query.app;
      const body = FORMATS[format].render(
        {
          title: one === null ? 'Newest app releases' : `Newest releases of ${releases[0]?.appName ?? one}`,
          description: one === null ? 'Get the newest app release updates' : `The newest releases of ${one}`,
          siteUrl: site,
          selfUrl: `${container.publicUrl}${request.url}`,
          language: lang,
        },
        releases,
      );
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      reply.header('etag', etag).header('cache-control', 'public, max-age=300').header('vary', 'accept-encoding');
      const ifNoneMatch = request.headers['if-none-match'];
      if (typeof ifNoneMatch === 'string' && etagListMatches(ifNoneMatch, etag)) return reply.code(304).send();
      return reply.type(FORMATS[format].type).send(body);
    };
  for (const format of ['rss', 'atom'] as const) {
    const schema = {
      summary: `The newest ten releases as ${format === 'rss' ? 'RSS 2.0' : 'Atom'}`,
      tags: ['feeds'],
      querystring: Query,
      response: {
        200: Type.Any({ description: `The feed (${FORMATS[format].type})` }),
        304: Type.Null({ description: 'Not modified' }),
        ...errorResponses('invalid_request', 'app_not_found'),
      },
    };
    app.get(`/feeds/releases.${format}`, { schema }, serve(format));
    app.get(
      `/:lang/feeds/releases.${format}`,
      {
        schema: {
          ...schema,
          params: Type.Object({
            lang: Type.String({
              pattern: '^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})?$',
              description: 'a language code, as en or pt-br',
            }),
          }),
        },
      },
      serve(format),
    );
  }
}
