import type { ListedApp } from '../listings/app-listing.ts';
import { platformBounds } from '../listings/app-listing.ts';
import { parsePlatformVersion, satisfies } from '../versions/semantic-version.ts';

export const SORTS = ['relevance', 'rating', 'newest', 'updated', 'name'] as const;
export type Sort = (typeof SORTS)[number];

export interface SearchQuery {
  /** Words to find in the app's id, names and summaries (any language); empty: every app. */
  readonly text: string;
  readonly category: string | null;
  /** A Nextcloud version (such as 30 or 30.0.2) some release must support; null: any. */
  readonly nextcloud: string | null;
  readonly featuredOnly: boolean;
  readonly sort: Sort;
  /** 1-based. */
  readonly page: number;
}

export interface SearchResult {
  readonly apps: readonly ListedApp[];
  readonly total: number;
  readonly page: number;
  readonly pages: number;
}

export const PAGE_SIZE = 24;

/** Lower-case words of at most 100 characters in all; punctuation separates words. */
export function searchWords(text: string): string[] {
  return text.toLowerCase().slice(0, 100).split(/[^\p{L}\p{N}_]+/u).filter((word) => word !== '').slice(0, 10);
}

/**
 * How well an app matches every word (0: it does not). An id equal to the text ranks first, then
 * words in names (a name starting with the word higher), then words in summaries.
 */
export function relevance(app: ListedApp, words: readonly string[]): number {
  if (words.length === 0) return 1;
  const names = Object.values(app.translations).map((t) => t.name.toLowerCase());
  const summaries = Object.values(app.translations).map((t) => t.summary.toLowerCase());
  let score = words.join('_') === app.id || words.join('') === app.id ? 100 : 0;
  for (const word of words) {
    let best = 0;
    if (app.id.includes(word)) best = Math.max(best, 8);
    for (const name of names) {
      if (name.startsWith(word)) best = Math.max(best, 10);
      else if (name.split(/[^\p{L}\p{N}_]+/u).some((part) => part.startsWith(word))) best = Math.max(best, 7);
      else if (name.includes(word)) best = Math.max(best, 5);
    }
    if (best === 0 && summaries.some((summary) => summary.includes(word))) best = 2;
    if (best === 0) return 0;
    score += best;
  }
  return score;
}

function supports(app: ListedApp, nextcloud: string): boolean {
  return app.releases.some((release) => satisfies(nextcloud, platformBounds(release)));
}

/** `30` and `30.0` mean 30.0.0; null for anything that is not a version. */
function fullVersion(text: string): string | null {
  if (!/^\d{1,4}(\.\d{1,4}){0,2}$/.test(text)) return null;
  const full = [...text.split('.'), '0', '0'].slice(0, 3).join('.');
  return parsePlatformVersion(full) === null ? null : full;
}

const englishName = (app: ListedApp): string => (app.translations['en']?.name ?? app.id).toLowerCase();

/** The catalogue search of the website: filters, then relevance or the chosen order, then one page. */
export function searchApps(apps: readonly ListedApp[], query: SearchQuery): SearchResult {
  const words = searchWords(query.text);
  const nextcloud = query.nextcloud === null ? null : fullVersion(query.nextcloud);
  const scored = apps
    .filter((app) => (query.category === null || app.categories.includes(query.category)) && (!query.featuredOnly || app.isFeatured))
    .filter((app) => nextcloud === null || supports(app, nextcloud))
    .map((app) => ({ app, score: relevance(app, words) }))
    .filter((entry) => entry.score > 0);
  const byName = (a: ListedApp, b: ListedApp): number => englishName(a).localeCompare(englishName(b)) || a.id.localeCompare(b.id);
  const order: Record<Sort, (a: { app: ListedApp; score: number }, b: { app: ListedApp; score: number }) => number> = {
    relevance: (a, b) => b.score - a.score || b.app.ratingOverall * b.app.ratingNumOverall - a.app.ratingOverall * a.app.ratingNumOverall || byName(a.app, b.app),
    rating: (a, b) => b.app.ratingOverall - a.app.ratingOverall || b.app.ratingNumOverall - a.app.ratingNumOverall || byName(a.app, b.app),
    newest: (a, b) => b.app.created.localeCompare(a.app.created) || byName(a.app, b.app),
    updated: (a, b) => b.app.lastModified.localeCompare(a.app.lastModified) || byName(a.app, b.app),
    name: (a, b) => byName(a.app, b.app),
  };
  scored.sort(order[query.sort]);
  const pages = Math.max(1, Math.ceil(scored.length / PAGE_SIZE));
  const page = Math.min(Math.max(1, query.page), pages);
  return { apps: scored.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map((entry) => entry.app), total: scored.length, page, pages };
}
