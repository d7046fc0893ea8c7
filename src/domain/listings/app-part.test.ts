import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { AppSchema, ReleaseSchema } from '../../http/routes/listings/listings.schemas.ts';
import { partFormat } from './app-part.ts';

test('the part format is derived from the listing schema: the same schema gives the same format, any change to a field another', () => {
  const format = partFormat(AppSchema, ReleaseSchema);
  assert.match(format, /^[A-Za-z0-9_-]{16}$/);
  assert.equal(partFormat(AppSchema, ReleaseSchema), format, 'deterministic');
  // An optional field (as the ExApp ones are) added to a release: the text a part holds changes.
  const withField = Type.Object({ ...ReleaseSchema.properties, aaNewField: Type.Optional(Type.String()) }, { $id: 'Release' });
  assert.notEqual(partFormat(AppSchema, withField), format);
  // One optional field removed, or one app field made optional.
  const { environmentVariables: _dropped, ...rest } = ReleaseSchema.properties;
  assert.notEqual(partFormat(AppSchema, Type.Object(rest, { $id: 'Release' })), format);
  assert.notEqual(partFormat(Type.Object({ ...AppSchema.properties, website: Type.Optional(Type.String()) }, { $id: 'App' }), ReleaseSchema), format);
});
