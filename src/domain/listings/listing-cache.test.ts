import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { describe, test } from 'node:test';
import { ListingCache } from './listing-cache.ts';
import type { VersionStamp } from './version-stamp.ts';
import { listingEtag } from './version-stamp.ts';

const stamp = (version: number): VersionStamp => ({
  version,
  changedAt: new Date(1_700_000_000_000),
  instanceId: 'abc',
});
const bigBody = (tag: string) =>
  Array.from({ length: 200 }, (_, i) => ({ id: `${tag}-${i}`, name: 'repeated text '.repeat(3) }));

describe('ListingCache', () => {
  test('renders once per version and compresses to the same JSON', async () => {
    const cache = new ListingCache({ maxBytes: 10_000_000 });
    let renders = 0;
    const render = async () => ({ stamp: stamp(1), body: (renders++, bigBody('a')) });
    const first = await cache.get('apps', stamp(1), render);
    const second = await cache.get('apps', stamp(1), render);
    assert.equal(renders, 1);
    assert.equal(first, second);
    assert.equal(first.etag, '"abc-1-apps"');
    assert.ok(first.gzip !== null && first.br !== null);
    assert.deepEqual(zlib.gunzipSync(first.gzip), first.identity);
    assert.deepEqual(zlib.brotliDecompressSync(first.br), first.identity);
    assert.deepEqual(JSON.parse(first.identity.toString()), bigBody('a'));
  });

  test('concurrent requests share one render', async () => {
    const cache = new ListingCache({ maxBytes: 10_000_000 });
    let renders = 0;
    const render = async () => {
      renders += 1;
      await new Promise((r) => setTimeout(r, 20));
      return { stamp: stamp(1), body: [1, 2, 3] };
    };
    const results = await Promise.all([
      cache.get('x', stamp(1), render),
      cache.get('x', stamp(1), render),
      cache.get('x', stamp(1), render),
    ]);
    assert.equal(renders, 1);
    assert.ok(results.every((r) => r === results[0]));
  });

  test('a newer version re-renders; an older request reuses the newer body', async () => {
    const cache = new ListingCache({ maxBytes: 10_000_000 });
    await cache.get('x', stamp(1), async () => ({ stamp: stamp(1), body: ['one'] }));
    const two = await cache.get('x', stamp(2), async () => ({ stamp: stamp(2), body: ['two'] }));
    assert.equal(two.identity.toString(), '["two"]');
    const stale = await cache.get('x', stamp(1), async () => assert.fail('must not render'));
    assert.equal(stale, two);
  });

  test('the ETag belongs to the version the render saw, not the one asked for', async () => {
    const cache = new ListingCache({ maxBytes: 10_000_000 });
    const rendered = await cache.get('x', stamp(4), async () => ({ stamp: stamp(5), body: [] }));
    assert.equal(rendered.etag, listingEtag(stamp(5), 'x'));
  });

  test('tiny bodies are not compressed', async () => {
    const cache = new ListingCache({ maxBytes: 10_000_000 });
    const rendered = await cache.get('x', stamp(1), async () => ({ stamp: stamp(1), body: [] }));
    assert.equal(rendered.gzip, null);
    assert.equal(rendered.br, null);
  });

  test('memory is bounded: least recently used variants are evicted', async () => {
    const one = await new ListingCache({ maxBytes: 1e9 }).get('probe', stamp(1), async () => ({
      stamp: stamp(1),
      body: bigBody('p'),
    }));
    const cache = new ListingCache({ maxBytes: one.bytes * 2 + 10 });
    let renders = 0;
    const render = (tag: string) => async () => ((renders += 1), { stamp: stamp(1), body: bigBody(tag) });
    await cache.get('a', stamp(1), render('a'));
    await cache.get('b', stamp(1), render('b'));
    await cache.get('a', stamp(1), render('a')); // a is now the most recently used
    await cache.get('c', stamp(1), render('c')); // evicts b
    assert.equal(renders, 3);
    assert.ok(cache.size <= one.bytes * 2 + 10);
    await cache.get('a', stamp(1), render('a'));
    assert.equal(renders, 3, 'a stayed');
    await cache.get('b', stamp(1), render('b'));
    assert.equal(renders, 4, 'b was evicted');
  });

  test('a failed render is not cached and can be retried', async () => {
    const cache = new ListingCache({ maxBytes: 1e6 });
    await assert.rejects(
      cache.get('x', stamp(1), async () => {
        throw new Error('db down');
      }),
      /db down/,
    );
    const ok = await cache.get('x', stamp(1), async () => ({ stamp: stamp(1), body: ['ok'] }));
    assert.equal(ok.identity.toString(), '["ok"]');
  });
});

describe('listingEtag', () => {
  test('only [A-Za-z0-9._-] inside the quotes', () => {
    const etag = listingEtag(stamp(7), 'platform/30.0.1?x');
    assert.match(etag, /^"[A-Za-z0-9._-]+"$/);
  });
});
