import { said } from '../../../i18n/said.ts';
import type { AppServer } from '../../types.ts';
import { Type } from 'typebox';
import { addUser, searchUsers, setActive, setAdmin } from '../../../domain/accounts/manage-users.ts';
import { sendInvitation } from '../../../domain/accounts/password-reset.ts';
import { AppError } from '../../../errors.ts';
import type { AdminState } from '../../../web/pages/admin-pages.ts';
import { adminUsersPage } from '../../../web/pages/admin-pages.ts';
import type { PageSetting } from '../../page-context.ts';
import type { SignedIn } from './signed-in-forms.ts';
import { checked as on } from './signed-in-forms.ts';
import { adminGetSchema, adminPostSchema } from './admin-page-kit.ts';
import type { AdminPageKit } from './admin-page-kit.ts';

const text = (maxLength: number) => Type.String({ maxLength });

/** The administrator's users page: find, disable or enable an account, grant or take back administration, invite by mail. */
export async function adminUserRoutes(app: AppServer, kit: AdminPageKit): Promise<void> {
  const UsersQuery = Type.Object({ q: Type.Optional(text(100)) }, { additionalProperties: true });

  // Users

  const usersPage = async (who: SignedIn, setting: PageSetting, state: AdminState, query: string) =>
    adminUsersPage(
      query,
      await searchUsers(query, 200, who.acting, kit.container.accounts),
      setting.formToken(),
      state,
      setting.context,
    );

  app.get('/admin/users', {
    schema: { ...adminGetSchema(), querystring: UsersQuery },
    handler: async (request, reply) =>
      kit.page(request, reply, (who, setting) => usersPage(who, setting, {}, request.query.q ?? '')),
  });
  const showUsers = (who: SignedIn, setting: PageSetting, state: AdminState, body: Record<string, string>) =>
    usersPage(who, setting, state, body['q'] ?? '');

  app.post('/admin/users/active', {
    schema: adminPostSchema(['username', 'active', 'q'], 'user_not_found', 'conflict'),
    handler: kit.form(
      'users',
      '/admin/users',
      async (body, who, t) => {
        const user = await setActive(body['username'] ?? '', on(body['active']), who.acting, kit.container.accounts);
        return user.isActive ? t.admin.enabledDone(user.username) : t.admin.disabledDone(user.username);
      },
      showUsers,
    ),
  });

  app.post('/admin/users/admin', {
    schema: adminPostSchema(['username', 'admin', 'q'], 'user_not_found', 'conflict'),
    handler: kit.form(
      'users',
      '/admin/users',
      async (body, who, t) => {
        const user = await setAdmin(body['username'] ?? '', on(body['admin']), who.acting, kit.container.accounts);
        return t.admin.adminDone(user.username, user.isAdmin);
      },
      showUsers,
    ),
  });

  app.post('/admin/users/invite', {
    schema: adminPostSchema(['username', 'email', 'admin'], 'invalid_user', 'user_exists'),
    handler: kit.form(
      'invite',
      '/admin/users',
      async (body, who, t) => {
        const email = (body['email'] ?? '').trim();
        if (email === '')
          throw new AppError('invalid_user', said`An invitation needs an e-mail address.`, {
            email: [said`needed: the invitation is mailed there`],
          });
        const user = await addUser(
          {
            username: (body['username'] ?? '').trim(),
            email,
            password: null,
            isAdmin: on(body['admin']),
            emailVerified: false,
          },
          who.acting,
          kit.container.accounts,
        );
        await sendInvitation(user, kit.container.selfService);
        return t.admin.invited(user.username, email);
      },
      (who, setting, state) => usersPage(who, setting, state, ''),
    ),
  });
}
