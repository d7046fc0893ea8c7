import type { Container } from '../../../container.ts';
import { installFormParser } from '../../body-parsers.ts';
import type { AppServer } from '../../types.ts';
import { developerAppRoutes } from './developer-apps.routes.ts';
import { developerCertificateRoutes } from './developer-certificates.routes.ts';
import { developerGenerateRoutes } from './developer-generate.routes.ts';
import { developerPublishRoutes } from './developer-publish.routes.ts';
import { developerRegisterRoutes } from './developer-register.routes.ts';
import { signedInPages } from './signed-in-forms.ts';

/**
 * The developer pages (docs/website.md): my apps, a certificate from the store's authority,
 * registering an app, publishing a release (a job followed by a page that refreshes) and managing
 * an app, a file per flow. Every action calls the use case the API and the CLI call; the use
 * cases decide who may.
 */
export async function developerPageRoutes(app: AppServer, container: Container): Promise<void> {
  installFormParser(app);
  const pages = signedInPages(container);
  await developerGenerateRoutes(app, container, pages);
  await developerAppRoutes(app, container, pages);
  await developerCertificateRoutes(app, container, pages);
  await developerRegisterRoutes(app, container, pages);
  await developerPublishRoutes(app, container, pages);
}
