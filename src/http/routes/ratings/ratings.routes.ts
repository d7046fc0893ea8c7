import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { rateApp, unrateApp } from '../../../domain/ratings/rate-app.ts';
import { currentUser, requireUser } from '../../auth.ts';
import { AppIdParam, errorResponse } from '../../schemas.ts';
import { authErrors } from '../accounts/accounts.schemas.ts';

const AppIdParams = Type.Object({ appId: AppIdParam });

/** Rating an app: one rating per user and app; its maintainers cannot rate it. */
export async function ratingRoutes(app: FastifyInstance, container: Container): Promise<void> {
  const authenticated = requireUser(container, ['basic', 'token']);
  const deps = { registry: container.apps.registry, ratings: container.ratings, now: container.now };

  app.post('/api/v1/apps/:appId/ratings', {
    schema: {
      summary: "Rate an app (201), or replace one's earlier rating (200)",
      tags: ['ratings'],
      params: AppIdParams,
      body: Type.Object(
        {
          rating: Type.Number({ minimum: 0, maximum: 1, description: '0.0 worst, 1.0 best' }),
          comment: Type.Optional(Type.String({ maxLength: 10000, description: 'Markdown' })),
          language: Type.Optional(Type.String({ maxLength: 35, description: 'Language of the comment (default en)' })),
        },
        { additionalProperties: true },
      ),
      response: {
        200: Type.Null({ description: 'The earlier rating was replaced' }),
        201: Type.Null({ description: 'Rated' }),
        400: errorResponse('Invalid rating, comment or language'),
        ...authErrors,
        403: errorResponse("An app's owner and co-maintainers cannot rate it"),
        404: errorResponse('No such app'),
      },
    },
    onRequest: authenticated,
    handler: async (request, reply) => {
      const { appId } = request.params as { appId: string };
      const { created } = await rateApp(appId, request.body as { rating: number; comment?: string; language?: string }, currentUser(request), deps);
      return reply.code(created ? 201 : 200).send();
    },
  });

  app.delete('/api/v1/apps/:appId/ratings', {
    schema: {
      summary: "Remove the caller's rating of an app",
      tags: ['ratings'],
      params: AppIdParams,
      response: { 204: Type.Null({ description: 'Removed' }), 400: errorResponse('Malformed app id'), ...authErrors, 404: errorResponse('No such app, or no rating of yours') },
    },
    onRequest: authenticated,
    handler: async (request, reply) => {
      await unrateApp((request.params as { appId: string }).appId, currentUser(request), deps);
      return reply.code(204).send();
    },
  });
}
