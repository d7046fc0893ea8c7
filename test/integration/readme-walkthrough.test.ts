import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ROOT, childEnvironment } from '../helpers/run-cli.ts';
import { freePort } from '../helpers/serve-process.ts';
import { DIALECT } from '../helpers/test-database.ts';

// The walkthrough runs its own store on SQLite in walkthrough/; the PostgreSQL run skips it.
describe('the README developer walkthrough, run as written', () => {
  const skip = DIALECT === 'postgres' ? 'skipped on PostgreSQL: it runs its own SQLite store' : false;
  test('certificate → register → publish → listed in apps.json → delete', { skip }, async () => {
    const [port, filesPort] = [await freePort(), await freePort()];
    const child = spawn('bash', [path.join(ROOT, 'scripts', 'run-readme-walkthrough.sh')], {
      cwd: ROOT,
      env: { ...childEnvironment({}), PORT: String(port), FILES_PORT: String(filesPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, output);
    for (const line of [
      'register: 201',
      'publish: 201',
      'upload: 200',
      'listed: myapp 1.0.0',
      'delete: 204',
      'walkthrough: ok',
    ])
      assert.ok(output.split('\n').includes(line), `${line}\n${output}`);
  });
});
