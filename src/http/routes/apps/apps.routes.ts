import { Type } from 'typebox';
import { MAX_SERIES_DAYS, appDownloadStats } from '../../../domain/apps/app-downloads.ts';
import type { TokenScope } from '../../../domain/accounts/token-scopes.ts';
import type { Container } from '../../../container.ts';
import { deleteApp } from '../../../domain/apps/delete-app.ts';
import { registerApp } from '../../../domain/apps/register-app.ts';
import { actingUser, currentUser, requireUser } from '../../auth.ts';
import { TOKEN_AUTH_ERRORS, AppIdParam, BODY_ERRORS, errorResponses } from '../../schemas.ts';
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
  const authenticated = (scope: TokenScope) => requireUser(container, ['basic', 'token'], scope);

  app.post('/api/v1/apps', {
    schema: {
      summary: 'Register an app (201), or update its certificate or take it over (204)',
      tags: ['apps'],
      body: RegisterBody,
      response: {
        201: Type.Null({ description: 'Registered: the caller owns the app' }),
        204: Type.Null({ description: 'Updated (a new certificate deletes every release)' }),
        ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS, [
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
    onRequest: authenticated('app:register'),
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
        ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS, 'forbidden', 'app_not_found'),
      },
    },
    onRequest: authenticated('app:delete'),
    handler: async (request, reply) => {
      await deleteApp(request.params.appId, currentUser(request), actingUser(request), container.appManagement);
      return sendEmpty(reply, 204);
    },
  });

  const DownloadEntry = Type.Object({
    version: Type.String(),
    isNightly: Type.Boolean(),
    download: Type.String({ description: 'The URL the listings give' }),
    downloadCount: Type.Union([Type.Integer(), Type.Null()], {
      description:
        'Downloads of the archive this store serves; null when it is downloaded from elsewhere (not counted)',
    }),
    downloadsByDay: Type.Optional(
      Type.Array(Type.Object({ date: Type.String({ description: 'YYYY-MM-DD, UTC' }), count: Type.Integer() }), {
        description: 'With ?days=N: the days of the last N with downloads, oldest first',
      }),
    ),
  });
  app.get('/api/v1/apps/:appId/downloads', {
    schema: {
      summary: "An app's downloads per release (owner and co-maintainers), and per day with ?days=N",
      description:
        "The original's 5.0.0 route, the same fields. The store counts the archives it serves (a download whole, or from its first byte; HEAD and later ranges are not downloads), per release and day, without addresses; counts are written every few seconds.",
      tags: ['apps'],
      params: Type.Object({ appId: AppIdParam }),
      querystring: Type.Object(
        {
          days: Type.Optional(
            Type.String({ pattern: '^[0-9]{1,6}$', description: `a whole number of days, 1 to ${MAX_SERIES_DAYS}` }),
          ),
        },
        { additionalProperties: true },
      ),
      response: {
        200: Type.Array(DownloadEntry),
        ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS, 'forbidden', 'app_not_found'),
      },
    },
    onRequest: authenticated('app:downloads'),
    handler: async (request) =>
      appDownloadStats(request.params.appId, currentUser(request), container.downloads.stats, {
        ...(request.query.days === undefined ? {} : { days: Number(request.query.days) }),
      }),
  });
}
