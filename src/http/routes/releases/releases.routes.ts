import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { deleteApp, deleteRelease } from '../../../domain/releases/delete-release.ts';
import { publishRelease } from '../../../domain/releases/publish-release.ts';
import { SEMVER_PATTERN } from '../../../domain/releases/version-spec.ts';
import { currentUser, requireUser } from '../../auth.ts';
import { AppIdParam, errorResponse } from '../../schemas.ts';
import { authErrors } from '../accounts/accounts.schemas.ts';

const PublishBody = Type.Object(
  {
    download: Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS URL of the .tar.gz archive' }),
    signature: Type.String({ minLength: 1, maxLength: 65536, description: 'base64 RSA SHA-512 signature over the archive bytes' }),
    nightly: Type.Optional(Type.Boolean({ description: 'A nightly replaces every earlier nightly of the app' })),
  },
  { additionalProperties: true },
);

const VersionParam = Type.String({ pattern: SEMVER_PATTERN.source, description: 'Semantic version without build metadata' });

const deleted = { 204: Type.Null({ description: 'Deleted' }), 400: errorResponse('Malformed app id or version'), ...authErrors };

/** Publishing releases, deleting releases and apps. */
export async function releaseRoutes(app: FastifyInstance, container: Container): Promise<void> {
  const authenticated = requireUser(container, ['basic', 'token']);
  const deps = container.apps;

  app.post('/api/v1/apps/releases', {
    schema: {
      summary: 'Publish a release from a signed archive: 201 created, 200 updated',
      tags: ['releases'],
      body: PublishBody,
      response: {
        200: Type.Null({ description: 'An existing release (same version and nightly flag) was updated' }),
        201: Type.Null({ description: 'The release was created' }),
        400: errorResponse('Invalid body, download, archive, info.xml, certificate or signature; app not registered'),
        ...authErrors,
        403: errorResponse('Only the owner and co-maintainers may publish'),
      },
    },
    onRequest: authenticated,
    handler: async (request, reply) => {
      const body = request.body as { download: string; signature: string; nightly?: boolean };
      const result = await publishRelease({ download: body.download, signature: body.signature, nightly: body.nightly ?? false }, currentUser(request), deps);
      request.log.info({ appId: result.appId, version: result.version, created: result.created }, 'release published');
      return reply.code(result.created ? 201 : 200).send();
    },
  });

  for (const nightly of [false, true]) {
    const kind = nightly ? 'nightly release' : 'release';
    app.delete(nightly ? '/api/v1/apps/:appId/releases/nightly/:version' : '/api/v1/apps/:appId/releases/:version', {
      schema: {
        summary: nightly ? 'Delete a nightly release' : 'Delete a release (not a nightly)',
        tags: ['releases'],
        params: Type.Object({ appId: AppIdParam, version: VersionParam }),
        response: { ...deleted, 403: errorResponse('Only the owner and co-maintainers may delete releases'), 404: errorResponse(`No such ${kind}`) },
      },
      onRequest: authenticated,
      handler: async (request, reply) => {
        const { appId, version } = request.params as { appId: string; version: string };
        await deleteRelease({ appId, version, nightly }, currentUser(request), deps);
        return reply.code(204).send();
      },
    });
  }

  app.delete('/api/v1/apps/:appId', {
    schema: {
      summary: 'Delete an app and all its releases (owner only)',
      tags: ['apps'],
      params: Type.Object({ appId: AppIdParam }),
      response: { ...deleted, 403: errorResponse('Only the owner may delete the app'), 404: errorResponse('No such app') },
    },
    onRequest: authenticated,
    handler: async (request, reply) => {
      await deleteApp((request.params as { appId: string }).appId, currentUser(request), deps);
      return reply.code(204).send();
    },
  });
}
