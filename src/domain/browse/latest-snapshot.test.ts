import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RecentWindow } from '../listings/rating-aggregate.ts';
import type { VersionStamp } from '../listings/version-stamp.ts';
import { LatestSnapshot } from './latest-snapshot.ts';

const stamp = (version: number): VersionStamp => ({ version, changedAt: new Date(1_700_000_000_000), instanceId: 'e' });
const window = { day: '2026-11-28', since: new Date(1_700_000_000_000) } as unknown as RecentWindow;

/** Collects the rejections nobody handled while `run` goes on, and a few turns after it. */
async function unhandledDuring(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const note = (reason: unknown): void => void seen.push(reason);
  process.on('unhandledRejection', note);
  try {
    await run();
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('unhandledRejection', note);
  }
  return seen;
}

describe('LatestSnapshot', () => {
  test('one load is shared by requests beside it, and kept for the version', async () => {
    let loads = 0;
    const snapshots = new LatestSnapshot(async (w) => {
      loads += 1;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { stamp: stamp(1), day: w.day };
    });
    const [a, b] = await Promise.all([snapshots.get(window, stamp(1)), snapshots.get(window, stamp(1))]);
    assert.equal(a, b);
    assert.equal(await snapshots.get(window, stamp(1)), a);
    assert.equal(loads, 1);
  });

  test('a load that fails rejects its callers only: nothing unhandled ends the process, and the next call loads again', async () => {
    let fail = true;
    const snapshots = new LatestSnapshot(async (w) => {
      await new Promise((resolve) => setImmediate(resolve));
      if (fail) throw new Error('driver has already been destroyed');
      return { stamp: stamp(1), day: w.day };
    });
    const unhandled = await unhandledDuring(async () => {
      await assert.rejects(snapshots.get(window, stamp(1)), /destroyed/);
      const beside = [snapshots.get(window, stamp(1)), snapshots.get(window, stamp(1))];
      for (const call of beside) await assert.rejects(call, /destroyed/);
    });
    assert.deepEqual(unhandled, []);
    fail = false;
    assert.equal((await snapshots.get(window, stamp(1))).stamp.version, 1);
  });
});
