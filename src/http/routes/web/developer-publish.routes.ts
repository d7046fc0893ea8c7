import { Type } from 'typebox';
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
        publishPage(commandId(appId), who.user.isAdmin, setting.formToken(), { values }, setting.context),
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
          publishPage(commandId(state.values?.['app']), who.user.isAdmin, setting.formToken(), state, setting.context),
      ),
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
