import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { exchangeIdToken, PUBLISHING_TOKEN_MS } from '../../../domain/trusted-publishing/trusted-publishing.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';

/** `POST /api/v1/trusted-publishing/token` (issue 53): a CI job's ID token for a short-lived publishing token. */
export async function trustedPublishingRoutes(app: AppServer, container: Container): Promise<void> {
  app.post('/api/v1/trusted-publishing/token', {
    schema: {
      summary: "Exchange a CI job's OpenID Connect ID token for a token that can publish one app for 15 minutes",
      description:
        "No credentials: the ID token is the proof. It must come from an allowed issuer (GitHub Actions, GitLab.com, or one an administrator added), be minted for this store's audience (its public URL unless configured), be valid now, be used once, and match a trusted publisher the app's owner registered. The answer's token publishes releases of that app only (`POST /api/v1/apps/releases` with `Authorization: Token …`); the release records where it came from.",
      tags: ['accounts'],
      body: Type.Object({
        token: Type.String({ minLength: 1, maxLength: 16384, description: "The CI job's ID token (a JWT)" }),
        app: Type.Optional(
          Type.String({ maxLength: 32, description: 'The app to publish, when several trust the same workflow' }),
        ),
      }),
      response: {
        200: Type.Object({
          token: Type.String({ description: 'aptp_…: send it as Authorization: Token …' }),
          expiresAt: Type.String({ description: `ISO 8601, ${PUBLISHING_TOKEN_MS / 60_000} minutes from now` }),
          app: Type.String(),
          scopes: Type.Array(Type.String()),
        }),
        ...errorResponses(BODY_ERRORS, [
          'not_authenticated',
          'forbidden',
          'rate_limited',
          'app_not_found',
          'identity_provider_unavailable',
        ]),
      },
    },
    handler: async (request, reply) => {
      const {
        token,
        expiresAt,
        app: appId,
      } = await exchangeIdToken(request.body.token, request.body.app, request.ip, container.trustedPublishing);
      reply.header('cache-control', 'no-store');
      request.log.info({ appId }, 'trusted publishing token issued');
      return { token, expiresAt: expiresAt.toISOString(), app: appId, scopes: ['release:publish'] };
    },
  });
}
