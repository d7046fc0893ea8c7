import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../../src/errors.ts';
import { CATEGORY_IDS, archive } from '../../../helpers/release-fixtures.ts';
import { readRelease } from '../../../../src/domain/releases/read-release.ts';

const read = (name: string, nightly = false) => readRelease(archive(name), { nightly, validCategories: CATEGORY_IDS });

describe('readRelease', () => {
  test('valid archive: app and release as the listings show them, changelogs per language', async () => {
    const { app, release } = await read('valid.tar.gz');
    assert.equal(app.id, 'news');
    assert.equal(release.version, '8.8.2');
    assert.equal(release.isNightly, false);
    assert.deepEqual(release.translations, {
      de: { changelog: '- Parser repariert' },
      en: { changelog: '### Fixed\n- the feed parser' },
    });
  });

  test('nightly: the Unreleased section', async () => {
    const { release } = await read('valid.tar.gz', true);
    assert.equal(release.isNightly, true);
    assert.deepEqual(release.translations, { en: { changelog: '- next things' } });
  });

  test('no changelog: an empty English one', async () => {
    assert.deepEqual((await read('minimal.tar.gz')).release.translations, { en: { changelog: '' } });
  });

  test('the folder must be the info.xml id', async () => {
    await assert.rejects(
      read('folder-id-mismatch.tar.gz'),
      (e: unknown) =>
        e instanceof AppError &&
        e.code === 'invalid_archive' &&
        e.detail === "the archive's folder is 'notes' but info.xml's <id> is 'news'; they must be the same",
    );
  });

  test('a changelog that is not UTF-8', async () => {
    await assert.rejects(read('changelog-not-utf8.tar.gz'), /news\/CHANGELOG\(\.en\)\.md is not valid UTF-8/);
  });

  test('billion laughs inside an archive is refused before any expansion', async () => {
    await assert.rejects(
      read('billion-laughs.tar.gz'),
      (e: unknown) => e instanceof AppError && e.code === 'invalid_info_xml' && /DOCTYPE/.test(e.detail),
    );
  });

  test('categories must exist in the store', async () => {
    await assert.rejects(
      readRelease(archive('minimal.tar.gz'), { nightly: false, validCategories: new Set(['tools']) }),
      /category 'multimedia' does not exist; valid ones: tools/,
    );
  });
});
