import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { AppSchema, ReleaseSchema } from '../../../../src/domain/listings/listing-schemas.ts';
import { listedApp, listedRelease, renderFromScratch } from '../../../helpers/listed-app.ts';
import { toFragment } from '../../../../src/domain/listings/app-listing.ts';
import { makeAppPart, partFormat } from '../../../../src/domain/listings/app-part.ts';
import { compressPart, partText } from '../../../../src/domain/listings/gzip-parts.ts';

test('the part format is derived from the listing schema: the same schema gives the same format, any change to a field another', () => {
  const format = partFormat(AppSchema, ReleaseSchema);
  assert.match(format, /^[A-Za-z0-9_-]{16}$/);
  assert.equal(partFormat(AppSchema, ReleaseSchema), format, 'deterministic');
  // An optional field (as the ExApp ones are) added to a release: the text a part holds changes.
  const withField = Type.Object(
    { ...ReleaseSchema.properties, aaNewField: Type.Optional(Type.String()) },
    { $id: 'Release' },
  );
  assert.notEqual(partFormat(AppSchema, withField), format);
  // One optional field removed, or one app field made optional.
  const { environmentVariables: _dropped, ...rest } = ReleaseSchema.properties;
  assert.notEqual(partFormat(AppSchema, Type.Object(rest, { $id: 'Release' })), format);
  assert.notEqual(
    partFormat(
      Type.Object({ ...AppSchema.properties, website: Type.Optional(Type.String()) }, { $id: 'App' }),
      ReleaseSchema,
    ),
    format,
  );
});

test("a part's text is the app's JSON, written in place, and each release's range is that release's bytes, multi-byte text included", async () => {
  const release = (version: string, changelog: string) => ({
    ...listedRelease(version, '>=30.0.0 <32.0.0'),
    translations: { en: { changelog } },
  });
  const app = listedApp('zürich', {
    translations: { en: { name: 'Zürich ✓', summary: 'emoji 🚀 and é', description: '' } },
    releases: [release('1.0.0', 'first é'), release('2.0.0', '🚀 second'), release('1.5.0', 'plain')],
  });
  const part = await makeAppPart(app, 7, (text) => compressPart(text, 6));
  const text = await partText(part.whole);
  // renderFromScratch lists the app as `[{…}]`: its text is what is between the brackets.
  assert.equal(text.toString('utf8'), renderFromScratch([app], { includeEnterprise: true }).slice(1, -1));
  const fragment = toFragment(app);
  assert.equal(part.headLength, Buffer.byteLength(fragment.head));
  assert.deepEqual(
    part.releases.map((r) => text.subarray(r.start, r.end).toString('utf8')),
    fragment.releases.map((r) => r.json),
  );
  assert.deepEqual(
    part.releases.map((r) => JSON.parse(text.subarray(r.start, r.end).toString('utf8')).version),
    ['2.0.0', '1.5.0', '1.0.0'],
  );
  assert.equal(part.listingVersion, 7);
  assert.equal(part.whole.length, text.length);
});

test('an app without releases is its head and the closing brackets', async () => {
  const part = await makeAppPart(listedApp('empty'), 1, (text) => compressPart(text, 6));
  const text = (await partText(part.whole)).toString('utf8');
  assert.ok(text.endsWith('"releases":[]}'));
  assert.deepEqual(part.releases, []);
});
