import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EntrySource } from './catalog-entry.ts';
import { SearchIndex, foldText, withinEdits } from './search-index.ts';

const source = (
  id: string,
  texts: Record<string, { name: string; summary: string; description: string }>,
  extra: Partial<EntrySource> = {},
): EntrySource => ({
  id,
  translations: texts,
  categories: [],
  isFeatured: false,
  isDeprecated: false,
  ratingOverall: 0.5,
  ratingNumOverall: 0,
  created: '2026-01-01',
  lastModified: '2026-01-01',
  shot: null,
  platformVersionSpecs: [],
  ...extra,
});
const en = (name: string, summary = '', description = '') => ({ en: { name, summary, description } });

/**
 * The ranking as it was computed per app and request before the index (the rules in
 * docs/website.md, written out plainly): what the index must reproduce for any catalogue.
 */
function plainScore(app: EntrySource, words: readonly string[]): number {
  if (words.length === 0) return 1;
  const texts = Object.values(app.translations);
  const names = texts.map((t) => foldText(t.name));
  const summaries = texts.map((t) => foldText(t.summary));
  const descriptions = texts.map((t) => foldText(t.description.slice(0, 20_000)));
  const split = (text: string) => text.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3);
  const vocabulary = [...split(app.id.replace(/_/g, ' ')), ...names.flatMap(split), ...summaries.flatMap(split)];
  let score = words.join('_') === app.id || words.join('') === app.id ? 100 : 0;
  for (const word of words) {
    let best = 0;
    if (app.id.includes(word)) best = 8;
    for (const name of names) {
      if (name.startsWith(word)) best = Math.max(best, 10);
      else if (name.split(/[^\p{L}\p{N}_]+/u).some((part) => part.startsWith(word))) best = Math.max(best, 7);
      else if (name.includes(word)) best = Math.max(best, 5);
    }
    if (best === 0 && summaries.some((s) => s.includes(word))) best = 2;
    if (best === 0 && descriptions.some((d) => d.includes(word))) best = 1;
    const limit = word.length < 4 ? 0 : word.length < 8 ? 1 : 2;
    if (
      best === 0 &&
      limit > 0 &&
      vocabulary.some(
        (known) =>
          withinEdits(word, known, limit) ||
          (known.length > word.length && withinEdits(word, known.slice(0, word.length), limit)),
      )
    )
      best = 0.5;
    if (best === 0) return 0;
    score += best;
  }
  return score;
}

