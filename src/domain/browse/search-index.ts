import type { CatalogEntry, EntrySource } from './catalog-entry.ts';

export const SORTS = ['relevance', 'rating', 'newest', 'updated', 'name'] as const;
export type Sort = (typeof SORTS)[number];

/** A search's order when none is asked for: by relevance to its words, else (all apps) by name. */
export const defaultSort = (text: string): Sort => (text === '' ? 'name' : 'relevance');

/** Lower case without accents (Büro → buro, Ç → c), so neither case nor accents matter to a search. */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** What separates the words search compares (a search word never holds one). */
export const WORD_BREAK = /[^\p{L}\p{N}_]+/u;

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
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, (before[j - 2] ?? 0) + 1);
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

// Where a word of an app was found (bits of a posting's flags).
const NAME_START = 1;
const NAME = 2;
const SUMMARY = 4;
const DESCRIPTION = 8;

// A word's score for an app: the id's own text, then names (starting with it, a word of the name
// starting with it, anywhere), summaries, descriptions; a near miss of a name's or summary's word least.
const SCORE = {
  nameStart: 10,
  id: 8,
  nameWordStart: 7,
  name: 5,
  summary: 2,
  description: 1,
  nearMiss: 0.5,
  wholeId: 100,
} as const;

const DESCRIPTION_CHARS = 20_000;
/** Words a near miss is compared with: at least three letters or digits (the id's underscores separate). */
const nearMissWords = (text: string): string[] => text.split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 3);
/** Words looked up recently, with their scores, per index (a content version's catalogue). */
const WORD_CACHE_SIZE = 256;

interface Postings {
  readonly apps: number[];
  readonly flags: number[];
}

/**
 * The catalogue search's index, built once per content version: every distinct word of the
 * apps' names, summaries and descriptions with the apps it is in (and where), the near-miss
 * vocabulary, and every sort order precomputed. A search scores each of its words once from the
 * index (a recent word's scores are kept), then walks the chosen order: nothing is sorted per
 * request but a relevance search's matches by score.
 *
 * The orders are made at once (the home page and the lists walk them); the words' index, most of
 * the work (about 80 ms of one core at 600 apps, for the descriptions), when a search first needs
 * it or `prepare()` is called: a start's first pages do not wait for it (issue 55).
 */
export class SearchIndex {
  private readonly ids: readonly string[];
  private readonly idPosition: ReadonlyMap<string, number>;
  /** The apps' texts, until the words' index is made from them. */
  private sources: readonly EntrySource[] | null;
  private words: WordIndex | null = null;
  private readonly cache = new Map<string, Float32Array>();
  /** App positions in each order: relevance's is the tie-break of equal scores (ratings' weight, then name). */
  readonly orders: Readonly<Record<Sort, Int32Array>>;

  constructor(sources: readonly EntrySource[]) {
    this.ids = sources.map((app) => app.id);
    this.idPosition = new Map(this.ids.map((id, i) => [id, i]));
    this.sources = sources;
    this.orders = sortOrders(sources);
  }

  /** Makes the words' index now (a search makes it when it first needs it). */
  prepare(): void {
    this.wordIndex();
  }

  /** Whether the words' index is made. */
  get prepared(): boolean {
    return this.words !== null;
  }

  private wordIndex(): WordIndex {
    if (this.words === null) {
      this.words = wordIndexOf(this.sources ?? []);
      this.sources = null;
    }
    return this.words;
  }

  /**
   * How well each app matches every word (0: it does not), by app position; null for no words
   * (every app matches alike). The id equal to the words adds most.
   */
  scores(words: readonly string[]): Float32Array | null {
    if (words.length === 0) return null;
    const total = new Float32Array(this.ids.length);
    words.forEach((word, n) => {
      const scores = this.wordScores(word);
      for (let i = 0; i < total.length; i++) {
        const score = scores[i] ?? 0;
        // Every word must match: an app a word misses stays at 0.
        total[i] = score === 0 || (n > 0 && total[i] === 0) ? 0 : (total[i] ?? 0) + score;
      }
    });
    for (const whole of new Set([words.join('_'), words.join('')])) {
      const i = this.idPosition.get(whole);
      if (i !== undefined && total[i] !== 0) total[i] = (total[i] ?? 0) + SCORE.wholeId;
    }
    return total;
  }

