import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { projectFile } from '../../project-files.ts';
import { TrustSource } from './trust-source.ts';
import type { TrustInputs } from './trust-source.ts';

const fixture = (name: string): string => fs.readFileSync(projectFile(path.join('test', 'fixtures', 'certificates', name)), 'utf8');

describe('TrustSource', () => {
  const setup = (first: TrustInputs) => {
    let inputs = first;
    let reads = 0;
    const events: string[] = [];
    const source = new TrustSource(
      async () => {
        reads += 1;
        return inputs;
      },
      () => new Date('2026-11-23T00:00:00Z'),
      { warn: (message) => events.push(`warn: ${message}`), refused: (error) => events.push(`refused: ${String(error)}`), changed: () => events.push('changed') },
    );
    return { source, events, reads: () => reads, set: (next: TrustInputs) => (inputs = next) };
  };

  test('reads its inputs at every use, parses them again only when they changed', async () => {
    const { source, events, reads, set } = setup({ authorityPem: fixture('chain.pem'), crlPem: fixture('empty.crl') });
    const first = await source.current();
    assert.equal(await source.current(), first, 'the same trust while nothing changed');
    assert.equal(reads(), 2);
    assert.equal(first.revocationLists[0]?.revoked.size, 0);
    set({ authorityPem: fixture('chain.pem'), crlPem: fixture('revoking.crl') });
    const next = await source.current();
    assert.notEqual(next, first);
    assert.ok((next.revocationLists[0]?.revoked.size ?? 0) > 0, 'the new CRL applies');
    assert.deepEqual(events, ['changed']);
  });

  test('bad new inputs are refused once and the last good trust stays; before any good one, the refusal is the answer', async () => {
    const { source, events, set } = setup({ authorityPem: 'no certificate here', crlPem: null });
    await assert.rejects(source.current(), /holds no PEM certificate/);
    assert.deepEqual(events, [], 'nothing to keep: the caller gets the error');
    set({ authorityPem: fixture('chain.pem'), crlPem: fixture('revoking.crl') });
    const good = await source.current();
    set({ authorityPem: fixture('chain.pem'), crlPem: '-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n' });
    assert.equal(await source.current(), good);
    assert.equal(await source.current(), good);
    await source.reload();
    assert.equal(events.length, 1, 'reported once for the same bad file');
    assert.match(events[0] ?? '', /^refused: .*CRL #1 of the revocation list file \(APPSTORE_CRL\) cannot be read/);
  });

  test('a CRL past its next update is applied, with a warning', async () => {
    const { source, events } = setup({ authorityPem: fixture('chain.pem'), crlPem: fixture('stale.crl') });
    await source.current();
    assert.match(events.join('\n'), /warn: .*past its next update/);
  });
});
