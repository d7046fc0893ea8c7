import type { Container } from '../../../container.ts';
import { installFormParser } from '../../body-parsers.ts';
import type { AppServer } from '../../types.ts';
import { adminCatalogueRoutes } from './admin-catalogue.routes.ts';
import { adminCertificateRoutes } from './admin-certificates.routes.ts';
import { adminOverviewRoutes } from './admin-overview.routes.ts';
import { adminPageKit } from './admin-page-kit.ts';
import { adminUserRoutes } from './admin-users.routes.ts';
import { adminReportRoutes } from './admin-reports.routes.ts';

/**
 * The administrator pages (docs/website.md): users, apps, categories, Nextcloud releases,
 * discover entries, certificates (approval queue, revocation) and the audit log, a file per
 * part. Every page and action calls a use case that refuses anyone but an administrator; every
 * action is audited there.
 */
export async function adminPageRoutes(app: AppServer, container: Container): Promise<void> {
  installFormParser(app);
  const kit = adminPageKit(container);
  await adminOverviewRoutes(app, kit);
  await adminUserRoutes(app, kit);
  await adminCatalogueRoutes(app, kit);
  await adminCertificateRoutes(app, kit);
  await adminReportRoutes(app, kit);
}
