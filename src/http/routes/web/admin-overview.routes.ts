import { moderationOverview } from '../../../domain/ratings/moderation.ts';
import type { AppServer } from '../../types.ts';
import { Type } from 'typebox';
import { readAuditLog } from '../../../domain/accounts/read-audit-log.ts';
import { allApps } from '../../../domain/apps/app-overview.ts';
import { listUsers } from '../../../domain/accounts/manage-users.ts';
import { categoriesForAdmin, platformsForAdmin } from '../../../domain/catalog/import-catalog.ts';
import { pendingCertificateRequests } from '../../../domain/identity/request-certificate.ts';
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
      kit.page(request, reply, async (who, setting) => {
        const { container } = kit;
        const requests = container.certificateRequests;
        const [users, apps, categories, platforms, pending, recent, moderation] = await Promise.all([
          listUsers(who.acting, container.accounts),
          allApps(who.acting, container.appOverview),
          categoriesForAdmin(who.acting, container.catalog),
          platformsForAdmin(who.acting, container.catalog),
          requests.ownAuthority ? pendingCertificateRequests(who.acting, requests) : null,
          readAuditLog({ limit: 10 }, who.acting, container.audit),
          moderationOverview(who.acting, container.moderation),
        ]);
        return adminOverviewPage(
          {
            users: users.length,
            admins: users.filter((u) => u.isAdmin).length,
            disabledUsers: users.filter((u) => !u.isActive).length,
            apps: apps.length,
            categories: categories.length,
            platforms: platforms.length,
            pendingRequests: pending === null ? null : pending.length,
            reportsWaiting: moderation.queue.length,
            recent,
          },
          setting.context,
        );
      }),
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