describe('SearchIndex', () => {
  test('each place a word is found scores as the ranking says', () => {
    const index = new SearchIndex([
      source('news', en('News', 'An RSS reader', 'Reads feeds')),
      source('mail', en('Mail client', 'Read your news letters')),
      source('notes', en('My notebook', 'Plain text', 'Markdown notes with newsy bits')),
      source('files_antivirus', {
        en: { name: 'Antivirus for files', summary: 'Scans', description: '' },
        de: { name: 'Virenscanner', summary: 'Prüft Dateien', description: '' },
      }),
    ]);
    assert.deepEqual(
      [...(index.scores(['news']) ?? [])],
      [100 + 10, 2, 1, 0],
      'the id itself (+100) and the best place of the word (the name start, over the id); a summary; a description',
    );
    assert.deepEqual([...(index.scores(['client']) ?? [])], [0, 7, 0, 0], 'a word of the name');
    assert.deepEqual([...(index.scores(['book']) ?? [])], [0, 0, 5, 0], 'inside a name');
    assert.deepEqual(
      [...(index.scores(['prufte']) ?? [])],
      [0, 0, 0, 0.5],
      'a near miss of a German summary word, accents folded',
    );
    assert.deepEqual(
      [...(index.scores(['files', 'antivirus']) ?? [])],
      [0, 0, 0, 100 + 10 + 8],
      'both words (antivirus starts a name; files is in the id), and the whole id',
    );
    assert.equal(index.scores([]), null, 'no words: every app alike');
  });

  test("the words' index is made when a search first needs it, or when prepared; the orders at once", () => {
    const apps = () => [source('news', en('News', 'An RSS reader')), source('mail', en('Mail client', 'Read news'))];
    const searched = new SearchIndex(apps());
    assert.equal(searched.prepared, false, 'not made with the index');
    assert.deepEqual([...searched.orders.name], [1, 0], 'the orders are');
    const scores = [...(searched.scores(['news']) ?? [])];
    assert.equal(searched.prepared, true, 'made by the first search');
    const prepared = new SearchIndex(apps());
    prepared.prepare();
    assert.equal(prepared.prepared, true);
    prepared.prepare();
    assert.deepEqual([...(prepared.scores(['news']) ?? [])], scores, 'the same scores either way');
  });

  test('a word looked up again gives the same scores, kept or, after 400 other words, computed again', () => {
    const apps = [source('a', en('Alpha')), source('b', en('Beta'))];
    const index = new SearchIndex(apps);
    const first = [...(index.scores(['alp']) ?? [])];
    assert.deepEqual([...(index.scores(['alp']) ?? [])], first);
    for (let i = 0; i < 400; i++) index.scores([`w${i}`]);
    assert.deepEqual([...(index.scores(['alp']) ?? [])], first, 'after the kept words were replaced');
  });

  test('the sort orders: rating, newest, updated, name and the ties of relevance, each broken by English name then id', () => {
    const index = new SearchIndex([
      source('c', en('Charlie'), {
        ratingOverall: 0.9,
        ratingNumOverall: 1,
        created: '2026-03-01',
        lastModified: '2026-03-02',
      }),
      source('a', en('alpha'), {
        ratingOverall: 0.9,
        ratingNumOverall: 5,
        created: '2026-01-01',
        lastModified: '2026-05-01',
      }),
      source('b', en('Bravo'), {
        ratingOverall: 0.5,
        ratingNumOverall: 20,
        created: '2026-03-01',
        lastModified: '2026-01-01',
      }),
    ]);
    const ids = (order: Int32Array) => Array.from(order, (i) => ['c', 'a', 'b'][i]);
    assert.deepEqual(ids(index.orders.rating), ['a', 'c', 'b']);
    assert.deepEqual(ids(index.orders.newest), ['b', 'c', 'a'], 'same day: by name');
    assert.deepEqual(ids(index.orders.updated), ['a', 'c', 'b']);
    assert.deepEqual(ids(index.orders.name), ['a', 'b', 'c'], 'case does not matter');
    assert.deepEqual(ids(index.orders.relevance), ['b', 'a', 'c'], 'ratings weight: 0.5 × 20, 0.9 × 5, 0.9 × 1');
  });

  test('the same scores as the plain ranking, for random catalogues and queries', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const vocabulary = [
      'news',
      'newsletter',
      'mail',
      'Büro',
      'calendar',
      'kalender',
      'notes',
      'note_book',
      'files',
      'sync',
      'RSS',
      'reader',
      'café',
      'Straße',
      'deck',
      'talk',
      'photos',
      'fotos',
      'x',
      'ab',
    ];
    const text = (words: number) =>
      Array.from({ length: words }, () => pick(vocabulary)).join(pick([' ', ', ', '-', ' (', '/']));
    for (let round = 0; round < 30; round++) {
      const apps = Array.from({ length: 12 }, (_, i) => {
        const languages = ['en', 'de', 'fr'].slice(0, 1 + Math.floor(random() * 3));
        return source(
          `${pick(['news', 'mail', 'files', 'deck'])}_${i}`,
          Object.fromEntries(
            languages.map((l) => [
              l,
              { name: text(1 + Math.floor(random() * 3)), summary: text(3), description: text(8) },
            ]),
          ),
        );
      });
      const index = new SearchIndex(apps);
      for (let q = 0; q < 20; q++) {
        const words = Array.from({ length: 1 + Math.floor(random() * 2) }, () =>
          foldText(
            pick([
              ...vocabulary,
              'newz',
              'calender',
              'phot',
              'ews',
              `${pick(['news', 'mail'])}_${Math.floor(random() * 12)}`,
            ]),
          ),
        ).filter((w) => w !== '');
        const scores = index.scores(words);
        apps.forEach((app, i) => assert.equal(scores?.[i], plainScore(app, words), `${app.id} for ${words.join(' ')}`));
      }
    }
  });
});
