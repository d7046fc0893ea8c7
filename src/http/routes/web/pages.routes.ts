import fs from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { projectFile } from '../../../project-files.ts';
import { catalogCategories, homeView } from '../../../domain/browse/browse-catalog.ts';
import { LANGUAGE_COOKIE, LANGUAGE_PATTERN } from '../../../web/languages.ts';
import { localPath } from '../../../web/local-path.ts';
import { SORTS, searchApps } from '../../../domain/browse/search-catalog.ts';
import type { SearchQuery } from '../../../domain/browse/search-catalog.ts';
import { searchPage } from '../../../web/pages/search-page.ts';
import { PAGE_RESPONSE, sendPage } from '../../html-reply.ts';
import { homePage } from '../../../web/pages/home-page.ts';
import { errorResponses } from '../../schemas.ts';
import { pageSetting } from '../../page-context.ts';
import type { AppServer } from '../../types.ts';

const STYLESHEET = fs.readFileSync(projectFile('src/web/static/site.css'));


/** The public website: server-rendered pages that work without JavaScript (docs/website.md). */
export async function pageRoutes(app: AppServer, container: Container): Promise<void> {
  app.get('/', {
    schema: { hide: true, response: PAGE_RESPONSE },
    handler: async (request, reply) => {
      const { catalog, context } = await pageSetting(request, reply, container);
      return sendPage(request, reply, homePage(homeView(catalog.apps), context));
    },
  });

  const SearchQueryString = Type.Object(
    {
      q: Type.Optional(Type.String({ maxLength: 100, description: 'words to find in app ids, names and summaries' })),
      category: Type.Optional(Type.String({ maxLength: 64, description: 'a category id' })),
      nextcloud: Type.Optional(Type.String({ maxLength: 20, pattern: '^([0-9]{1,4}(\\.[0-9]{1,4}){0,2})?$', description: 'a Nextcloud version such as 30 or 30.0.2' })),
      featured: Type.Optional(Type.String({ enum: ['', '1'], description: '1 for featured apps only' })),
      sort: Type.Optional(Type.String({ enum: ['', ...SORTS], description: `one of ${SORTS.join(', ')}` })),
      page: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$', description: 'a page number' })),
    },
    { additionalProperties: true },
  );

  async function showSearch(request: FastifyRequest, reply: FastifyReply, query: SearchQuery) {
    const { catalog, context } = await pageSetting(request, reply, container);
    return searchPage(query, searchApps(catalog.apps, query), catalogCategories(catalog.apps), context);
  }

  app.get('/search', {
    schema: { hide: true, querystring: SearchQueryString, response: { ...PAGE_RESPONSE, ...errorResponses('invalid_request') } },
    handler: async (request, reply) => {
      const q = request.query;
      const query: SearchQuery = {
        text: (q.q ?? '').trim(),
        category: q.category === undefined || q.category === '' ? null : q.category,
        nextcloud: q.nextcloud === undefined || q.nextcloud === '' ? null : q.nextcloud,
        featuredOnly: q.featured === '1',
        sort: SORTS.find((sort) => sort === q.sort) ?? 'relevance',
        page: Number(q.page ?? '1') || 1,
      };
      return sendPage(request, reply, await showSearch(request, reply, query));
    },
  });

  app.get('/categories/:category', {
    schema: { hide: true, params: Type.Object({ category: Type.String({ maxLength: 64, description: 'a category id' }) }), response: { ...PAGE_RESPONSE, ...errorResponses('invalid_request') } },
    handler: async (request, reply) =>
      sendPage(request, reply, await showSearch(request, reply, { text: '', category: request.params.category, nextcloud: null, featuredOnly: false, sort: 'rating', page: 1 })),
  });

  // The language switcher's target: remembers the choice for a year and returns to the page.
  app.get('/language', {
    schema: {
      hide: true,
      querystring: Type.Object({
        lang: Type.String({ pattern: LANGUAGE_PATTERN.source, description: 'a language code such as de or pt_BR' }),
        next: Type.Optional(Type.String({ maxLength: 2000 })),
      }),
      response: { 303: Type.Null({ description: 'Back to the page, in the chosen language' }), ...errorResponses('invalid_request') },
    },
    handler: async (request, reply) => {
      reply.setCookie(LANGUAGE_COOKIE, request.query.lang, { path: '/', maxAge: 365 * 86_400, sameSite: 'lax', httpOnly: true, secure: request.protocol === 'https' });
      return reply.redirect(localPath(request.query.next), 303);
    },
  });

  app.get('/static/site.css', {
    schema: { hide: true },
    handler: async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  });
}
