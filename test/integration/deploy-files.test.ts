import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { loadConfig, unknownVariables } from '../../src/config/config.ts';
import { nginxMainConfig, renderNginxSite } from '../helpers/nginx.ts';
import { ROOT } from '../helpers/run-cli.ts';

const DEPLOY = path.join(ROOT, 'deploy');
const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const skipWithout = (tool: string, install: string): string | false =>
  has(tool) ? false : `skipped: ${tool} is not installed (${install}; .ci/run installs it)`;
const run = (command: string, args: readonly string[]) =>
  spawnSync(command, args, { encoding: 'utf8', timeout: 30_000 });

/**
 * What a new user copies from deploy/ must work with the versions Debian ships: each file is
 * checked by its own tool (nginx -t with nginx 1.22, caddy validate with Caddy 2.6,
 * systemd-analyze verify), with the certificate paths pointed at the tests' own.
 */
describe('the files in deploy/ pass their own tools', () => {
  test('every file in deploy/ is checked here', () => {
    assert.deepEqual(fs.readdirSync(DEPLOY).sort(), [
      'Caddyfile',
      'appstore.env.example',
      'appstore.service',
      'nginx.conf',
    ]);
  });

  test('nginx.conf: nginx -t', { skip: skipWithout('nginx', 'apt-get install nginx-light') }, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-nginx-'));
    try {
      const config = path.join(dir, 'nginx.conf');
      fs.writeFileSync(
        config,
        nginxMainConfig(dir, renderNginxSite({ httpsPort: 8443, httpPort: 8080, upstreamPort: 8000, dir })),
      );
      const checked = run('nginx', ['-t', '-p', dir, '-c', config]);
      assert.equal(checked.status, 0, `${run('nginx', ['-v']).stderr}${checked.stderr}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('Caddyfile: caddy validate', { skip: skipWithout('caddy', 'apt-get install caddy') }, () => {
    const checked = run('caddy', ['validate', '--config', path.join(DEPLOY, 'Caddyfile'), '--adapter', 'caddyfile']);
    assert.equal(checked.status, 0, checked.stderr);
    assert.match(checked.stdout + checked.stderr, /Valid configuration/);
  });

  test(
    'appstore.service: systemd-analyze verify',
    { skip: skipWithout('systemd-analyze', 'apt-get install systemd') },
    () => {
      const checked = run('systemd-analyze', ['verify', path.join(DEPLOY, 'appstore.service')]);
      // Only the unit's own problems count: the machine has no node at /usr/bin/node, no user appstore…
      const problems = `${checked.stdout}${checked.stderr}`
        .split('\n')
        .filter(
          (line) =>
            line.includes('appstore.service') &&
            !/Command .* is not executable|No such file or directory|user.*not found/i.test(line),
        );
      assert.deepEqual(problems, []);
    },
  );

  test(
    'appstore.service: systemd-analyze security rates it 2.0 or lower',
    { skip: skipWithout('systemd-analyze', 'apt-get install systemd') },
    () => {
      const checked = run('systemd-analyze', [
        'security',
        '--offline=true',
        '--no-pager',
        path.join(DEPLOY, 'appstore.service'),
      ]);
      const score = /Overall exposure level for appstore\.service: ([0-9.]+)/.exec(
        `${checked.stdout}${checked.stderr}`,
      )?.[1];
      assert.ok(score !== undefined, `no score in: ${checked.stdout}${checked.stderr}`);
      assert.ok(
        Number(score) <= 2.0,
        `exposure ${score}, above 2.0:\n${checked.stdout
          .split('\n')
          .filter((line) => line.includes('✗'))
          .join('\n')}`,
      );
    },
  );

  test('appstore.env.example: every variable is one the store knows, and the settings load', () => {
    const env: Record<string, string> = {};
    for (const line of fs.readFileSync(path.join(DEPLOY, 'appstore.env.example'), 'utf8').split('\n')) {
      if (line.trim() === '' || line.startsWith('#')) continue;
      const at = line.indexOf('=');
      assert.ok(at > 0, `not VAR=value: ${line}`);
      env[line.slice(0, at)] = line.slice(at + 1);
    }
    assert.deepEqual(unknownVariables(env), []);
    // The key file is the one path that must exist: here a key of the test's own.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appstore-env-'));
    try {
      fs.writeFileSync(path.join(dir, 'secret.key'), `${'ab'.repeat(32)}\n`, { mode: 0o600 });
      assert.doesNotThrow(() => loadConfig({ ...env, APPSTORE_SECRET_KEY_FILE: path.join(dir, 'secret.key') }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

test("the production command's settings are the same in npm start, the README, docs/operations.md, the systemd unit and the bench", () => {
  const read = (file: string): string => fs.readFileSync(path.join(ROOT, file), 'utf8');
  const nodeFlags = (line: string | undefined, where: string): string => {
    const flags = /node ((?:--[a-z0-9-]+(?:=\S+)? )+)\S*bin\/appstore\.js serve/.exec(line ?? '')?.[1];
    assert.ok(flags !== undefined, `${where}: no node command running bin/appstore.js serve`);
    return flags.trim();
  };
  const pkg = JSON.parse(read('package.json')) as { scripts: { start: string } };
  const expected = nodeFlags(pkg.scripts.start, 'package.json');
  assert.match(expected, /--max-semi-space-size=8 --no-memory-reducer --max-inlined-bytecode-size-cumulative=\d+/);
  assert.equal(
    nodeFlags(/<!-- production-command -->\n```sh\n(.+)\n```/.exec(read('README.md'))?.[1], 'README.md'),
    expected,
  );
  assert.equal(
    nodeFlags(/^MALLOC_ARENA_MAX.*$/m.exec(read('docs/operations.md'))?.[0], 'docs/operations.md'),
    expected,
  );
  assert.equal(
    nodeFlags(/^ExecStart=.*$/m.exec(read('deploy/appstore.service'))?.[0], 'deploy/appstore.service'),
    expected,
  );
  const bench = /const PRODUCTION_FLAGS = \[([^\]]*)\];/.exec(read('bench/tools.ts'))?.[1] ?? '';
  const flags = bench.split(',').map((flag) => flag.trim().replace(/^'|'$/g, ''));
  assert.equal(flags.filter((flag) => flag !== '').join(' '), expected, 'bench/tools.ts');
});
