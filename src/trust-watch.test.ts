import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from './config/config.ts';
import type { TrustSource } from './domain/certificates/trust-source.ts';
import { watchTrustFiles } from './trust-watch.ts';

test('SIGHUP reads the trust again while watched, and not once the watch stopped', () => {
  let reloads = 0;
  const source = { reload: async () => void (reloads += 1) } as unknown as TrustSource;
  const logged: string[] = [];
  const stop = watchTrustFiles(loadConfig({}), source, (message) => logged.push(message));
  process.emit('SIGHUP', 'SIGHUP');
  assert.equal(reloads, 1);
  assert.match(logged[0] ?? '', /SIGHUP: reading the authorities and revocation lists again/);
  stop();
  assert.equal(process.listenerCount('SIGHUP'), 0);
});
