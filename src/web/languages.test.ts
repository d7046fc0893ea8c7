import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { acceptedLanguages } from './languages.ts';

describe('acceptedLanguages', () => {
  test('best first by q, regions also give their language, as the listings name them (de_DE)', () => {
    assert.deepEqual(acceptedLanguages('fr;q=0.5, de-DE, en;q=0.8'), ['de_DE', 'de', 'en', 'fr']);
  });
  test('nothing usable: none', () => {
    assert.deepEqual(acceptedLanguages(undefined), []);
    assert.deepEqual(acceptedLanguages('*, x'.repeat(300)), []);
    assert.deepEqual(acceptedLanguages('en;q=0, <script>'), []);
  });
});
