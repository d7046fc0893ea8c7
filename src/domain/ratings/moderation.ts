import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import { requireAdmin, roleOn } from '../accounts/authorization.ts';
import type { User } from '../accounts/user.ts';
import type { AppRegistry } from '../apps/app-registry.ts';
import { requireApp } from '../apps/app-registry.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { RateLimiter } from '../rate-limit.ts';

/**
 * Moderating ratings (issue 54): anyone signed in reports a comment with a reason; the app's
 * owner replies once under a comment; administrators work through the reports: hide a comment
 * (it leaves ratings.json and the app page, its rating value stays) or restore it, dismiss the
 * reports, remove a rating outright, stop a user from rating. Every step is audited.
 */

/** A rating as moderation sees it. */
export interface ModeratedRating {
  readonly id: number;
  readonly appId: string;
  readonly userId: number;
  readonly username: string;
  readonly rating: number;
  readonly ratedAt: string;
  readonly appVersion: string | null;
  /** The comment, by language ({} when there is none). */
  readonly comments: Readonly<Record<string, string>>;
  readonly hiddenAt: string | null;
  readonly reply: string | null;
}

/** A comment with reports waiting: the queue's entries, oldest report first. */
export interface ReportedComment {
  readonly rating: ModeratedRating;
  readonly reports: ReadonlyArray<{ readonly reporter: string; readonly reason: string; readonly at: string }>;
}

export interface ModerationStore {
  findRating(ratingId: number): Promise<ModeratedRating | null>;
  /** False when this user reported this rating already (one report per user and comment). */
  addReport(ratingId: number, reporterId: number, reason: string, now: Date, audit: AuditEntry): Promise<boolean>;
  setReply(ratingId: number, reply: string | null, now: Date, audit: AuditEntry): Promise<void>;
  /** Hides (`hidden`) or restores the comment; hiding settles its waiting reports as `hidden`. */
  setHidden(ratingId: number, hidden: boolean, now: Date, audit: AuditEntry): Promise<void>;
  /** Settles the comment's waiting reports as `dismissed`. */
  dismissReports(ratingId: number, now: Date, audit: AuditEntry): Promise<void>;
  /** Deletes the rating (its value leaves the aggregates), its reports with it. */
  removeRating(ratingId: number, now: Date, audit: AuditEntry): Promise<void>;
  setRatingBlocked(userId: number, blocked: boolean, now: Date, audit: AuditEntry): Promise<void>;
  queue(): Promise<ReportedComment[]>;
  hiddenComments(): Promise<ModeratedRating[]>;
  blockedRaters(): Promise<ReadonlyArray<{ readonly id: number; readonly username: string; readonly since: string }>>;
  isRatingBlocked(userId: number): Promise<boolean>;
}

export interface ModerationDeps {
  readonly moderation: ModerationStore;
  readonly registry: Pick<AppRegistry, 'findApp'>;
  readonly limiter: RateLimiter;
  readonly now: () => Date;
}

export const REASON_MAX = 500;
export const REPLY_MAX = 2000;

/** The rating, of `appId` when the address names one (a rating id under another app's address is not found). */
async function requireRating(ratingId: number, deps: ModerationDeps, appId?: string): Promise<ModeratedRating> {
  const rating = Number.isSafeInteger(ratingId) ? await deps.moderation.findRating(ratingId) : null;
  if (rating === null || (appId !== undefined && rating.appId !== appId))
    throw new AppError('rating_not_found', said`There is no such rating: it may have been removed.`);
  return rating;
}

function hasComment(rating: ModeratedRating): boolean {
  return Object.values(rating.comments).some((comment) => comment.trim() !== '');
}

