import { said } from '../../../i18n/said.ts';
import { Type } from 'typebox';
import { moderateRating, moderationOverview, setRatingBlocked } from '../../../domain/ratings/moderation.ts';
import type { ModerationAction } from '../../../domain/ratings/moderation.ts';
import { AppError } from '../../../errors.ts';
import type { AdminState } from '../../../web/pages/admin-pages.ts';
import { adminReportsPage } from '../../../web/pages/admin-reports-page.ts';
import type { PageSetting } from '../../page-context.ts';
import type { AppServer } from '../../types.ts';
import { adminGetSchema, adminPostSchema } from './admin-page-kit.ts';
import type { AdminPageKit } from './admin-page-kit.ts';
import type { SignedIn } from './signed-in-forms.ts';

const ACTIONS = ['hide', 'restore', 'dismiss', 'remove'] as const satisfies readonly ModerationAction[];
const DONE = {
  hide: 'commentHidden',
  restore: 'commentRestored',
  dismiss: 'reportsDismissed',
  remove: 'ratingRemoved',
} as const satisfies Record<ModerationAction, string>;

/** The administrators' moderation queue (issue 54): reported comments, hidden ones, users stopped from rating. */
export async function adminReportRoutes(app: AppServer, kit: AdminPageKit): Promise<void> {
  const { container } = kit;
  const reportsPage = async (who: SignedIn, setting: PageSetting, state: AdminState) =>
    adminReportsPage(
      await moderationOverview(who.acting, container.moderation),
      setting.formToken(),
      state,
      setting.context,
    );
  app.get('/admin/reports', {
    schema: adminGetSchema(),
    handler: async (request, reply) => kit.page(request, reply, (who, setting) => reportsPage(who, setting, {})),
  });

  app.post('/admin/reports/:ratingId/:action', {
    schema: {
      ...adminPostSchema([], 'rating_not_found'),
      params: Type.Object({
        ratingId: Type.String({ pattern: '^[0-9]{1,15}$' }),
        action: Type.String({ enum: [...ACTIONS] }),
      }),
    },
    handler: async (request, reply) => {
      const { ratingId, action } = request.params as { ratingId: string; action: ModerationAction };
      return kit.form(
        'reports',
        '/admin/reports',
        async (_body, who, t) => {
          await moderateRating(Number(ratingId), action, who.acting, container.moderation);
          return t.admin[DONE[action]];
        },
        reportsPage,
      )(request, reply);
    },
  });

  app.post('/admin/raters/:userId/:choice', {
    schema: {
      ...adminPostSchema([], 'user_not_found'),
      params: Type.Object({
        userId: Type.String({ pattern: '^[0-9]{1,15}$' }),
        choice: Type.String({ enum: ['block', 'allow'] }),
      }),
    },
    handler: async (request, reply) => {
      const { userId, choice } = request.params as { userId: string; choice: 'block' | 'allow' };
      return kit.form(
        'reports',
        '/admin/reports',
        async (_body, who, t) => {
          const user = await container.accounts.store.findUserById(Number(userId));
          if (user === null) throw new AppError('user_not_found', said`There is no such user.`);
          await setRatingBlocked(user, choice === 'block', who.acting, container.moderation);
          return choice === 'block' ? t.admin.raterBlocked(user.username) : t.admin.raterAllowed(user.username);
        },
        reportsPage,
      )(request, reply);
    },
  });
}
