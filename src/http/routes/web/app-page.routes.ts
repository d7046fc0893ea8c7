import { requestTexts } from '../../page-context.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { userActing } from '../../../domain/audit/audit.ts';
import { findListedApp, latestPerPlatform } from '../../../domain/browse/browse-catalog.ts';
import { raterStanding, rateApp, starsToRating, unrateApp } from '../../../domain/ratings/rate-app.ts';
import { requireApp } from '../../../domain/apps/app-registry.ts';
import { replyToComment, reportComment } from '../../../domain/ratings/moderation.ts';
import type { User } from '../../../domain/accounts/user.ts';
import type { AppPageView } from '../../../web/pages/app-page.ts';
import { appPage } from '../../../web/pages/app-page.ts';
import { installFormParser } from '../../body-parsers.ts';
import { formRefusal } from '../../form-refusal.ts';
import { PAGE_RESPONSE, sendPage } from '../../html-reply.ts';
import { pageSetting } from '../../page-context.ts';
import { AppIdParam, BODY_ERRORS, errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { postedBy } from '../../web-visitor.ts';
import type { Visitor } from '../../web-visitor.ts';

const Params = Type.Object({ appId: AppIdParam });
const Redirect = { 303: Type.Null({ description: 'Back to the app page' }) };
const RATED = {
  saved: 'ratingSaved',
  removed: 'ratingRemoved',
  reported: 'commentReported',
  'reported-before': 'commentReportedBefore',
  replied: 'replySaved',
  'reply-removed': 'replyRemoved',
} as const;
const RatingParams = Type.Object({ appId: AppIdParam, ratingId: Type.String({ pattern: '^[0-9]{1,15}$' }) });

/** The app page, and rating from it through the same use cases as the API (`POST/DELETE /api/v1/apps/{id}/ratings`). */
export async function appPageRoutes(app: AppServer, container: Container): Promise<void> {
  installFormParser(app);

  async function render(
    request: FastifyRequest,
    reply: FastifyReply,
    appId: string,
    form: AppPageView['form'],
    visitor?: Visitor,
    commentsMessage?: string,
  ) {
    const setting = await pageSetting(request, reply, container, visitor);
    const { catalog, context, display } = setting;
    const { app: listed, ratings, raterNames } = await findListedApp(catalog, appId);
    const user = setting.visitor.user;
    const registered = user === null ? null : await requireApp(listed.id, container.ratings.registry);
    const standing =
      user === null || registered === null ? null : await raterStanding(registered, user, container.ratings);
    const own = user === null ? null : (ratings.find((rating) => rating.user.id === user.id) ?? null);
    const view: AppPageView = {
      latest: latestPerPlatform(listed, catalog.platforms),
      platforms: catalog.platforms.length,
      ratings,
      rater: standing === null ? null : standing === 'may-rate' ? { formToken: setting.formToken(), own } : standing,
      blockedRemoval: own === null ? null : setting.formToken(),
      moderator:
        user === null
          ? null
          : { formToken: setting.formToken(), userId: user.id, isOwner: registered?.ownerId === user.id },
      form,
      ...(commentsMessage === undefined ? {} : { commentsMessage }),
      raterNames,
      downloads: (await container.downloads.stats.stats.counts([listed.id])).get(listed.id) ?? null,
      donations: await container.feeds.donations(listed.id),
    };
    return sendPage(request, reply, appPage(listed, view, context, display));
  }

  app.get('/apps/:appId', {
    schema: {
      hide: true,
      params: Params,
      querystring: Type.Object(
        { rated: Type.Optional(Type.String({ enum: Object.keys(RATED) })) },
        { additionalProperties: true },
      ),
      response: { ...PAGE_RESPONSE, ...errorResponses('invalid_request', 'app_not_found') },
    },
    handler: async (request, reply) => {
      const rated = request.query.rated;
      const message =
        rated !== undefined && rated in RATED
          ? requestTexts(request).site[RATED[rated as keyof typeof RATED]]
          : undefined;
      // A report or a reply came from the comments: its message is said there, where the page returns.
      const fromComments = rated !== undefined && !['saved', 'removed'].includes(rated);
      return render(
        request,
        reply,
        request.params.appId,
        message === undefined || fromComments ? {} : { message },
        undefined,
        fromComments ? message : undefined,
      );
    },
  });

  const RatingForm = Type.Object(
    {
      stars: Type.String({ pattern: '^[1-5]$', description: '1 to 5' }),
      comment: Type.Optional(Type.String({ maxLength: 10000 })),
      language: Type.Optional(Type.String({ maxLength: 35 })),
    },
    { additionalProperties: true },
  );
  const ratingErrors = {
    ...PAGE_RESPONSE,
    ...Redirect,
    ...errorResponses(BODY_ERRORS, 'csrf_failed', 'forbidden', 'app_not_found', 'rating_not_found', 'rate_limited'),
  };

  /** Runs a rating change for the signed-in sender of the form, then back to the page (or the page with the refusal). */
  async function change(
    request: FastifyRequest,
    reply: FastifyReply,
    appId: string,
    work: (user: User) => Promise<keyof typeof RATED>,
  ) {
    const here = `/apps/${encodeURIComponent(appId)}`;
    let visitor: Visitor | undefined;
    try {
      visitor = postedBy(request);
      if (visitor.user === null) return reply.redirect(`/account/login?next=${encodeURIComponent(here)}`, 303);
      const outcome = await work(visitor.user);
      const anchor = outcome === 'saved' || outcome === 'removed' ? 'your-rating' : 'comments';
      return reply.redirect(`${here}?rated=${outcome}#${anchor}`, 303);
    } catch (error) {
      return render(request, reply, appId, formRefusal(error, request, reply), visitor);
    }
  }

  app.post('/apps/:appId/rating', {
    schema: { hide: true, params: Params, body: RatingForm, response: ratingErrors },
    handler: async (request, reply) =>
      change(request, reply, request.params.appId, async (user) => {
        const { stars, comment, language } = request.body;
        await rateApp(
          request.params.appId,
          { rating: starsToRating(Number(stars)), comment: comment ?? '', language: language ?? 'en' },
          user,
          userActing(user, request.ip, request.id),
          container.ratings,
        );
        return 'saved';
      }),
  });

  app.post('/apps/:appId/rating/delete', {
    schema: {
      hide: true,
      params: Params,
      body: Type.Object({}, { additionalProperties: true }),
      response: ratingErrors,
    },
    handler: async (request, reply) =>
      change(request, reply, request.params.appId, async (user) => {
        await unrateApp(request.params.appId, user, userActing(user, request.ip, request.id), container.ratings);
        return 'removed';
      }),
  });

  // Moderation from the app page (issue 54): anyone signed in reports a comment; the owner replies once.
  app.post('/apps/:appId/ratings/:ratingId/report', {
    schema: {
      hide: true,
      params: RatingParams,
      body: Type.Object({ reason: Type.Optional(Type.String({ maxLength: 2000 })) }, { additionalProperties: true }),
      response: ratingErrors,
    },
    handler: async (request, reply) =>
      change(request, reply, request.params.appId, async (user) => {
        const added = await reportComment(
          Number(request.params.ratingId),
          request.body.reason ?? '',
          user,
          userActing(user, request.ip, request.id),
          container.moderation,
          request.params.appId,
        );
        return added ? 'reported' : 'reported-before';
      }),
  });

  app.post('/apps/:appId/ratings/:ratingId/reply', {
    schema: {
      hide: true,
      params: RatingParams,
      body: Type.Object({ reply: Type.Optional(Type.String({ maxLength: 10000 })) }, { additionalProperties: true }),
      response: ratingErrors,
    },
    handler: async (request, reply) =>
      change(request, reply, request.params.appId, async (user) => {
        const text = request.body.reply ?? '';
        await replyToComment(
          Number(request.params.ratingId),
          text,
          user,
          userActing(user, request.ip, request.id),
          container.moderation,
          request.params.appId,
        );
        return text.trim() === '' ? 'reply-removed' : 'replied';
      }),
  });
}
