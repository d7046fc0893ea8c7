import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseManifest } from '../../src/domain/releases/manifest-parser.ts';
import { loadXmlParser } from '../../src/domain/releases/xml-document.ts';
import { AppError } from '../../src/errors.ts';
import { REALDATA, REALDATA_SKIP } from '../helpers/certificate-fixtures.ts';
import { CATEGORY_IDS } from '../helpers/release-fixtures.ts';

const parseXmlDocument = await loadXmlParser();

/**
 * Every real info.xml of the corpus, judged against the default categories. The expected outcome
 * of each file is written here (docs/release-reader.md has the same table): accepted with the
 * version and raw platform spec shown, or refused for the reason given.
 */
const REFUSED: Record<string, RegExp> = {
  'calendar-e666b995.xml': /<category> line 27: category 'productivity' does not exist/,
  'deck-fbc12ae8.xml': /<version> line 19: '0\.1\.4\.1' is not a semantic version/,
  'music-8e193f5f.xml': /<licence> line 6: 'AGPLv3' is not a licence this store knows/,
  'news-782896cb.xml': /<nextcloud>: is required inside <dependencies>/,
  'news-c5b2d1c9.xml': /<requiremin> line 25: <requiremin> is no longer supported/,
  'twofactor_totp-10653fc2.xml': /<category> line 10: category 'other' does not exist/,
};

/** The two real ExApps (AppAPI), accepted since issue 17: their container data as read. */
const EXAPPS: Record<string, { registry: string; image: string; imageTag: string; variables: number }> = {
  'context_chat_backend-9c525e57.xml': {
    registry: 'ghcr.io',
    image: 'nextcloud-releases/context_chat_backend',
    imageTag: '5.4.0',
    variables: 7,
  },
  'ui_example-c9f89137.xml': { registry: 'ghcr.io', image: 'nextcloud/ui_example', imageTag: 'latest', variables: 0 },
};

describe('the real info.xml corpus', () => {
  const dir = path.join(REALDATA ?? '', 'infoxml');
  const files =
    REALDATA === null
      ? []
      : fs
          .readdirSync(dir)
          .filter((f) => f.endsWith('.xml'))
          .sort();

  test('the corpus is there', { skip: REALDATA_SKIP }, () => assert.ok(files.length >= 40, `${files.length} files`));

  for (const file of files) {
    test(file, { skip: REALDATA_SKIP }, () => {
      const judge = () =>
        parseManifest(parseXmlDocument(fs.readFileSync(path.join(dir, file)), 'info.xml'), CATEGORY_IDS);
      const expected = REFUSED[file];
      if (expected === undefined) {
        const { app, release } = judge();
        assert.ok(file.startsWith(`${app.id}-`), `${file}: id ${app.id}`);
        assert.match(
          release.rawPlatformVersionSpec,
          /^>=\d+(\.\d+){0,2} <=\d+(\.\d+){0,2}$/,
          'a raw spec Nextcloud servers parse',
        );
        assert.ok(app.translations.en !== undefined && app.authors.length > 0 && release.licenses.length > 0);
        const exApp = EXAPPS[file];
        assert.deepEqual(
          release.externalApp === null
            ? null
            : { ...release.externalApp.dockerInstall, variables: release.externalApp.environmentVariables.length },
          exApp ?? null,
        );
      } else {
        assert.throws(judge, (error: unknown) => error instanceof AppError && expected.test(error.detail), file);
      }
    });
  }
});
