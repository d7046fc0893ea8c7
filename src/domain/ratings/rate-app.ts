import { AppError } from '../../errors.ts';
import { roleOn } from '../accounts/authorization.ts';
import type { User } from '../accounts/user.ts';
import type { AppRegistry } from '../apps/app-registry.ts';
import { LANGUAGE_CODE_PATTERN } from '../catalog/catalog.ts';

export interface RatingStore {
  /** One rating per user and app: replaces the user's earlier one (and its comments). */
  upsertRating(appId: string, userId: number, rating: number, comments: Readonly<Record<string, string>>, now: Date): Promise<{ created: boolean }>;
  /** False when the user had not rated the app. */
  deleteRating(appId: string, userId: number): Promise<boolean>;
}

export interface RatingDeps {
  readonly registry: AppRegistry;
  readonly ratings: RatingStore;
  readonly now: () => Date;
}

export interface RatingInput {
  readonly rating: number;
  readonly comment?: string;
  readonly language?: string;
}

async function ratableApp(appId: string, deps: RatingDeps) {
  const app = await deps.registry.findApp(appId);
  if (app === null) throw new AppError('app_not_found', `There is no app '${appId}'.`);
  return app;
}

/** `POST /api/v1/apps/{id}/ratings`: 201 for a first rating, 200 when it replaces one. */
export async function rateApp(appId: string, input: RatingInput, user: User, deps: RatingDeps): Promise<{ created: boolean }> {
  const app = await ratableApp(appId, deps);
  const role = roleOn(user, app);
  if (role === 'owner' || role === 'co-maintainer') throw new AppError('forbidden', `You maintain ${appId}: its owner and co-maintainers cannot rate it.`);
  const language = input.language ?? 'en';
  if (!LANGUAGE_CODE_PATTERN.test(language)) {
    throw new AppError('invalid_request', `Invalid request body: language: '${language.slice(0, 20)}' is not a language code.`, { language: ['is not a language code (such as en, de, pt_BR)'] });
  }
  const comment = input.comment?.trim() ?? '';
  return deps.ratings.upsertRating(appId, user.id, input.rating, comment === '' ? {} : { [language]: comment }, deps.now());
}

/** `DELETE /api/v1/apps/{id}/ratings`: removes the caller's rating. */
export async function unrateApp(appId: string, user: User, deps: RatingDeps): Promise<void> {
  await ratableApp(appId, deps);
  if (!(await deps.ratings.deleteRating(appId, user.id))) throw new AppError('rating_not_found', `You have not rated ${appId}.`);
}
