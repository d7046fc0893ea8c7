import { coreSatisfies, parsePlatformVersion } from '../versions/semantic-version.ts';
import type { VersionCore } from '../versions/semantic-version.ts';
import type { CatalogEntry } from './catalog-entry.ts';
import type { SearchIndex, Sort } from './search-index.ts';
import { WORD_BREAK, foldText } from './search-index.ts';

export interface SearchQuery {
  /** Words to find in the app's id, names, summaries and descriptions (any language, any case, with or without accents); empty: every app. */
  readonly text: string;
  readonly category: string | null;
  /** A Nextcloud version (such as 30 or 30.0.2) some release must support; null: any. */
  readonly nextcloud: string | null;
  readonly featuredOnly: boolean;
  /** Deprecated apps too (left out unless asked for). */
  readonly deprecated: boolean;
  readonly sort: Sort;
  /** 1-based. */
  readonly page: number;
}

export interface SearchResult {
  readonly apps: readonly CatalogEntry[];
  readonly total: number;
  readonly page: number;
  readonly pages: number;
}

/** What a search reads: the entries, and their index (positions in both agree). */
export interface Searchable {
  readonly apps: readonly CatalogEntry[];
  readonly index: SearchIndex;
}

export const PAGE_SIZE = 24;

/** Folded words of at most 100 characters in all; punctuation separates words. */
export function searchWords(text: string): string[] {
  return foldText(text.slice(0, 100))
    .split(WORD_BREAK)
    .filter((word) => word !== '')
    .slice(0, 10);
}

/** `30` and `30.0` mean 30.0.0; null for anything that is not a version. */
function fullVersion(text: string): VersionCore | null {
  if (!/^\d{1,4}(\.\d{1,4}){0,2}$/.test(text)) return null;
  return parsePlatformVersion([...text.split('.'), '0', '0'].slice(0, 3).join('.'));
}

/**
 * The catalogue search of the website: the words scored from the index, the filters, then the
 * chosen order (precomputed; a relevance search orders its matches by score, ties in the
 * precomputed order), then one page.
 */
export function searchApps(catalog: Searchable, query: SearchQuery): SearchResult {
  const words = searchWords(query.text);
  const nextcloud = query.nextcloud === null ? null : fullVersion(query.nextcloud);
  const scores = catalog.index.scores(words);
  const kept = (app: CatalogEntry): boolean =>
    (query.category === null || app.categories.includes(query.category)) &&
    (!query.featuredOnly || app.isFeatured) &&
    (query.deprecated || !app.isDeprecated) &&
    (nextcloud === null || app.platforms.some((bounds) => coreSatisfies(nextcloud, bounds)));
  const matches: number[] = [];
  for (const i of catalog.index.orders[query.sort])
    if ((scores === null || scores[i] !== 0) && kept(catalog.apps[i] as CatalogEntry)) matches.push(i);
  // Stable: equal scores keep the precomputed order.
  if (query.sort === 'relevance' && scores !== null) matches.sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0));
  const pages = Math.max(1, Math.ceil(matches.length / PAGE_SIZE));
  const page = Math.min(Math.max(1, query.page), pages);
  return {
    apps: matches.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE).map((i) => catalog.apps[i] as CatalogEntry),
    total: matches.length,
    page,
    pages,
  };
}
