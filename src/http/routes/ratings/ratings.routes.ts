import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { rateApp, unrateApp } from '../../../domain/ratings/rate-app.ts';
import { actingUser, currentUser, requireUser } from '../../auth.ts';
import { TOKEN_AUTH_ERRORS, AppIdParam, BODY_ERRORS, errorResponses } from '../../schemas.ts';
import { sendEmpty } from '../../reply.ts';
import type { AppServer } from '../../types.ts';

const AppIdParams = Type.Object({ appId: AppIdParam });

/** Rating an app: one rating per user and app; its maintainers cannot rate it. (ratings.json is a listing.) */
export async function ratingRoutes(app: AppServer, container: Container): Promise<void> {
  const authenticated = requireUser(container, ['basic', 'token'], 'rating:write');

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
        ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS, 'forbidden', 'app_not_found', 'rate_limited'),
      },
    },
    onRequest: authenticated,
    handler: async (request, reply) => {
      const { created } = await rateApp(
        request.params.appId,
        request.body,
        currentUser(request),
        actingUser(request),
        container.ratings,
      );
      return sendEmpty(reply, created ? 201 : 200);
    },
  });

  app.delete('/api/v1/apps/:appId/ratings', {
    schema: {
      summary: "Remove the caller's rating of an app",
      tags: ['ratings'],
      params: AppIdParams,
      response: {
        204: Type.Null({ description: 'Removed' }),
        ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS, 'app_not_found', 'rating_not_found'),
      },
    },
    onRequest: authenticated,
    handler: async (request, reply) => {
      await unrateApp(request.params.appId, currentUser(request), actingUser(request), container.ratings);
      return sendEmpty(reply, 204);
    },
  });
}
