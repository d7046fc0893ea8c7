import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAppError } from '../../../../src/errors.ts';
import { REALDATA_SKIP } from '../../../helpers/certificate-fixtures.ts';
import { FULL_DOCUMENT } from '../../../helpers/discover-data.ts';
import { discoverSchemaValidator } from '../../../helpers/discover-schema.ts';
import { currentEntries, parseDiscoverFile } from '../../../../src/domain/discover/discover-document.ts';

const context = { appExists: (id: string) => ['news', 'mail', 'notes'].includes(id) };

function problemsOf(data: unknown): Record<string, string[]> {
  try {
    parseDiscoverFile(data, context);
  } catch (error) {
    assert.ok(isAppError(error) && error.code === 'invalid_import', String(error));
    return error.errors ?? {};
  }
  assert.fail('accepted');
}

describe('discover files', () => {
  test('a document with every shape is accepted as it is', () => {
    assert.deepEqual(parseDiscoverFile(FULL_DOCUMENT, context), FULL_DOCUMENT);
    assert.deepEqual(parseDiscoverFile([], context), []);
  });

  test("the full document validates against the original store's schema", { skip: REALDATA_SKIP }, () => {
    const validate = discoverSchemaValidator();
    assert.ok(validate !== null);
    assert.deepEqual(validate(FULL_DOCUMENT), []);
    assert.notDeepEqual(validate([{ type: 'post', headline: { de: 'no en' } }]), [], 'the oracle does refuse');
  });

  test('each class of mistake is named by entry and field, and the file refused whole', () => {
    assert.deepEqual(problemsOf({ entries: [] }), {
      '(file)': ['must be a JSON array of entries (post, showcase, carousel)'],
    });
    const problems = problemsOf([
      { type: 'post' },
      { type: 'article', id: 'x' },
      { type: 'post', id: 'dup' },
      { type: 'post', id: 'dup', headline: { de: 'Hallo' }, text: { EN: 'x' } },
      {
        type: 'post',
        id: 'http',
        link: 'http://example.org',
        media: { content: { src: 'ftp://example.org/a.png' }, alignment: 'left' },
      },
      { type: 'post', id: 'list', media: [{ content: { src: 'https://example.org/a.png', alt: 'a' } }] },
      { type: 'showcase', id: 'few', content: [{ type: 'app', appId: 'news' }] },
      {
        type: 'showcase',
        id: 'unknown-app',
        content: [
          { type: 'app', appId: 'ghost' },
          { type: 'carousel', content: [] },
        ],
      },
      { type: 'post', id: 'dates', date: '2026-11-01', expiryDate: 'tomorrow', order: 1.5, link: 'app://ghost' },
      { type: 'post', id: 'typo', expirydate: '2026-11-01T00:00:00Z' },
    ]);
    assert.deepEqual(problems, {
      '[0].id': ['is required: a unique id for the entry (a UUID is recommended)'],
      '[1].type': ['must be one of post, showcase, carousel'],
      '[3].id': ["duplicate of entry [2] ('dup')"],
      '[3].headline.en': ['is required: English is what clients fall back to'],
      '[3].text.EN': ['is not a language tag (two or three lower-case letters, then _region: en, de, pt_br)'],
      '[3].text.en': ['is required: English is what clients fall back to'],
      '[4].link': ['must be an https:// address, not http'],
      '[4].media.alignment': ['must be start, end or center'],
      '[4].media.content.src': ['must be an https:// address, not ftp'],
      '[4].media.content.alt': ['is required: a text that describes the media for those who cannot see it'],
      '[5].media[0].language': ['is required in a list of media: the language tag each one is for (en, de, …)'],
      '[6].content': ['must be a list of at least 2 items (app or post)'],
      '[7].content[0].appId': ["there is no app 'ghost' in this store"],
      '[7].content[1].type': ['must be one of app, post'],
      '[8].order': ['must be a whole number'],
      '[8].link': ["there is no app 'ghost' in this store (app://APP_ID must name one)"],
      '[8].date': ['must be a date and time with its offset (RFC 3339), such as 2026-12-01T00:00:00Z'],
      '[8].expiryDate': ['must be a date and time with its offset (RFC 3339), such as 2026-12-01T00:00:00Z'],
      '[9].expirydate': ['unknown field; expected only type, id, order, headline, text, link, date, expiryDate, media'],
    });
  });

  test('the refusal says what is wrong first, and how much more', () => {
    assert.throws(
      () => parseDiscoverFile([{ type: 'post' }, { type: 'post' }], context),
      /^AppError: the discover file was not imported: \[0\]\.id: is required.* \(and 1 more\)$/,
    );
  });

  test('an entry is served through the day its expiryDate falls on, and left out from the next', () => {
    const entries = parseDiscoverFile(
      [
        { type: 'post', id: 'lasting' },
        { type: 'post', id: 'ends-25th-noon', expiryDate: '2026-11-25T12:00:00Z' },
        { type: 'post', id: 'ended', expiryDate: '2026-11-20T00:00:00Z' },
      ],
      context,
    );
    const ids = (day: string) => currentEntries(entries, day).map((entry) => entry.id);
    assert.deepEqual(ids('20261123'), ['lasting', 'ends-25th-noon']);
    assert.deepEqual(ids('20261125'), ['lasting', 'ends-25th-noon'], 'all of its last day');
    assert.deepEqual(ids('20261126'), ['lasting']);
  });
});
