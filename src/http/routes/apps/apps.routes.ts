import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { deleteApp } from '../../../domain/apps/delete-app.ts';
import { registerApp } from '../../../domain/apps/register-app.ts';
import { actingUser, currentUser, requireUser } from '../../auth.ts';
import { AUTH_ERRORS, AppIdParam, BODY_ERRORS, errorResponses } from '../../schemas.ts';
import { sendEmpty } from '../../reply.ts';
import type { AppServer } from '../../types.ts';
import { countedUpload } from '../../../metrics.ts';

/** Characters of a certificate field: several times the largest real certificate. */
const CERTIFICATE_MAX_LENGTH = 16_384;

const RegisterBody = Type.Object(
  {
    // A PEM certificate is 1 to 3 KB; the limit refuses hostile text before any parsing.
    certificate: Type.String({
      minLength: 1,
      maxLength: CERTIFICATE_MAX_LENGTH,
      description: "The app's certificate (PEM); its CN is the app id",
    }),
    signature: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: 'base64 RSA SHA-512 signature over the app id, made with the app key',
    }),
  },
  { additionalProperties: true, description: 'Other fields are ignored' },
);

/** `POST /api/v1/apps` (register an app id, or update its certificate or owner) and `DELETE /api/v1/apps/{id}`. */
export async function appRoutes(app: AppServer, container: Container): Promise<void> {
  const authenticated = requireUser(container, ['basic', 'token']);

  app.post('/api/v1/apps', {
    schema: {
      summary: 'Register an app (201), or update its certificate or take it over (204)',
      tags: ['apps'],
      body: RegisterBody,
      response: {
        201: Type.Null({ description: 'Registered: the caller owns the app' }),
        204: Type.Null({ description: 'Updated (a new certificate deletes every release)' }),
        ...errorResponses(BODY_ERRORS, AUTH_ERRORS, [
          'invalid_certificate',
          'certificate_untrusted',
          'certificate_expired',
          'certificate_not_yet_valid',
          'certificate_revoked',
          'invalid_app_id',
          'invalid_signature',
          'forbidden',
          'authority_unavailable',
        ]),
      },
    },
    onRequest: authenticated,
    handler: async (request, reply) => {
      const result = await countedUpload(container.metrics, 'register', () =>
        registerApp(request.body, currentUser(request), actingUser(request), container.registration),
      );
      request.log.info(
        { appId: result.appId, created: result.created, releasesDeleted: result.releasesDeleted },
        'app registered',
      );
      return sendEmpty(reply, result.created ? 201 : 204);
    },
  });

  app.delete('/api/v1/apps/:appId', {
    schema: {
      summary: 'Delete an app and all its releases (owner only)',
      tags: ['apps'],
      params: Type.Object({ appId: AppIdParam }),
      response: {
        204: Type.Null({ description: 'Deleted' }),
        ...errorResponses(BODY_ERRORS, AUTH_ERRORS, 'forbidden', 'app_not_found'),
      },
    },
    onRequest: authenticated,
    handler: async (request, reply) => {
      await deleteApp(request.params.appId, currentUser(request), actingUser(request), container.appManagement);
      return sendEmpty(reply, 204);
    },
  });
}
