import type { ListedApp } from '../listings/app-listing.ts';
import { platformBounds } from '../listings/app-listing.ts';
import { parsePlatformVersion, satisfies } from '../versions/semantic-version.ts';

export const SORTS = ['relevance', 'rating', 'newest', 'updated', 'name'] as const;
export type Sort = (typeof SORTS)[number];

export interface SearchQuery {
  /** Words to find in the app's id, names, summaries and descriptions (any language, any case, with or without accents); empty: every app. */
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

/** Lower case without accents (Büro → buro, Ç → c), so neither case nor accents matter to a search. */
export function foldText(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

/** Folded words of at most 100 characters in all; punctuation separates words. */
export function searchWords(text: string): string[] {
  return foldText(text.slice(0, 100)).split(/[^\p{L}\p{N}_]+/u).filter((word) => word !== '').slice(0, 10);
}

/** What search compares, folded once per app object (a catalogue snapshot's apps live as long as it). */
interface AppTerms {
  readonly names: readonly string[];
  /** Each name's words, in the order of `names`. */
  readonly nameWords: ReadonlyArray<readonly string[]>;
  readonly summaries: readonly string[];
  readonly descriptions: readonly string[];
  /** The distinct words of the id, names and summaries: what a misspelt word is compared with. */
  readonly vocabulary: readonly string[];
}

const DESCRIPTION_CHARS = 20_000;
const termsOf = new WeakMap<ListedApp, AppTerms>();
const splitWords = (text: string): string[] => text.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 3);

function terms(app: ListedApp): AppTerms {
  let known = termsOf.get(app);
  if (known === undefined) {
    const texts = Object.values(app.translations);
    const names = texts.map((t) => foldText(t.name));
    const summaries = texts.map((t) => foldText(t.summary));
    const vocabulary = new Set([...splitWords(app.id.replace(/_/g, ' ')), ...names.flatMap(splitWords), ...summaries.flatMap(splitWords)]);
    known = { names, nameWords: names.map((name) => name.split(/[^\p{L}\p{N}_]+/u)), summaries, descriptions: texts.map((t) => foldText(t.description.slice(0, DESCRIPTION_CHARS))), vocabulary: [...vocabulary] };
    termsOf.set(app, known);
  }
  return known;
}

/**
 * Whether `a` and `b` are at most `limit` edits apart (insertions, deletions, substitutions, and
 * swaps of two neighbours): optimal string alignment, stopping as soon as a row passes the limit.
 */
export function withinEdits(a: string, b: string, limit: number): boolean {
  if (Math.abs(a.length - b.length) > limit) return false;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let smallest = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, (before[j - 2] ?? 0) + 1);
      current.push(value);
      smallest = Math.min(smallest, value);
    }
    if (smallest > limit) return false;
    before = previous;
    previous = current;
  }
  return (previous[b.length] ?? Infinity) <= limit;
}

/** Edits a misspelt word may have: none under 4 letters, one up to 7, two from 8. */
const editsAllowed = (word: string): number => (word.length < 4 ? 0 : word.length < 8 ? 1 : 2);

/**
 * How well an app matches every word (0: it does not). An id equal to the text ranks first, then
 * words in names (a name starting with the word higher), then summaries, then descriptions; a
 * word found nowhere may be misspelt: one that nearly matches a word of the id, names or
 * summaries counts least. Case and accents never matter.
 */
export function relevance(app: ListedApp, words: readonly string[]): number {
  if (words.length === 0) return 1;
  const t = terms(app);
  let score = words.join('_') === app.id || words.join('') === app.id ? 100 : 0;
  for (const word of words) {
    let best = 0;
    if (app.id.includes(word)) best = 8;
    for (const [i, name] of t.names.entries()) {
      if (name.startsWith(word)) best = Math.max(best, 10);
      else if (t.nameWords[i]?.some((part) => part.startsWith(word)) === true) best = Math.max(best, 7);
      else if (name.includes(word)) best = Math.max(best, 5);
    }
    if (best === 0 && t.summaries.some((summary) => summary.includes(word))) best = 2;
    if (best === 0 && t.descriptions.some((description) => description.includes(word))) best = 1;
    if (best === 0) {
      const limit = editsAllowed(word);
      if (limit > 0 && t.vocabulary.some((known) => withinEdits(word, known, limit) || (known.length > word.length && withinEdits(word, known.slice(0, word.length), limit)))) best = 0.5;
    }
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
