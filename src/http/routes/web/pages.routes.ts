import { said } from '../../../i18n/said.ts';
import fs from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { projectFile } from '../../../project-files.ts';
import { findCategory } from '../../../domain/browse/browse-catalog.ts';
import { LANGUAGE_COOKIE, LANGUAGE_PATTERN } from '../../../web/languages.ts';
import { localPath } from '../../../web/local-path.ts';
import { searchApps } from '../../../domain/browse/search-catalog.ts';
import { defaultSort, SORTS } from '../../../domain/browse/search-index.ts';
import type { SearchQuery } from '../../../domain/browse/search-catalog.ts';
import { searchPage } from '../../../web/pages/search-page.ts';
import { PAGE_RESPONSE, sendPage } from '../../html-reply.ts';
import { homePage } from '../../../web/pages/home-page.ts';
import { AnonymousPages } from '../../anonymous-pages.ts';
import { errorResponses } from '../../schemas.ts';
import { pageSetting } from '../../page-context.ts';
import { visitorOf } from '../../web-visitor.ts';
import { isSiteLanguage } from '../../../i18n/site-languages.ts';
import type { AppServer } from '../../types.ts';
import { AppError } from '../../../errors.ts';
import { etagListMatches } from '../../conditional-get.ts';

const STYLESHEET = fs.readFileSync(projectFile('src/web/static/site.css'));
/** The script of trusted publishing's workflows (issue 53): developers copy it into their repositories. */
const PUBLISH_SCRIPT = fs.readFileSync(projectFile('src/web/static/publish-release.sh'));
/** The passkey prompts of the sign-in and security pages: the site's one script. */
const PASSKEY_SCRIPT = fs.readFileSync(projectFile('src/web/static/passkeys.js'));

const ICON_HEADERS = {
  'cache-control': 'public, max-age=31536000, immutable',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'content-disposition': 'attachment; filename="icon.svg"',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
};

/** An address that names its content (icons, screenshots): a matching ETag needs no lookup. */
const notModified = (request: FastifyRequest, etag: string): boolean =>
  request.headers['if-none-match'] !== undefined && etagListMatches(request.headers['if-none-match'], etag);

const SCREENSHOT_HEADERS = {
  'cache-control': 'public, max-age=31536000, immutable',
  'content-security-policy': "default-src 'none'; sandbox",
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
};

