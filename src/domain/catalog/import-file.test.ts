import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../errors.ts';
import { parseCategoryFile, parsePlatformFile } from './import-file.ts';

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, 'invalid_import');
    return error;
  }
  assert.fail('expected the file to be refused');
}

describe('parseCategoryFile', () => {
  test('accepts categories shaped like categories.json; description defaults to empty', () => {
    const parsed = parseCategoryFile([
      { id: 'games', translations: { en: { name: 'Games', description: 'Fun' }, de: { name: 'Spiele' } } },
      {
        id: 'tools',
        translations: { en: { name: ' Tools ', description: '' }, pt_BR: { name: 'Ferramentas', description: '' } },
      },
    ]);
    assert.deepEqual(parsed, [
      {
        id: 'games',
        translations: { en: { name: 'Games', description: 'Fun' }, de: { name: 'Spiele', description: '' } },
      },
      {
        id: 'tools',
        translations: { en: { name: 'Tools', description: '' }, pt_BR: { name: 'Ferramentas', description: '' } },
      },
    ]);
  });

  test('an empty array is a valid (empty) import', () => assert.deepEqual(parseCategoryFile([]), []));

  const cases: Array<[string, unknown, string, RegExp]> = [
    ['not an array', { id: 'games' }, '(file)', /JSON array of categories/],
    ['entry not an object', ['games'], '[0]', /must be an object/],
    ['bad id', [{ id: 'My Games', translations: { en: { name: 'G' } } }], '[0].id', /must be a category id/],
    ['missing id', [{ translations: { en: { name: 'G' } } }], '[0].id', /must be a category id/],
    [
      'duplicate id',
      [
        { id: 'a', translations: { en: { name: 'A' } } },
        { id: 'a', translations: { en: { name: 'B' } } },
      ],
      '[1].id',
      /duplicate of entry \[0\]/,
    ],
    ['no English', [{ id: 'a', translations: { de: { name: 'A' } } }], '[0].translations', /needs an English/],
    ['translations not an object', [{ id: 'a', translations: [] }], '[0].translations', /keyed by language code/],
    [
      'bad language code',
      [{ id: 'a', translations: { en: { name: 'A' }, 'not a language': { name: 'x' } } }],
      '[0].translations.not a language',
      /not a language code/,
    ],
    ['empty name', [{ id: 'a', translations: { en: { name: '  ' } } }], '[0].translations.en.name', /non-empty string/],
    [
      'description not text',
      [{ id: 'a', translations: { en: { name: 'A', description: 3 } } }],
      '[0].translations.en.description',
      /must be a string/,
    ],
    ['unknown field', [{ id: 'a', translations: { en: { name: 'A' } }, colour: 'red' }], '[0].colour', /unknown field/],
  ];
  for (const [name, data, field, message] of cases) {
    test(`refuses: ${name}, naming ${field}`, () => {
      const error = refusal(() => parseCategoryFile(data));
      assert.ok(error.errors?.[field], `errors: ${JSON.stringify(error.errors)}`);
      assert.match(error.errors[field]?.[0] ?? '', message);
      assert.ok(error.detail.startsWith('the category file was not imported: '));
      assert.ok(error.detail.includes(field));
    });
  }

  test('every problem of the file is listed', () => {
    const error = refusal(() =>
      parseCategoryFile([{ id: 'ok', translations: { en: { name: 'OK' } } }, { id: 'Bad' }, 7]),
    );
    assert.deepEqual(Object.keys(error.errors ?? {}).sort(), ['[1].id', '[1].translations', '[2]']);
    assert.match(error.detail, /\(and 2 more\)$/);
  });
});

describe('parsePlatformFile', () => {
  test('accepts releases shaped like platforms.json', () => {
    const data = [
      { version: '30.0.1', hasRelease: true, isSupported: true },
      { version: '9.0.0', hasRelease: true, isSupported: false },
    ];
    assert.deepEqual(parsePlatformFile(data), data);
  });

  const cases: Array<[string, unknown, string, RegExp]> = [
    ['not an array', 'x', '(file)', /JSON array of platform releases/],
    ['two-part version', [{ version: '30.0', hasRelease: true, isSupported: true }], '[0].version', /three numbers/],
    ['leading zero', [{ version: '30.01.0', hasRelease: true, isSupported: true }], '[0].version', /three numbers/],
    ['pre-release', [{ version: '30.0.0-beta', hasRelease: true, isSupported: true }], '[0].version', /three numbers/],
    [
      'hasRelease a string',
      [{ version: '30.0.0', hasRelease: 'true', isSupported: true }],
      '[0].hasRelease',
      /true or false/,
    ],
    ['isSupported missing', [{ version: '30.0.0', hasRelease: true }], '[0].isSupported', /true or false/],
    [
      'duplicate',
      [
        { version: '1.0.0', hasRelease: true, isSupported: true },
        { version: '1.0.0', hasRelease: false, isSupported: true },
      ],
      '[1].version',
      /duplicate/,
    ],
    [
      'unknown field',
      [{ version: '1.0.0', hasRelease: true, isSupported: true, isCurrent: true }],
      '[0].isCurrent',
      /unknown field/,
    ],
  ];
  for (const [name, data, field, message] of cases) {
    test(`refuses: ${name}, naming ${field}`, () => {
      const error = refusal(() => parsePlatformFile(data));
      assert.match(error.errors?.[field]?.[0] ?? '', message, JSON.stringify(error.errors));
    });
  }
});