  /** One word's best score in each app, from the index (kept for the next searches with it). */
  private wordScores(word: string): Float32Array {
    const known = this.cache.get(word);
    if (known !== undefined) {
      this.cache.delete(word);
      this.cache.set(word, known);
      return known;
    }
    const { words, postings, nearMiss, nearMissApps } = this.wordIndex();
    const scores = new Float32Array(this.ids.length);
    this.ids.forEach((id, i) => {
      if (id.includes(word)) scores[i] = SCORE.id;
    });
    words.forEach((candidate, w) => {
      if (!candidate.includes(word)) return;
      const start = candidate.startsWith(word);
      const { apps, flags } = postings[w] as { apps: Int32Array; flags: Uint8Array };
      for (let k = 0; k < apps.length; k++) {
        const flag = flags[k] ?? 0;
        const score =
          start && flag & NAME_START
            ? SCORE.nameStart
            : start && flag & NAME
              ? SCORE.nameWordStart
              : flag & NAME
                ? SCORE.name
                : flag & SUMMARY
                  ? SCORE.summary
                  : SCORE.description;
        const app = apps[k] ?? 0;
        if (score > (scores[app] ?? 0)) scores[app] = score;
      }
    });
    const limit = editsAllowed(word);
    if (limit > 0 && scores.includes(0)) {
      nearMiss.forEach((known, w) => {
        if (
          !withinEdits(word, known, limit) &&
          !(known.length > word.length && withinEdits(word, known.slice(0, word.length), limit))
        )
          return;
        for (const app of nearMissApps[w] ?? []) if (scores[app] === 0) scores[app] = SCORE.nearMiss;
      });
    }
    if (this.cache.size >= WORD_CACHE_SIZE) this.cache.delete(this.cache.keys().next().value ?? '');
    this.cache.set(word, scores);
    return scores;
  }
}

/** The words' part of a search index: each distinct word with where it is, and the near-miss vocabulary. */
interface WordIndex {
  readonly words: readonly string[];
  readonly postings: ReadonlyArray<{ readonly apps: Int32Array; readonly flags: Uint8Array }>;
  readonly nearMiss: readonly string[];
  readonly nearMissApps: readonly Int32Array[];
}

function wordIndexOf(sources: readonly EntrySource[]): WordIndex {
  const words = new Map<string, Postings>();
  const nearMiss = new Map<string, number[]>();
  const add = (word: string, app: number, flag: number): void => {
    let postings = words.get(word);
    if (postings === undefined) words.set(word, (postings = { apps: [], flags: [] }));
    const last = postings.apps.length - 1;
    if (postings.apps[last] === app) postings.flags[last] = (postings.flags[last] ?? 0) | flag;
    else {
      postings.apps.push(app);
      postings.flags.push(flag);
    }
  };
  sources.forEach((app, i) => {
    const vocabulary = new Set(nearMissWords(app.id.replace(/_/g, ' ')));
    for (const texts of Object.values(app.translations)) {
      const name = foldText(texts.name);
      name
        .split(WORD_BREAK)
        .forEach((word, position) => word !== '' && add(word, i, position === 0 ? NAME_START | NAME : NAME));
      const summary = foldText(texts.summary);
      for (const word of summary.split(WORD_BREAK)) if (word !== '') add(word, i, SUMMARY);
      for (const word of foldText(texts.description.slice(0, DESCRIPTION_CHARS)).split(WORD_BREAK))
        if (word !== '') add(word, i, DESCRIPTION);
      for (const word of [...nearMissWords(name), ...nearMissWords(summary)]) vocabulary.add(word);
    }
    for (const word of vocabulary) {
      const apps = nearMiss.get(word);
      if (apps === undefined) nearMiss.set(word, [i]);
      else apps.push(i);
    }
  });
  return {
    words: [...words.keys()],
    postings: [...words.values()].map((p) => ({ apps: Int32Array.from(p.apps), flags: Uint8Array.from(p.flags) })),
    nearMiss: [...nearMiss.keys()],
    nearMissApps: [...nearMiss.values()].map((apps) => Int32Array.from(apps)),
  };
}

/** Each sort's order of app positions, ties broken by English name, then id. */
function sortOrders(sources: readonly EntrySource[]): Record<Sort, Int32Array> {
  const names = sources.map((app) => (app.translations['en']?.name ?? app.id).toLowerCase());
  // One collator for the whole sort: what localeCompare does, without making one per comparison.
  const { compare } = new Intl.Collator();
  const byName = (a: number, b: number): number =>
    compare(names[a] ?? '', names[b] ?? '') || compare(sources[a]?.id ?? '', sources[b]?.id ?? '');
  const nameOrder = sources.map((_, i) => i).sort(byName);
  const nameRank = new Int32Array(sources.length);
  nameOrder.forEach((app, rank) => (nameRank[app] = rank));
  const order = (compare: (a: EntrySource, b: EntrySource) => number): Int32Array =>
    Int32Array.from(nameOrder).sort(
      (a, b) =>
        compare(sources[a] as EntrySource, sources[b] as EntrySource) || (nameRank[a] ?? 0) - (nameRank[b] ?? 0),
    );
  const weight = (app: EntrySource): number => app.ratingOverall * app.ratingNumOverall;
  return {
    relevance: order((a, b) => weight(b) - weight(a)),
    rating: order((a, b) => b.ratingOverall - a.ratingOverall || b.ratingNumOverall - a.ratingNumOverall),
    newest: order((a, b) => b.created.localeCompare(a.created)),
    updated: order((a, b) => b.lastModified.localeCompare(a.lastModified)),
    name: Int32Array.from(nameOrder),
  };
}

/** The entries in one of the index's orders (what the home page's sections are cut from). */
export function inOrder(entries: readonly CatalogEntry[], order: Int32Array): CatalogEntry[] {
  return Array.from(order, (i) => entries[i] as CatalogEntry);
}
