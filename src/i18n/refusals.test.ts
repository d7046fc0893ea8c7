import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse, TYPE } from '@formatjs/icu-messageformat-parser';
import type { MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { saidSources } from '../../scripts/said-sources.mjs';
import { appNotFound } from '../domain/apps/app-registry.ts';
import { webAddressProblem } from '../domain/encodings.ts';
import { REFUSAL_CATALOGUES, translateSaid } from './refusals.ts';
import { isSaid, said } from './said.ts';
import type { SiteLanguage } from './site-languages.ts';

const SOURCES = saidSources();

/** The placeholders a message uses, and its plurals' branches. */
function shapeOf(message: string): { args: string[]; plurals: string[][] } {
  const args = new Set<string>();
  const plurals: string[][] = [];
  const walk = (elements: readonly MessageFormatElement[]): void => {
    for (const element of elements) {
      if (element.type === TYPE.argument || element.type === TYPE.number) args.add(element.value);
      if (element.type === TYPE.select || element.type === TYPE.plural) {
        args.add(element.value);
        if (element.type === TYPE.plural) plurals.push(Object.keys(element.options));
        for (const option of Object.values(element.options)) walk(option.value);
      }
    }
  };
  walk(parse(message, { ignoreTag: true }));
  return { args: [...args].sort(), plurals };
}

describe('the refusal catalogues', () => {
  test('the sources are found: hundreds of them, as the tag writes them at run time', () => {
    assert.ok(SOURCES.size > 400, `only ${SOURCES.size} said sentences found`);
    const notFound = appNotFound('notes', said`it was just deleted`).said;
    assert.ok(notFound !== undefined && SOURCES.has(notFound.source), notFound?.source);
    const problem = webAddressProblem('http://example.org/');
    assert.ok(problem !== null && SOURCES.has(problem.source), problem?.source);
  });

  for (const [language, catalogue] of Object.entries(REFUSAL_CATALOGUES)) {
    test(`${language}: every sentence, none more, the same placeholders, plural branches of the language`, () => {
      const categories: readonly string[] = new Intl.PluralRules(language.replace('_', '-')).resolvedOptions()
        .pluralCategories;
      const missing = [...SOURCES.keys()].filter((source) => catalogue[source] === undefined);
      assert.deepEqual(missing, [], `${language} lacks these (node scripts/said-sources.mjs --missing ${language})`);
      const stale = Object.keys(catalogue).filter((source) => !SOURCES.has(source));
      assert.deepEqual(stale, [], `${language} has sentences the code no longer says`);
      for (const [source, places] of SOURCES) {
        const translation = catalogue[source] ?? '';
        assert.notEqual(translation.trim(), '', `${language}: empty for ${source}`);
        const want = places[0]?.expressions.map((_, index) => String(index)).sort() ?? [];
        const shape = shapeOf(translation);
        assert.deepEqual(shape.args, want, `${language}: the placeholders of "${source}"`);
        for (const branches of shape.plurals) {
          assert.ok(branches.includes('other'), `${language}: a plural without "other" in "${source}"`);
          for (const branch of branches)
            assert.ok(branch.startsWith('=') || categories.includes(branch), `${language}: "${branch}" in "${source}"`);
        }
      }
    });
  }
});

describe('said sentences', () => {
  test('the English is the text; values, numbers and said values fill the source', () => {
    const reason = said`it was just deleted`;
    const sentence = said`There is no app '${'notes'}' in this store: ${reason}.`;
    assert.equal(sentence.text, "There is no app 'notes' in this store: it was just deleted.");
    assert.equal(sentence.source, "There is no app '{0}' in this store: {1}.");
    assert.deepEqual(sentence.values, ['notes', reason]);
    assert.equal(said`at most ${20} per day`.text, 'at most 20 per day');
    assert.ok(isSaid(JSON.parse(JSON.stringify(sentence))), 'a said sentence kept as JSON is still one');
    assert.ok(!isSaid('text') && !isSaid({ text: 'x' }));
  });

  test('a translation fills its placeholders and translates said values; a missing one is undefined', () => {
    const sentence = appNotFound('notes', said`it was just deleted`).said;
    assert.ok(sentence !== undefined);
    for (const language of Object.keys(REFUSAL_CATALOGUES) as SiteLanguage[]) {
      const translated = translateSaid(sentence, language);
      assert.ok(translated !== undefined && translated.includes('notes'), `${language}: ${translated}`);
      assert.ok(!translated.includes('just deleted'), `${language}: the reason stayed English: ${translated}`);
    }
    assert.equal(translateSaid(sentence, 'en'), sentence.text);
    assert.equal(translateSaid(said`A sentence no catalogue has ${1}.`, 'de'), undefined);
    assert.equal(
      translateSaid(said`There is no app '${'x'}' in this store: ${said`no catalogue has this`}.`, 'de'),
      undefined,
    );
  });
});