/** The public website: server-rendered pages that work without JavaScript (docs/website.md). */
export async function pageRoutes(app: AppServer, container: Container): Promise<void> {
  const anonymous = new AnonymousPages();
  app.get('/', {
    schema: { hide: true, response: PAGE_RESPONSE },
    handler: async (request, reply) => {
      const setting = await pageSetting(request, reply, container);
      const { catalog, context, display } = setting;
      return sendPage(
        request,
        reply,
        anonymous.page(setting, () => homePage(catalog.home, context, display)),
      );
    },
  });

  const SearchQueryString = Type.Object(
    {
      q: Type.Optional(Type.String({ maxLength: 100, description: 'words to find in app ids, names and summaries' })),
      category: Type.Optional(Type.String({ maxLength: 64, description: 'a category id' })),
      nextcloud: Type.Optional(
        Type.String({
          maxLength: 20,
          pattern: '^([0-9]{1,4}(\\.[0-9]{1,4}){0,2})?$',
          description: 'a Nextcloud version such as 30 or 30.0.2',
        }),
      ),
      featured: Type.Optional(Type.String({ enum: ['', '1'], description: '1 for featured apps only' })),
      deprecated: Type.Optional(Type.String({ enum: ['', '1'], description: '1 to include deprecated apps' })),
      sort: Type.Optional(Type.String({ enum: ['', ...SORTS], description: `one of ${SORTS.join(', ')}` })),
      page: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$', description: 'a page number' })),
    },
    { additionalProperties: true },
  );

  async function showSearch(request: FastifyRequest, reply: FastifyReply, query: SearchQuery, categoryPage = false) {
    const { catalog, context, display } = await pageSetting(request, reply, container);
    // A category page for a category the store does not know is a 404, not an empty list.
    if (categoryPage && query.category !== null) findCategory(catalog.categories, query.category);
    return searchPage(
      query,
      searchApps(catalog, query),
      catalog.listedCategories,
      { ...context, query: query.text },
      display,
    );
  }

  app.get('/search', {
    schema: {
      hide: true,
      querystring: SearchQueryString,
      response: { ...PAGE_RESPONSE, ...errorResponses('invalid_request') },
    },
    handler: async (request, reply) => {
      const q = request.query;
      const text = (q.q ?? '').trim();
      const query: SearchQuery = {
        text,
        category: q.category === undefined || q.category === '' ? null : q.category,
        nextcloud: q.nextcloud === undefined || q.nextcloud === '' ? null : q.nextcloud,
        featuredOnly: q.featured === '1',
        deprecated: q.deprecated === '1',
        sort: SORTS.find((sort) => sort === q.sort) ?? defaultSort(text),
        page: Number(q.page ?? '1') || 1,
      };
      return sendPage(request, reply, await showSearch(request, reply, query));
    },
  });

  app.get('/categories/:category', {
    schema: {
      hide: true,
      params: Type.Object({ category: Type.String({ maxLength: 64, description: 'a category id' }) }),
      response: { ...PAGE_RESPONSE, ...errorResponses('invalid_request', 'not_found') },
    },
    handler: async (request, reply) =>
      sendPage(
        request,
        reply,
        await showSearch(
          request,
          reply,
          {
            text: '',
            category: request.params.category,
            nextcloud: null,
            featuredOnly: false,
            deprecated: false,
            sort: 'rating',
            page: 1,
          },
          true,
        ),
      ),
  });

  // The language switcher's target: remembers the choice for a year and returns to the page.
  app.get('/language', {
    schema: {
      hide: true,
      querystring: Type.Object({
        lang: Type.String({ pattern: LANGUAGE_PATTERN.source, description: 'a language code such as de or pt_BR' }),
        next: Type.Optional(Type.String({ maxLength: 2000 })),
      }),
      response: {
        303: Type.Null({ description: 'Back to the page, in the chosen language' }),
        ...errorResponses('invalid_request'),
      },
    },
    handler: async (request, reply) => {
      // A signed-in user's choice of a shipped language is kept with the account too: their mails
      // are written in it. Only when the browser says the switcher was used on the store's own
      // page (a top-level navigation from the same origin): not from a link on another site, not
      // from an image or any other embedded request, not from a browser that does not say.
      const fromHere =
        request.headers['sec-fetch-site'] === 'same-origin' &&
        request.headers['sec-fetch-mode'] === 'navigate' &&
        request.headers['sec-fetch-dest'] === 'document';
      if (fromHere && isSiteLanguage(request.query.lang)) {
        const visitor = await visitorOf(request, container);
        if (visitor.user !== null) await container.accounts.store.setLanguage(visitor.user.id, request.query.lang);
      }
      reply.setCookie(LANGUAGE_COOKIE, request.query.lang, {
        path: '/',
        maxAge: 365 * 86_400,
        sameSite: 'lax',
        httpOnly: true,
        secure: request.protocol === 'https',
      });
      return reply.redirect(localPath(request.query.next), 303);
    },
  });

  // App icons, rebuilt safe at publishing (domain/releases/app-icon.ts). The address holds the
  // content hash, so browsers keep them for a year. They are documents that could hold script if
  // the rebuild missed something: their own CSP forbids everything but drawing (sandboxed, no
  // script, no fetches), and opened directly they download instead of rendering on the store's
  // origin. As <img> they only ever draw.
  app.get('/icons/:file', {
    schema: {
      hide: true,
      params: Type.Object({ file: Type.String({ pattern: '^[0-9a-f]{32}\\.svg$', description: 'HASH.svg' }) }),
      response: {
        200: Type.String({ description: 'An SVG icon' }),
        304: Type.Unknown({ description: 'Not modified: no body' }),
        ...errorResponses('invalid_request', 'not_found'),
      },
    },
    handler: async (request, reply) => {
      const hash = request.params.file.slice(0, 32);
      const etag = `"${hash}"`;
      if (notModified(request, etag))
        return reply
          .headers({ ...ICON_HEADERS, etag })
          .code(304)
          .send();
      const svg = await container.browse.icon(hash);
      if (svg === null)
        throw new AppError(
          'not_found',
          said`There is no icon ${hash}: the app's latest release may have another one now.`,
        );
      return reply
        .headers({ ...ICON_HEADERS, etag })
        .type('image/svg+xml')
        .send(svg);
    },
  });

  // Screenshots and their thumbnails, copied by the store (issue 54): the address holds the content
  // hash, so browsers keep them for a year; only images a copy names are served, as the type it
  // was checked to be, never sniffed, and never as a document that could run anything.
  app.get('/screenshots/:file', {
    schema: {
      hide: true,
      params: Type.Object({
        file: Type.String({ pattern: '^[0-9a-f]{64}\\.(png|jpg|gif|webp)$', description: 'SHA256.png' }),
      }),
      response: {
        200: Type.Unknown({ description: 'The image' }),
        304: Type.Unknown({ description: 'Not modified: no body' }),
        ...errorResponses('invalid_request', 'not_found'),
      },
    },
    handler: async (request, reply) => {
      const hash = request.params.file.slice(0, 64);
      const etag = `"${hash}"`;
      if (notModified(request, etag))
        return reply
          .headers({ ...SCREENSHOT_HEADERS, etag })
          .code(304)
          .send();
      const type = await container.screenshots.deps.store.servedType(hash);
      const stream = type === null ? null : await container.screenshots.deps.storage.open(hash);
      if (type === null || stream === null) throw new AppError('not_found', said`There is no screenshot ${hash}.`);
      return reply
        .headers({ ...SCREENSHOT_HEADERS, etag })
        .type(type)
        .send(stream);
    },
  });

  app.get('/static/site.css', {
    schema: { hide: true },
    handler: async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  });

  app.get('/static/passkeys.js', {
    schema: { hide: true },
    handler: async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PASSKEY_SCRIPT),
  });

  app.get('/static/publish-release.sh', {
    schema: { hide: true },
    handler: async (_request, reply) =>
      reply
        .type('text/plain; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .header('content-disposition', 'inline; filename="publish-release.sh"')
        .send(PUBLISH_SCRIPT),
  });
}
