import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { archivePath } from '../helpers/release-fixtures.ts';
import { runCommand } from '../helpers/run-cli.ts';
import { DIALECT, createTestDatabase } from '../helpers/test-database.ts';
import type { TestDatabase } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

describe(`appstore release inspect (${DIALECT})`, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.dispose());

  test('prints the app and release as JSON; a store without categories checks against the default list', async () => {
    const result = await runCommand(['release', 'inspect', archivePath('valid.tar.gz')], database.env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /no categories yet/);
    const { app, release } = JSON.parse(result.stdout);
    assert.equal(app.id, 'news');
    assert.deepEqual(app.categories, ['multimedia', 'tools']);
    assert.equal(release.version, '8.8.2');
    assert.equal(release.isNightly, false);
    assert.equal(release.rawPlatformVersionSpec, '>=9 <=10');
    assert.equal(release.translations.en.changelog, '### Fixed\n- the feed parser');
    const nightly = JSON.parse(
      (await runCommand(['release', 'inspect', '--nightly', archivePath('valid.tar.gz')], database.env)).stdout,
    );
    assert.equal(nightly.release.isNightly, true);
    assert.equal(nightly.release.translations.en.changelog, '- next things');
  });

  test("the store's own categories are used once it has some", async () => {
    const server = await createTestServer({ database });
    await importCategories(
      [{ id: 'tools', translations: { en: { name: 'Tools', description: '' } } }],
      TEST_ACTING,
      server.container.catalog,
    );
    await server.app.close();
    const result = await runCommand(['release', 'inspect', archivePath('valid.tar.gz')], database.env);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^appstore: info\.xml: <category> line \d+: category 'multimedia' does not exist; valid ones: tools$/m,
    );
  });

  test('a refusal: exit 1 with the reason', async () => {
    const result = await runCommand(['release', 'inspect', archivePath('bomb-1gib.tar.gz')], database.env);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /inflates to more than 256 MiB/);
    const missing = await runCommand(['release', 'inspect', 'nope.tar.gz'], database.env);
    assert.match(missing.stderr, /nope\.tar\.gz: no such file/);
    assert.equal((await runCommand(['release', 'inspect'], database.env)).code, 2);
  });
});
