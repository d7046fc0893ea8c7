import { said } from '../../../i18n/said.ts';
import { pastedJson } from '../../../domain/apps/upgrade-plan.ts';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { upgradePlan } from '../../../domain/apps/upgrade-plan.ts';
import type { UpgradePlan } from '../../../domain/apps/upgrade-plan.ts';
import type { FormState } from '../../../web/forms.ts';
import { upgradePlannerPage } from '../../../web/pages/upgrade-planner-page.ts';
import { AppError } from '../../../errors.ts';
import { installFormParser } from '../../body-parsers.ts';
import { handleForm } from '../../form-refusal.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { requestLanguages, showPage } from '../../page-context.ts';
import type { PageSetting } from '../../page-context.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The Nextcloud majors the catalogue lists, newest first: what the planner offers to upgrade to. */
function majors(setting: PageSetting): string[] {
  return [...new Set(setting.catalog.platforms.map((platform) => platform.version.split('.')[0] ?? ''))].filter(
    (major) => major !== '',
  );
}

/** `/upgrade` (issue 54 §4): the upgrade planner's page, over the same use case as `POST /api/v1/upgrade-plan`. */
export async function upgradePlannerRoutes(app: AppServer, container: Container): Promise<void> {
  installFormParser(app);
  const page = (request: FastifyRequest, reply: FastifyReply, state: FormState, plan: UpgradePlan | null) =>
    showPage(request, reply, container, (setting) =>
      upgradePlannerPage(majors(setting), setting.formToken(), state, plan, setting.context),
    );

  app.get('/upgrade', {
    schema: { hide: true, response: { ...PAGE_RESPONSE } },
    handler: async (request, reply) => page(request, reply, {}, null),
  });

  app.post('/upgrade', {
    schema: {
      hide: true,
      body: Type.Object(
        { apps: Type.String({ maxLength: 200_000 }), nextcloud: Type.String({ maxLength: 20 }) },
        { additionalProperties: true },
      ),
      response: { ...PAGE_RESPONSE, ...errorResponses(BODY_ERRORS, 'csrf_failed') },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return handleForm(
        request,
        reply,
        async () => {
          const apps = pastedJson(request.body.apps);
          if (apps === null)
            throw new AppError(
              'invalid_request',
              said`What was pasted is not JSON: paste exactly what occ app:list --output=json prints.`,
              {
                apps: [said`not JSON`],
              },
            );
          const catalog = await container.browse.catalog();
          // Changelogs in the visitor's language as the pages choose it (their choice, else the browser's).
          const language = requestLanguages(request)[0] ?? 'en';
          const plan = await upgradePlan({ apps, nextcloud: request.body.nextcloud }, catalog, language);
          // The pasted list is shown again (it is the visitor's own), so a second version can be tried.
          return page(request, reply, { values: { apps: request.body.apps, nextcloud: request.body.nextcloud } }, plan);
        },
        async (state) => page(request, reply, state, null),
      );
    },
  });
}
