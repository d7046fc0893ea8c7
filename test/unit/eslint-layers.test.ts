import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { LAYERS, layersPlugin } from '../../eslint-layers.js';
import { ROOT } from '../helpers/run-cli.ts';

/** What the layer rule says about `code` in the file `file` (relative to the project). */
function lint(file: string, code: string): string[] {
  const linter = new Linter({ configType: 'flat' });
  const config = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { layers: layersPlugin },
      rules: { 'layers/allowed-imports': 'error' as const },
    },
  ];
  return linter.verify(code, config, { filename: path.join(ROOT, file) }).map((message) => message.message);
}

describe('the layers of docs/architecture.md, kept by the linter (eslint-layers.js)', () => {
  test('a use case that imports storage, HTTP or the container fails the lint, naming the rule', () => {
    const [storage] = lint('src/domain/releases/publish.ts', "import { db } from '../../storage/database.ts';");
    assert.match(
      storage ?? '',
      /^src\/domain may not import src\/storage \(domain code is free of HTTP, SQL and adapters; docs\/architecture.md/,
    );
    assert.equal(
      lint('src/domain/x.ts', "export { route } from '../http/routes/apps/apps.routes.ts';").length,
      1,
      're-exports count',
    );
    assert.equal(
      lint('src/domain/x.ts', "const c = await import('../container.ts');").length,
      1,
      'dynamic imports count',
    );
    assert.match(
      lint('src/domain/x.ts', "import { sql } from 'kysely';")[0] ?? '',
      /may not import the package 'kysely'/,
    );
  });

  test('what each row allows passes: its own folder, the rows it names, packages it does not forbid', () => {
    assert.deepEqual(
      lint(
        'src/domain/releases/publish.ts',
        "import { AppError } from '../../errors.ts';\nimport { x } from '../apps/register-app.ts';\nimport tar from 'tar-stream';",
      ),
      [],
    );
    assert.deepEqual(
      lint(
        'src/http/routes/apps/apps.routes.ts',
        "import type { Container } from '../../../container.ts';\nimport { page } from '../../../web/pages/page.ts';",
      ),
      [],
    );
    assert.deepEqual(
      lint(
        'src/storage/repositories/app.repository.ts',
        "import { sql } from 'kysely';\nimport type { App } from '../../domain/apps/app.ts';",
      ),
      [],
    );
  });

  test('storage may not read the configuration; a page may not reach the database; an adapter reads only its own settings', () => {
    assert.equal(lint('src/storage/database.ts', "import { loadConfig } from '../config/config.ts';").length, 1);
    assert.deepEqual(
      lint(
        'src/archives/s3-archive-storage.ts',
        "import type { ArchiveStorageSettings } from '../config/archives.ts';",
      ),
      [],
    );
    assert.match(
      lint('src/archives/s3-archive-storage.ts', "import { loadConfig } from '../config/config.ts';")[0] ?? '',
      /^src\/archives may not import src\/config\/config\.ts /,
    );
    assert.equal(lint('src/web/pages/app-page.ts', "import { sql } from 'kysely';").length, 1);
    assert.equal(lint('src/web/pages/app-page.ts', "import { db } from '../../storage/database.ts';").length, 1);
  });

  test('files outside the table, and tests, are not held to it', () => {
    assert.deepEqual(lint('src/container.ts', "import { db } from './storage/database.ts';"), []);
    assert.deepEqual(
      lint('src/domain/releases/publish.test.ts', "import { db } from '../../storage/database.ts';"),
      [],
    );
    assert.deepEqual(lint('test/integration/x.test.ts', "import { db } from '../../src/storage/database.ts';"), []);
  });

  test('every row names folders and files that exist', () => {
    for (const [layer, row] of Object.entries(LAYERS)) {
      for (const name of [layer, ...row.may])
        assert.ok(fs.existsSync(path.join(ROOT, 'src', name)), `src/${name} (the row of src/${layer})`);
    }
  });
});
