import type { AppServer } from '../../types.ts';
import { Type } from 'typebox';
import { readAuditLog } from '../../../domain/accounts/read-audit-log.ts';
import { allApps } from '../../../domain/apps/app-overview.ts';
import type { FormState } from '../../../web/forms.ts';
import type { AuditFilter } from '../../../web/pages/admin-pages.ts';
import { adminAppsPage, adminAuditPage, adminOverviewPage } from '../../../web/pages/admin-pages.ts';
import { adminGetSchema } from './admin-page-kit.ts';
import type { AdminPageKit } from './admin-page-kit.ts';

const text = (maxLength: number) => Type.String({ maxLength });

/** The administrator's read-only pages: the overview, every app, and the audit log with its filters. */
export async function adminOverviewRoutes(app: AppServer, kit: AdminPageKit): Promise<void> {
  const AuditQuery = Type.Object(
    {
      app: Type.Optional(text(64)),
      user: Type.Optional(text(150)),
      event: Type.Optional(text(64)),
      since: Type.Optional(text(30)),
    },
    { additionalProperties: true },
  );

  app.get('/admin', {
    schema: adminGetSchema(),
    handler: async (request, reply) =>
      kit.page(request, reply, async (_who, setting) => adminOverviewPage(setting.context)),
  });

  // Apps

  app.get('/admin/apps', {
    schema: adminGetSchema(),
    handler: async (request, reply) =>
      kit.page(request, reply, async (who, setting) =>
        adminAppsPage(await allApps(who.acting, kit.container.appOverview), setting.context),
      ),
  });

  // The audit log

  app.get('/admin/audit', {
    schema: { ...adminGetSchema(), querystring: AuditQuery },
    handler: async (request, reply) =>
      kit.page(request, reply, async (who, setting) => {
        const filter: AuditFilter = {
          app: request.query.app?.trim() ?? '',
          user: request.query.user?.trim() ?? '',
          event: request.query.event?.trim() ?? '',
          since: request.query.since?.trim() ?? '',
        };
        let since: Date | undefined;
        let state: FormState = {};
        if (filter.since !== '') {
          since = new Date(filter.since);
          if (Number.isNaN(since.getTime())) {
            state = {
              problem: {
                code: 'invalid_request',
                detail: `'${filter.since}' is not a date: use YYYY-MM-DD.`,
                fields: { since: ['use YYYY-MM-DD'] },
              },
            };
            since = undefined;
          }
        }
        const records = await readAuditLog(
          {
            limit: 500,
            ...(filter.app === '' ? {} : { appId: filter.app }),
            ...(filter.user === '' ? {} : { user: filter.user }),
            ...(filter.event === '' ? {} : { event: filter.event }),
            ...(since === undefined ? {} : { since }),
          },
          who.acting,
          kit.container.audit,
        );
        return adminAuditPage(filter, records, state, setting.context);
      }),
  });
}
