import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse, TYPE } from '@formatjs/icu-messageformat-parser';
import type { MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { CATALOGUES, Messages } from './messages.ts';
import { SITE_LANGUAGES, siteLanguageOf, textDirection } from './site-languages.ts';

const ENGLISH = CATALOGUES.en;

/** A message's shape: its arguments and tags (what every translation must keep), and its plural branches. */
function shapeOf(message: string, tagged: boolean) {
  const args = new Set<string>();
  const tags = new Set<string>();
  const plurals: Array<readonly string[]> = [];
  const walk = (elements: readonly MessageFormatElement[]): void => {
    for (const element of elements) {
      if (
        element.type === TYPE.argument ||
        element.type === TYPE.number ||
        element.type === TYPE.date ||
        element.type === TYPE.time
      )
        args.add(element.value);
      if (element.type === TYPE.select || element.type === TYPE.plural) {
        args.add(element.value);
        if (element.type === TYPE.plural) plurals.push(Object.keys(element.options));
        for (const option of Object.values(element.options)) walk(option.value);
      }
      if (element.type === TYPE.tag) {
        tags.add(element.value);
        walk(element.children);
      }
    }
  };
  walk(parse(message, { ignoreTag: !tagged }));
  return { args: [...args].sort(), tags: [...tags].sort(), plurals };
}

describe('the message catalogues', () => {
  for (const language of SITE_LANGUAGES) {
    test(`${language}: every message, the same placeholders and tags, plural branches of the language`, () => {
      const catalogue = CATALOGUES[language];
      const categories = new Intl.PluralRules(language.replace('_', '-')).resolvedOptions().pluralCategories;
      assert.deepEqual(Object.keys(catalogue).sort(), Object.keys(ENGLISH).sort(), 'the same message ids');
      for (const [id, english] of Object.entries(ENGLISH)) {
        const translated = catalogue[id] ?? '';
        assert.notEqual(translated.trim(), '', `${language} ${id}: empty`);
        const tagged = /<\w+>/.test(english);
        const want = shapeOf(english, tagged);
        const got = shapeOf(translated, tagged);
        assert.deepEqual(got.args, want.args, `${language} ${id}: placeholders`);
        assert.deepEqual(got.tags, want.tags, `${language} ${id}: tags`);
        for (const branches of got.plurals) {
          assert.ok(branches.includes('other'), `${language} ${id}: a plural without "other"`);
          for (const branch of branches)
            assert.ok(
              branch.startsWith('=') || (categories as readonly string[]).includes(branch),
              `${language} ${id}: "${branch}" is not a plural category of ${language} (${categories.join(', ')})`,
            );
        }
      }
    });
  }

  test('messages format with their values: plurals by the language, numbers as it writes them', () => {
    assert.equal(new Messages('en').format('site.appsInStore', { count: 0 }), 'This store is new.');
    assert.equal(new Messages('en').format('site.appsInStore', { count: 1 }), '1 app in this store');
    assert.equal(new Messages('en').format('site.appsInStore', { count: 1234 }), '1,234 apps in this store');
    assert.match(new Messages('de').format('site.appsInStore', { count: 1234 }), /^1\.234 /);
    assert.match(new Messages('ar').format('site.appsInStore', { count: 2 }), /[\u0600-\u06FF]/);
  });

  test('a message a catalogue lacks falls back to English', () => {
    const partial = new Messages('de', { 'site.search': 'Suchen' });
    assert.equal(partial.format('site.search'), 'Suchen');
    assert.equal(partial.format('site.searchLabel'), 'Search apps');
  });

  test('tagged messages keep the text of their tags for the caller to wrap', () => {
    const parts = new Messages('en').formatTagged<string>('site.secondFactorIsOn', {
      strong: (chunks) => `[${chunks.join('')}]`,
    });
    assert.equal(parts.join(''), 'Second factor: [on].');
  });
});

describe('the site languages', () => {
  test("the visitor's first shipped language, or the one its speakers read", () => {
    assert.equal(siteLanguageOf(['de_AT', 'de', 'en']), 'de');
    assert.equal(siteLanguageOf(['nl', 'fr']), 'fr', 'Dutch is not shipped: the next one');
    assert.equal(siteLanguageOf(['pt']), 'pt_BR');
    assert.equal(siteLanguageOf(['pt_BR', 'pt']), 'pt_BR');
    assert.equal(siteLanguageOf(['zh']), 'zh_CN');
    assert.equal(siteLanguageOf(['zh_TW', 'ja']), 'ja', 'traditional Chinese readers do not get simplified');
    assert.equal(siteLanguageOf([]), 'en');
    assert.equal(siteLanguageOf(['ar_EG', 'ar']), 'ar');
  });

  test('Arabic reads right to left, the others left to right', () => {
    assert.equal(textDirection('ar'), 'rtl');
    for (const language of SITE_LANGUAGES.filter((l) => l !== 'ar')) assert.equal(textDirection(language), 'ltr');
  });
});