/** Reports a comment: signed in, not one's own, with a reason; once per user and comment. Returns false when already reported. */
export async function reportComment(
  ratingId: number,
  reason: string,
  user: User,
  acting: Acting,
  deps: ModerationDeps,
  appId?: string,
): Promise<boolean> {
  const rating = await requireRating(ratingId, deps, appId);
  const why = reason.trim();
  if (why.length < 3 || why.length > REASON_MAX)
    throw new AppError(
      'invalid_request',
      said`Say why the comment should be looked at, in 3 to ${REASON_MAX} characters.`,
      {
        reason: [said`3 to ${REASON_MAX} characters`],
      },
    );
  if (rating.userId === user.id)
    throw new AppError('forbidden', said`This is your own comment: change or remove it instead of reporting it.`);
  if (await deps.moderation.isRatingBlocked(user.id))
    throw new AppError(
      'forbidden',
      said`An administrator of this store stopped this account from rating and reporting.`,
    );
  if (!hasComment(rating) || rating.hiddenAt !== null)
    throw new AppError('rating_not_found', said`This rating has no comment shown to report.`);
  await deps.limiter.consume(RATE_LIMITS.reports, String(user.id));
  return deps.moderation.addReport(
    rating.id,
    user.id,
    why,
    deps.now(),
    auditEntry(acting, 'rating.reported', {
      appId: rating.appId,
      subjectUser: rating.username,
      details: { rating: rating.id, reason: why.slice(0, 200) },
    }),
  );
}

/** The app owner's one reply under a comment: set, replaced, or removed with an empty text. */
export async function replyToComment(
  ratingId: number,
  text: string,
  user: User,
  acting: Acting,
  deps: ModerationDeps,
  appId?: string,
): Promise<void> {
  const rating = await requireRating(ratingId, deps, appId);
  const app = await requireApp(rating.appId, deps.registry);
  if (roleOn(user, app) !== 'owner')
    throw new AppError('forbidden', said`Only the owner of ${rating.appId} replies to its comments.`);
  const reply = text.trim();
  if (reply.length > REPLY_MAX)
    throw new AppError('invalid_request', said`A reply has at most ${REPLY_MAX} characters.`, {
      reply: [said`at most ${REPLY_MAX} characters`],
    });
  if (reply !== '' && (!hasComment(rating) || rating.hiddenAt !== null))
    throw new AppError('rating_not_found', said`This rating has no comment shown to reply to.`);
  await deps.moderation.setReply(
    rating.id,
    reply === '' ? null : reply,
    deps.now(),
    auditEntry(acting, 'rating.replied', {
      appId: rating.appId,
      subjectUser: rating.username,
      details: { rating: rating.id, removed: reply === '' },
    }),
  );
}

export type ModerationAction = 'hide' | 'restore' | 'dismiss' | 'remove';

/** An administrator's decision on a rating's comment (the queue's buttons). */
export async function moderateRating(
  ratingId: number,
  action: ModerationAction,
  acting: Acting,
  deps: ModerationDeps,
): Promise<ModeratedRating> {
  requireAdmin(acting, said`moderate ratings`);
  const rating = await requireRating(ratingId, deps);
  const about = { appId: rating.appId, subjectUser: rating.username, details: { rating: rating.id } };
  const now = deps.now();
  switch (action) {
    case 'hide':
      await deps.moderation.setHidden(rating.id, true, now, auditEntry(acting, 'rating.hidden', about));
      break;
    case 'restore':
      await deps.moderation.setHidden(rating.id, false, now, auditEntry(acting, 'rating.restored', about));
      break;
    case 'dismiss':
      await deps.moderation.dismissReports(rating.id, now, auditEntry(acting, 'rating.reports-dismissed', about));
      break;
    case 'remove':
      await deps.moderation.removeRating(
        rating.id,
        now,
        auditEntry(acting, 'rating.removed', { ...about, details: { rating: rating.id, value: rating.rating } }),
      );
      break;
  }
  return rating;
}

/** Stops a user from rating (their ratings stay; hide or remove those one by one), or lets them again. */
export async function setRatingBlocked(
  user: { readonly id: number; readonly username: string },
  blocked: boolean,
  acting: Acting,
  deps: ModerationDeps,
): Promise<void> {
  requireAdmin(acting, said`stop users from rating`);
  await deps.moderation.setRatingBlocked(
    user.id,
    blocked,
    deps.now(),
    auditEntry(acting, blocked ? 'user.rating-blocked' : 'user.rating-allowed', { subjectUser: user.username }),
  );
}

/** What the administrators' queue shows: reported comments, hidden ones, users stopped from rating. */
export async function moderationOverview(acting: Acting, deps: ModerationDeps) {
  requireAdmin(acting, said`see the reports`);
  const [queue, hidden, blocked] = await Promise.all([
    deps.moderation.queue(),
    deps.moderation.hiddenComments(),
    deps.moderation.blockedRaters(),
  ]);
  return { queue, hidden, blocked };
}

export type ModerationOverview = Awaited<ReturnType<typeof moderationOverview>>;
