import { said } from '../../../i18n/said.ts';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import { AppError } from '../../../errors.ts';
import type { Static } from 'typebox';
import type { Container } from '../../../container.ts';
import { deleteRelease } from '../../../domain/releases/delete-release.ts';
import { publishRelease } from '../../../domain/releases/publish-release.ts';
import type { PublishTimings } from '../../../domain/releases/publish-release.ts';
import { publishUpload } from '../../../domain/releases/publish-upload.ts';
import { multipartUploadReader, uploadLimits } from '../../multipart-upload.ts';
import { SEMVER_PATTERN } from '../../../domain/versions/semantic-version.ts';
import { actingUser, currentUser, requireUser } from '../../auth.ts';
import { TOKEN_AUTH_ERRORS, AppIdParam, BODY_ERRORS, errorResponses } from '../../schemas.ts';
import { sendEmpty } from '../../reply.ts';
import type { AppServer } from '../../types.ts';
import { countedUpload } from '../../../metrics.ts';

const PublishBody = Type.Object(
  {
    download: Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS URL of the .tar.gz archive' }),
    signature: Type.String({
      minLength: 1,
      maxLength: 65536,
      description: 'base64 RSA SHA-512 signature over the archive bytes',
    }),
    nightly: Type.Optional(Type.Boolean({ description: 'A nightly replaces every earlier nightly of the app' })),
  },
  { additionalProperties: true },
);

/** The JSON body, validated by the schema when there is one (a request without a body has none to validate). */
function jsonPublish(body: Static<typeof PublishBody> | undefined) {
  if (typeof body !== 'object' || body === null)
    throw new AppError(
      'invalid_request',
      said`Invalid request body: (body): send a JSON object {"download", "signature", "nightly"?}, or the archive itself as multipart/form-data.`,
      { '(body)': [said`must be object`] },
    );
  const { download, signature, nightly = false } = body;
  return { download, signature, nightly };
}

/** The form a CI job sends (documentation: the form is read as it streams, not validated whole). */
const UploadBody = Type.Object(
  {
    archive: Type.Optional(
      Type.String({ format: 'binary', description: 'The .tar.gz archive itself, as a file (required)' }),
    ),
    signature: Type.Optional(
      Type.String({ description: 'base64 RSA SHA-512 signature over the archive bytes (required)' }),
    ),
    nightly: Type.Optional(Type.String({ description: 'true for a nightly' })),
  },
  { additionalProperties: true },
);

const VersionParam = Type.String({
  pattern: SEMVER_PATTERN.source,
  description: 'a semantic version such as 1.2.3 or 1.2.3-beta.1 (no build metadata)',
});

/** Publishing releases (`POST /api/v1/apps/releases`) and deleting them. */
export async function releaseRoutes(app: AppServer, container: Container): Promise<void> {
  const deps = container.publishing;

  // The archive itself may come as a form (issue 52): streamed into the publish's buffer.
  const maxBytes = container.config.limits.maxArchiveBytes;
  await app.register(multipart, { limits: uploadLimits(maxBytes) });
  // The form is read as it streams (multipart-upload.ts), so its schema has nothing to validate.
  app.addHook('preValidation', async (request) => {
    if (request.isMultipart()) request.body = {};
  });

  app.post('/api/v1/apps/releases', {
    schema: {
      summary: 'Publish a release from a signed archive: 201 created, 200 updated',
      description:
        "JSON with `download` (the archive's HTTPS URL), or multipart/form-data with the archive itself as the file field `archive` (no web host needed: `curl -F archive=@APP.tar.gz -F signature=… -F nightly=false`). The same checks and statuses either way; the store keeps an uploaded archive and lists its own URL for it. The answer's `Server-Timing` header says where the time went, in milliseconds: `queue` (waiting for a place among the publishes under way), `transfer` (the download or the upload), `check` (reading the archive through the signature), `save`.",
      tags: ['releases'],
      body: {
        content: {
          'application/json': { schema: PublishBody },
          'multipart/form-data': { schema: UploadBody },
        },
      },
      response: {
        200: Type.Null({ description: 'An existing release (same version and nightly flag) was updated' }),
        201: Type.Null({ description: 'The release was created' }),
        ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS, [
          'invalid_download',
          'invalid_archive',
          'invalid_info_xml',
          'app_not_registered',
          'certificate_untrusted',
          'certificate_expired',
          'certificate_revoked',
          'invalid_signature',
          'forbidden',
          'authority_unavailable',
          'conflict',
        ]),
      },
    },
    onRequest: requireUser(container, ['basic', 'token'], 'release:publish'),
    handler: async (request, reply) => {
      const result = await countedUpload(container.metrics, 'publish', () =>
        request.isMultipart()
          ? publishUpload(
              multipartUploadReader(request.parts(), maxBytes),
              currentUser(request),
              actingUser(request),
              deps,
            )
          : publishRelease(
              jsonPublish(request.body as Static<typeof PublishBody> | undefined),
              currentUser(request),
              actingUser(request),
              deps,
            ),
      );
      const timings = roundedTimings(result.timings);
      request.log.info(
        { appId: result.appId, version: result.version, created: result.created, timings },
        'release published',
      );
      // Where the time went (the W3C Server-Timing header, which browsers' developer tools show),
      // for the developer whose publish was slow and for the bench (docs/benchmarks.md).
      reply.header(
        'server-timing',
        Object.entries(timings)
          .map(([step, ms]) => `${step};dur=${ms}`)
          .join(', '),
      );
      return sendEmpty(reply, result.created ? 201 : 200);
    },
  });

  for (const nightly of [false, true]) {
    app.delete(nightly ? '/api/v1/apps/:appId/releases/nightly/:version' : '/api/v1/apps/:appId/releases/:version', {
      schema: {
        summary: nightly ? 'Delete a nightly release' : 'Delete a release (not a nightly)',
        tags: ['releases'],
        params: Type.Object({ appId: AppIdParam, version: VersionParam }),
        response: {
          204: Type.Null({ description: 'Deleted' }),
          ...errorResponses(BODY_ERRORS, TOKEN_AUTH_ERRORS, 'forbidden', 'release_not_found'),
        },
      },
      onRequest: requireUser(container, ['basic', 'token'], 'release:delete'),
      handler: async (request, reply) => {
        await deleteRelease({ ...request.params, nightly }, currentUser(request), actingUser(request), deps);
        return sendEmpty(reply, 204);
      },
    });
  }
}

/** The publish's timings to a tenth of a millisecond. */
function roundedTimings(timings: PublishTimings): PublishTimings {
  const tenth = (ms: number): number => Math.round(ms * 10) / 10;
  return {
    queue: tenth(timings.queue),
    transfer: tenth(timings.transfer),
    check: tenth(timings.check),
    save: tenth(timings.save),
  };
}
