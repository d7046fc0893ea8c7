import { said } from '../../../i18n/said.ts';
import multipart from '@fastify/multipart';
import { Type } from 'typebox';
import { AppError } from '../../../errors.ts';
import { firstField, multipartUploadReader, uploadLimits } from '../../multipart-upload.ts';
import { acceptStreamedForm } from '../../web-visitor.ts';
import { publishJobPage, publishPage } from '../../../web/pages/developer-pages.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import { REDIRECT as Redirect, SIGNED_IN_FORM_ERRORS as FORM_ERRORS, checked as on } from './signed-in-forms.ts';
import { commandId, text } from './developer-page-kit.ts';
import type { SignedInPages } from './signed-in-forms.ts';
import type { Container } from '../../../container.ts';
import type { AppServer } from '../../types.ts';

/** How long the publish form waits for its job before showing the job's page (which refreshes while it runs). */
const PUBLISH_PAGE_WAIT_MS = 1000;

/** Publishing a release: the form starts a job, and the job's page follows it. */
export async function developerPublishRoutes(
  app: AppServer,
  container: Container,
  pages: SignedInPages,
): Promise<void> {
  // Publishing a release: a job, and its page
  const kept = container.keptArchives.archives.keepNew;

  app.get('/developer/publish', {
    schema: {
      hide: true,
      // ?app= fills the commands in; ?download= and ?nightly= (a refused job's "Publish again") the form.
      querystring: Type.Object(
        { app: Type.Optional(text(64)), download: Type.Optional(text(2048)), nightly: Type.Optional(text(8)) },
        { additionalProperties: true },
      ),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') },
    },
    handler: async (request, reply) => {
      const { app: appId, download, nightly } = request.query;
      const values = {
        ...(download === undefined ? {} : { download }),
        ...(on(nightly) ? { nightly: 'on' } : {}),
      };
      return pages.page(request, reply, async (who, setting) =>
        publishPage(commandId(appId), who.user.isAdmin, setting.formToken(), { values }, setting.context, { kept }),
      );
    },
  });

  app.post('/developer/publish', {
    schema: {
      hide: true,
      body: Type.Object(
        { download: text(2048), signature: text(65536), nightly: Type.Optional(text(8)) },
        { additionalProperties: true },
      ),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses(FORM_ERRORS) },
    },
    handler: async (request, reply) =>
      pages.form(
        request,
        reply,
        '/developer/publish',
        async (who) => {
          const input = {
            download: request.body.download.trim(),
            signature: request.body.signature.replace(/\s+/g, ''),
            nightly: on(request.body.nightly),
          };
          // A publish that ends within a second shows its result on the first page (no refresh).
          const id = await container.publishJobs.start(input, who.user, who.acting, { waitMs: PUBLISH_PAGE_WAIT_MS });
          return reply.redirect(`/developer/publish/${id}`, 303);
        },
        async (state, who, setting) =>
          publishPage(commandId(state.values?.['app']), who.user.isAdmin, setting.formToken(), state, setting.context, {
            kept,
          }),
      ),
  });

  // The archive itself, read as it streams (issue 52): the form's token first, then the file.
  const maxBytes = container.config.limits.maxArchiveBytes;
  await app.register(async (scope) => {
    await scope.register(multipart, { limits: uploadLimits(maxBytes) });
    scope.post('/developer/publish/upload', {
      config: { streamedForm: true },
      schema: {
        hide: true,
        response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses(FORM_ERRORS, 'invalid_archive') },
      },
      handler: async (request, reply) => {
        if (!request.isMultipart())
          throw new AppError('invalid_request', said`Send the archive with the upload form of /developer/publish.`);
        const parts = request.parts();
        acceptStreamedForm(request, container, await firstField(parts));
        return pages.form(
          request,
          reply,
          '/developer/publish',
          async (who) => {
            const id = await container.publishJobs.runUpload(
              multipartUploadReader(parts, maxBytes),
              who.user,
              who.acting,
            );
            return reply.redirect(`/developer/publish/${id}`, 303);
          },
          async (state, who, setting) =>
            publishPage('', who.user.isAdmin, setting.formToken(), state, setting.context, {
              kept,
              refusedForm: 'upload',
            }),
        );
      },
    });
  });

  app.get('/developer/publish/:job', {
    schema: {
      hide: true,
      params: Type.Object({ job: Type.String({ pattern: '^[A-Za-z0-9_-]{10,64}$' }) }),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('not_found', 'invalid_request') },
    },
    handler: async (request, reply) =>
      pages.page(request, reply, async (who, setting) =>
        publishJobPage(
          await container.publishJobs.find(request.params.job, who.user),
          who.user.isAdmin,
          setting.context,
        ),
      ),
  });
}
