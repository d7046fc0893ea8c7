import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { Container } from '../../../container.ts';
import { upgradePlan } from '../../../domain/apps/upgrade-plan.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';

const PlannedApp = Type.Object({
  id: Type.String(),
  installed: Type.String(),
  enabled: Type.Boolean(),
  status: Type.String({ description: 'update, up-to-date, no-release (see reason) or not-listed (see reason)' }),
  reason: Type.Optional(Type.String()),
  isExApp: Type.Optional(Type.Boolean()),
  release: Type.Optional(
    Type.Object({
      version: Type.String(),
      download: Type.String(),
      platformVersionSpec: Type.String({ description: 'The Nextcloud versions it supports, as info.xml says' }),
    }),
  ),
  changelogs: Type.Optional(
    Type.Array(Type.Object({ version: Type.String(), changelog: Type.String({ description: 'Markdown' }) }), {
      description: 'Each release after the installed version up to the one to take, newest first',
    }),
  ),
});

const Plan = Type.Object({ nextcloud: Type.String(), apps: Type.Array(PlannedApp) });

/** `POST /api/v1/upgrade-plan` (issue 54 §4): which release of each installed app to take on a Nextcloud version. */
export async function upgradePlanRoutes(app: AppServer, container: Container): Promise<void> {
  app.post('/api/v1/upgrade-plan', {
    schema: {
      summary: 'Plan a Nextcloud upgrade: for each installed app, the release to take on the target version',
      description:
        'The body: `apps`, the JSON that `occ app:list --output=json` prints, and `nextcloud`, the version to upgrade to (such as 33 or 33.0.1). Each app gets the release to take there (`update` or `up-to-date`), or why there is none (`no-release`, `not-listed`), with the changelogs from the installed version to it. Nothing sent is kept.',
      tags: ['apps'],
      body: Type.Object({
        apps: Type.Unknown({ description: 'The output of occ app:list --output=json' }),
        nextcloud: Type.String({ maxLength: 20 }),
        language: Type.Optional(Type.String({ maxLength: 10, description: 'Changelogs in this language where given' })),
      }),
      response: {
        200: Plan,
        ...errorResponses(BODY_ERRORS),
      },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const catalog = await container.browse.catalog();
      const plan = await upgradePlan(request.body, catalog, request.body.language ?? 'en');
      // The schema is the plan's shape with its optional fields loose (the union's members in one).
      return plan as unknown as Static<typeof Plan>;
    },
  });
}
