import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import type { OpenApiDocument } from '../../../web/pages/api-page.ts';
import { apiPage } from '../../../web/pages/api-page.ts';
import { acceptsHtml, sendPage } from '../../html-reply.ts';
import { pageSetting } from '../../page-context.ts';
import type { AppServer } from '../../types.ts';

/**
 * `GET /api/` and `/api/v1/`: a browser gets the API page, rendered from the OpenAPI document;
 * any other client gets JSON that says where the document is.
 */
export async function apiPageRoutes(app: AppServer, container: Container): Promise<void> {
  for (const url of ['/api', '/api/v1']) {
    app.get(url, {
      schema: {
        hide: true,
        response: {
          200: Type.Union([
            Type.String({ description: 'The API page' }),
            Type.Object({ openapi: Type.String(), documentation: Type.String() }),
          ]),
        },
      },
      handler: async (request, reply) => {
        if (!acceptsHtml(request)) return { openapi: '/api/v1/openapi.json', documentation: '/api/' };
        const { context } = await pageSetting(request, reply, container);
        return sendPage(
          request,
          reply,
          apiPage(app.swagger() as OpenApiDocument, context, `${request.protocol}://${request.host}`, {
            mirror: container.mirror.deps !== null,
            keepsArchives: container.keptArchives.archives.keepNew,
          }),
        );
      },
    });
  }
}
