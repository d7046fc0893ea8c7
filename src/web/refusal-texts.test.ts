import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../errors.ts';
import { REFUSAL_CATALOGUES } from '../i18n/refusals.ts';
import { said } from '../i18n/said.ts';
import { pageTexts } from './page-texts.ts';
import { pageRefusal } from './refusal-texts.ts';

const required = said`This field is required.`;

test('an English page shows the refusal as the API says it', () => {
  const error = new AppError('invalid_request', said`Invalid ${said`request body`}: ${'name'}: ${required}`, {
    name: [required],
  });
  const problem = pageRefusal(error.code, error, pageTexts('en'));
  assert.equal(problem.detail, 'Invalid request body: name: This field is required.');
  assert.deepEqual(problem.fields, { name: ['This field is required.'] });
  assert.equal(problem.summary, undefined);
});

test('another language translates the detail and the fields; a schema refusal says its first field', () => {
  const error = new AppError('invalid_request', said`Invalid ${said`request body`}: ${'name'}: ${required}`, {
    name: [required],
  });
  const german = REFUSAL_CATALOGUES.de['This field is required.'];
  assert.ok(german !== undefined);
  const problem = pageRefusal(error.code, error, pageTexts('de'));
  assert.equal(problem.detail, german);
  assert.deepEqual(problem.fields, { name: [german] });
  assert.equal(problem.summary, undefined, 'no English lead-in when all is translated');
  assert.equal(problem.englishFields, undefined);
});

test('a sentence the catalogues lack stays English, after a translated lead, and its fields are marked', () => {
  const error = new AppError('conflict', 'Something only English says.', {
    other: ['plain English'],
    name: [required],
  });
  const problem = pageRefusal(error.code, error, pageTexts('ar'));
  assert.equal(problem.detail, 'Something only English says.');
  assert.ok(problem.summary !== undefined && problem.summary.text !== '' && problem.summary.detailFollows);
  assert.deepEqual(problem.englishFields, ['other']);
  assert.deepEqual(problem.fields?.['other'], ['plain English']);
  assert.deepEqual(problem.fields?.['name'], [REFUSAL_CATALOGUES.ar['This field is required.']]);
});

test('a refusal kept as JSON (a publish job) translates as when it was thrown', () => {
  const error = new AppError('invalid_info_xml', said`info.xml: ${'<licence>'}: ${said`is required`}`);
  const kept = JSON.parse(JSON.stringify({ detail: error.detail, said: error.said })) as typeof error;
  const problem = pageRefusal('invalid_info_xml', kept, pageTexts('fr'));
  assert.equal(problem.summary, undefined);
  assert.ok(problem.detail.includes('<licence>') && !problem.detail.includes('is required'), problem.detail);
});
