import type { Container } from '../../../container.ts';
import { installFormParser } from '../../body-parsers.ts';
import type { AppServer } from '../../types.ts';
import { accountPageKit } from './account-page-kit.ts';
import { accountResetRoutes } from './account-reset.routes.ts';
import { accountSettingsRoutes } from './account-settings.routes.ts';
import { accountTokenRoutes } from './account-tokens.routes.ts';
import { accountSecurityRoutes } from './account-security.routes.ts';
import { accountSignInRoutes } from './account-sign-in.routes.ts';
import { accountSignUpRoutes } from './account-sign-up.routes.ts';

/**
 * The website's accounts (docs/website.md): sign-in, sign-out, sign-up with a confirmed address,
 * password reset by mail, and the account page (token, password, address, deletion), a file per
 * flow. Every form carries a CSRF token; a refused form comes back with what was wrong, under the
 * catalogue's status.
 */
export async function accountPageRoutes(app: AppServer, container: Container): Promise<void> {
  installFormParser(app);
  const kit = accountPageKit(container);
  await accountSignInRoutes(app, kit);
  await accountSignUpRoutes(app, kit);
  await accountResetRoutes(app, kit);
  await accountSettingsRoutes(app, kit);
  await accountTokenRoutes(app, kit);
  await accountSecurityRoutes(app, kit);
}
