import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { projectFile } from '../../project-files.ts';
import { TrustSource } from './trust-source.ts';
import type { TrustInputs } from './trust-source.ts';

const fixture = (name: string): string =>
  fs.readFileSync(projectFile(path.join('test', 'fixtures', 'certificates', name)), 'utf8');

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
      {
        warn: (message) => events.push(`warn: ${message}`),
        refused: (error) => events.push(`refused: ${String(error)}`),
        changed: () => events.push('changed'),
      },
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

  test('a bad new CRL file is refused whole, reported and counted; the revocations in force stay', async () => {
    const revoking = fixture('revoking.crl');
    const bad: ReadonlyArray<readonly [string, string, RegExp]> = [
      ['cut short (head -c 300)', revoking.slice(0, 300), /ends inside a CRL \(cut short, or still being written\)/],
      ['empty', '', /holds no PEM CRL/],
      ['not PEM', fixture('news.key').replace(/-----[A-Z ]+-----/g, ''), /holds no PEM CRL/],
      [
        'signed by another authority',
        fixture('other-authority.crl'),
        /\(issuer CN=Some Other Authority\) is not signed by a configured authority/,
      ],
      [
        'a lower CRL number (empty.crl is 4096, revoking.crl 4097)',
        fixture('empty.crl'),
        /has number 4096, lower than the one in force \(4097\)/,
      ],
      [
        'an older thisUpdate',
        fixture('older.crl'),
        /is older \(issued 2023-01-01T00:00:00.000Z\) than the one in force \(issued 2024-01-01T00:00:00.000Z\)/,
      ],
      [
        'without the CRL of an authority it had',
        fixture('root-only.crl'),
        /no longer holds a CRL of CN=Appstore Test Code Signing Intermediate/,
      ],
    ];
    const { source, events, set } = setup({
      authorityPem: fixture('chain.pem'),
      crlPem: `${revoking}${fixture('root-only.crl')}`,
    });
    const good = await source.current();
    for (const [index, [kind, crlPem, reason]] of bad.entries()) {
      set({ authorityPem: fixture('chain.pem'), crlPem });
      assert.equal(await source.current(), good, `${kind}: the last good trust stays in force`);
      assert.equal(source.refusals, index + 1, `${kind}: counted once`);
      assert.match(events.at(-1) ?? '', reason, kind);
    }
    assert.equal(events.length, bad.length);
    set({ authorityPem: fixture('chain.pem'), crlPem: `${fixture('newer.crl')}${fixture('root-only.crl')}` });
    assert.notEqual(await source.current(), good, 'a newer CRL is taken');
    assert.equal(events.at(-1), 'changed');
  });

  test('a CRL past its next update is applied, with a warning', async () => {
    const { source, events } = setup({ authorityPem: fixture('chain.pem'), crlPem: fixture('stale.crl') });
    await source.current();
    assert.match(events.join('\n'), /warn: .*past its next update/);
  });
});
