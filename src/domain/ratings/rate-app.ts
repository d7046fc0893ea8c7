import { said } from '../../i18n/said.ts';
import { requireAppInScope } from '../accounts/token-scopes.ts';
import { AppError } from '../../errors.ts';
import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import { canRate } from '../accounts/authorization.ts';
import type { User } from '../accounts/user.ts';
import type { AppRegistry } from '../apps/app-registry.ts';
import type { AppAccess } from '../accounts/authorization.ts';
import { requireApp } from '../apps/app-registry.ts';
import { LANGUAGE_CODE_PATTERN } from '../catalog/catalog.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { RateLimiter } from '../rate-limit.ts';
import type { ModerationStore } from './moderation.ts';

export interface RatingStore {
  /** One rating per user and app: replaces the user's earlier one (and its comments). */
  upsertRating(
    appId: string,
    userId: number,
    rating: number,
    comments: Readonly<Record<string, string>>,
    now: Date,
    audit: AuditEntry,
  ): Promise<{ created: boolean }>;
  /** False when the user had not rated the app. */
  deleteRating(appId: string, userId: number, now: Date, audit: AuditEntry): Promise<boolean>;
}

export interface RatingDeps {
  readonly registry: Pick<AppRegistry, 'findApp'>;
  readonly ratings: RatingStore;
  /** Whether an administrator stopped the user from rating (issue 54). */
  readonly moderation: Pick<ModerationStore, 'isRatingBlocked'>;
  /** Ratings per user and day (issue 54). */
  readonly limiter: RateLimiter;
  readonly now: () => Date;
}

export interface RatingInput {
  readonly rating: number;
  readonly comment?: string;
  readonly language?: string;
}

/** `POST /api/v1/apps/{id}/ratings`: 201 for a first rating, 200 when it replaces one. */
export async function rateApp(
  appId: string,
  input: RatingInput,
  user: User,
  acting: Acting,
  deps: RatingDeps,
): Promise<{ created: boolean }> {
  const app = await requireApp(appId, deps.registry);
  requireAppInScope(user, appId);
  if (!canRate(user, app))
    throw new AppError('forbidden', said`You maintain ${appId}: its owner and co-maintainers cannot rate it.`);
  if (await deps.moderation.isRatingBlocked(user.id))
    throw new AppError('forbidden', said`An administrator of this store stopped this account from rating apps.`);
  const language = input.language ?? 'en';
  if (!LANGUAGE_CODE_PATTERN.test(language)) {
    throw new AppError(
      'invalid_request',
      said`Invalid request body: language: '${language.slice(0, 20)}' is not a language code.`,
      { language: [said`is not a language code (such as en, de, pt_BR)`] },
    );
  }
  const comment = input.comment?.trim() ?? '';
  await deps.limiter.consume(RATE_LIMITS.ratings, String(user.id));
  const audit = auditEntry(acting, 'rating.saved', {
    appId,
    details: { rating: input.rating, commented: comment !== '' },
  });
  return deps.ratings.upsertRating(
    appId,
    user.id,
    input.rating,
    comment === '' ? {} : { [language]: comment },
    deps.now(),
    audit,
  );
}

/** `DELETE /api/v1/apps/{id}/ratings`: removes the caller's rating. */
export async function unrateApp(appId: string, user: User, acting: Acting, deps: RatingDeps): Promise<void> {
  await requireApp(appId, deps.registry);
  requireAppInScope(user, appId);
  if (!(await deps.ratings.deleteRating(appId, user.id, deps.now(), auditEntry(acting, 'rating.deleted', { appId }))))
    throw new AppError('rating_not_found', said`You have not rated ${appId}.`);
}

/**
 * Where the user stands on rating the app, for the app page: may rate, maintains it (its owner
 * and co-maintainers may not rate), or stopped from rating by an administrator (issue 54).
 */
export async function raterStanding(
  app: AppAccess,
  user: User,
  deps: Pick<RatingDeps, 'moderation'>,
): Promise<'may-rate' | 'maintainer' | 'blocked'> {
  if (!canRate(user, app)) return 'maintainer';
  return (await deps.moderation.isRatingBlocked(user.id)) ? 'blocked' : 'may-rate';
}

/** The website rates with 1 to 5 stars; the API and ratings.json with 0.0 to 1.0. */
export function starsToRating(stars: number): number {
  return (stars - 1) / 4;
}

export function ratingToStars(rating: number): number {
  return 1 + rating * 4;
}
