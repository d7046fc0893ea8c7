import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { importCategories } from '../../src/domain/catalog/import-catalog.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';

describe(`the content version feed after a restore by hand (${DIALECT})`, () => {
  let server: TestServer;
  before(async () => {
    server = await createTestServer();
  });
  after(() => server.close());

  test('every read that sees the version go back waits for the new epoch: none returns the restored version of the old one', async () => {
    const { versions } = server.container;
    const atBackup = await versions.refresh();
    await importCategories(
      [{ id: 'tools', translations: { en: { name: 'Tools', description: '' } } }],
      TEST_ACTING,
      server.container.catalog,
    );
    assert.equal((await versions.refresh()).version, atBackup.version + 1);
    // What pg_restore or a copied-back file does to the row: the backup's version, in the same epoch.
    await server.container.database.db
      .updateTable('content_version')
      .set({ version: atBackup.version })
      .where('id', '=', 1)
      .execute();
    const seen = await Promise.all([versions.refresh(), versions.refresh(), versions.refresh()]);
    for (const stamp of seen)
      assert.notEqual(
        stamp.instanceId,
        atBackup.instanceId,
        'a new epoch, so no cache entry of the old one can answer',
      );
    assert.equal(new Set(seen.map((stamp) => stamp.instanceId)).size, 1, 'one renewal, seen by all');
  });
});
