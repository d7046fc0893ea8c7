import assert from 'node:assert/strict';
import { test } from 'node:test';
import { problemBox, spoken } from './forms.ts';

test('a refusal on a page speaks to a person: no API prefix, the field marked on the form, code as code', () => {
  assert.equal(
    String(spoken('Invalid request body: download: Enter a valid HTTPS URL.', ['download'])),
    'Enter a valid HTTPS URL.',
  );
  assert.equal(
    String(spoken("Invalid query: 'x' is not a number")),
    '&#39;x&#39; is not a number'.replace(/^&#39;/, '&#39;'),
  );
  assert.equal(
    String(spoken('Run `appstore migrate` first, then <b>`x`</b>.')),
    'Run <code>appstore migrate</code> first, then &lt;b&gt;<code>x</code>&lt;/b&gt;.',
  );
  assert.equal(String(spoken('one ` backtick')), 'One ` backtick');
  const box = String(
    problemBox({
      problem: {
        code: 'invalid_request',
        detail: 'Invalid request body: signature: not base64',
        fields: { signature: ['not base64'] },
      },
    }),
  );
  assert.match(box, /<p>Not base64<\/p>/);
  assert.doesNotMatch(box, /Invalid request body/);
});
