import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { registerApp } from '../../../domain/apps/register-app.ts';
import { currentUser, requireUser } from '../../auth.ts';
import { errorResponse } from '../../schemas.ts';
import { authErrors } from '../accounts/accounts.schemas.ts';

const RegisterBody = Type.Object(
  {
    certificate: Type.String({ minLength: 1, maxLength: 65536, description: "The app's certificate (PEM); its CN is the app id" }),
    signature: Type.String({ minLength: 1, maxLength: 65536, description: 'base64 RSA SHA-512 signature over the app id, made with the app key' }),
  },
  { additionalProperties: true, description: 'Other fields are ignored' },
);

/** `POST /api/v1/apps`: register an app id, or update its certificate or owner. */
export async function appRoutes(app: FastifyInstance, container: Container): Promise<void> {
  app.post('/api/v1/apps', {
    schema: {
      summary: 'Register an app (201), or update its certificate or take it over (204)',
      tags: ['apps'],
      body: RegisterBody,
      response: {
        201: Type.Null({ description: 'Registered: the caller owns the app' }),
        204: Type.Null({ description: 'Updated (a new certificate deletes every release)' }),
        400: errorResponse('Invalid body, certificate, app id or signature'),
        ...authErrors,
        403: errorResponse('The app belongs to someone else'),
      },
    },
    onRequest: requireUser(container, ['basic', 'token']),
    handler: async (request, reply) => {
      const body = request.body as { certificate: string; signature: string };
      const result = await registerApp(body, currentUser(request), container.apps);
      request.log.info({ appId: result.appId, created: result.created, releasesDeleted: result.releasesDeleted }, 'app registered');
      return reply.code(result.created ? 201 : 204).send();
    },
  });
}
