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
const DONE_KEYS = [...ACTIONS, 'blocked', 'allowed'] as const;
type DoneKey = (typeof DONE_KEYS)[number];

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
    schema: {
      ...adminGetSchema(),
      // What the form just did (post, redirect, get): the page says it once, and a reload repeats nothing.
      querystring: Type.Object({
        done: Type.Optional(Type.String({ enum: [...DONE_KEYS] })),
        user: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })),
      }),
    },
    handler: async (request, reply) => {
      const { done, user } = request.query as { done?: DoneKey; user?: string };
      return kit.page(request, reply, async (who, setting) => {
        const t = setting.context.t;
        let message: string | undefined;
        if (done === 'blocked' || done === 'allowed') {
          const rater = user === undefined ? null : await container.accounts.store.findUserById(Number(user));
          if (rater !== null)
            message = done === 'blocked' ? t.admin.raterBlocked(rater.username) : t.admin.raterAllowed(rater.username);
        } else if (done !== undefined) message = t.admin[DONE[done]];
        return reportsPage(who, setting, message === undefined ? {} : { form: 'reports', message });
      });
    },
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
      return kit.redirectingForm(
        'reports',
        '/admin/reports',
        async (_body, who) => {
          await moderateRating(Number(ratingId), action, who.acting, container.moderation);
          return `/admin/reports?done=${action}`;
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
      return kit.redirectingForm(
        'reports',
        '/admin/reports',
        async (_body, who) => {
          const user = await container.accounts.store.findUserById(Number(userId));
          if (user === null) throw new AppError('user_not_found', said`There is no such user.`);
          await setRatingBlocked(user, choice === 'block', who.acting, container.moderation);
          return `/admin/reports?done=${choice === 'block' ? 'blocked' : 'allowed'}&user=${user.id}`;
        },
        reportsPage,
      )(request, reply);
    },
  });
}
