import fs from 'node:fs';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { browseApp, browseHome } from '../../../domain/catalog/browse-catalog.ts';
import { sendPage } from '../../html-reply.ts';
import { acceptedLanguages } from '../../../web/languages.ts';
import { appPage } from '../../../web/pages/app-page.ts';
import { homePage } from '../../../web/pages/home-page.ts';
import { AppIdParam, errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';

const STYLESHEET = fs.readFileSync(new URL('../../../web/static/site.css', import.meta.url));

const languagesOf = (request: FastifyRequest): string[] => acceptedLanguages(request.headers['accept-language']);
const PageResponse = { 200: Type.String({ description: 'An HTML page' }) };

/** The public website: server-rendered pages that work without JavaScript (docs/website.md). */
export async function pageRoutes(app: AppServer, container: Container): Promise<void> {
  app.get('/', {
    schema: { hide: true, response: PageResponse },
    handler: async (request, reply) => sendPage(request, reply, homePage(await browseHome(container.browse), languagesOf(request))),
  });

  app.get('/apps/:appId', {
    schema: { hide: true, params: Type.Object({ appId: AppIdParam }), response: { ...PageResponse, ...errorResponses('invalid_request', 'app_not_found') } },
    handler: async (request, reply) => sendPage(request, reply, appPage(await browseApp(request.params.appId, container.browse), languagesOf(request))),
  });

  app.get('/static/site.css', {
    schema: { hide: true },
    handler: async (_request, reply) => reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(STYLESHEET),
  });
}
