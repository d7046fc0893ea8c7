import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAppError } from '../../errors.ts';
import { EXPORT_FORMAT, parseExportManifest } from './export-format.ts';
import { DOCUMENTS } from './mirror-ports.ts';

const SHA = 'ab'.repeat(32);
const manifest = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    format: EXPORT_FORMAT,
    id: '0123456789abcdef',
    createdAt: '2026-11-24T12:00:00.000Z',
    upstream: 'https://apps.nextcloud.com/api/v1',
    base: null,
    documents: DOCUMENTS.map((name) => ({ name, etag: '"e"', sha256: SHA, size: 2 })),
    archives: [{ sha256: SHA, size: 10, included: true, downloads: ['https://example.org/a.tar.gz'] }],
    ...extra,
  });
const refused = (text: string, pattern: RegExp): void =>
  assert.throws(
    () => parseExportManifest(text, 'x.tar'),
    (error: unknown) => isAppError(error) && error.code === 'invalid_mirror_file' && pattern.test(error.detail),
  );

describe('export manifest', () => {
  test('a manifest as export writes it is read back', () => {
    const read = parseExportManifest(manifest(), 'x.tar');
    assert.equal(read.documents.length, 5);
    assert.deepEqual(read.archives[0]?.downloads, ['https://example.org/a.tar.gz']);
  });

  test('what an export never writes is refused, naming the field', () => {
    refused('not json', /its manifest is not JSON/);
    refused(manifest({ format: 'tar' }), /it is not an export of this store/);
    refused(
      manifest({ upstream: 'https://evil.example\u001b[31m\r\nINJECTED 99 releases taken' }),
      /its manifest's upstream is not what/,
    );
    refused(
      manifest({ documents: [] }),
      /documents \(categories\.json, platforms\.json, apps\.json, appapi_apps\.json, discover\.json missing\)/,
    );
    refused(manifest({ archives: [{ sha256: SHA, size: 1.5, included: true, downloads: [] }] }), /archives\[0\]\.size/);
    refused(
      manifest({ archives: [{ sha256: 'AB', size: 1, included: true, downloads: [] }] }),
      /archives\[0\]\.sha256/,
    );
  });
});
