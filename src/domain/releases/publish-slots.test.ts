import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAppError } from '../../errors.ts';
import { PublishSlots } from './publish-slots.ts';

const refusedWith = (pattern: RegExp) => (error: unknown) =>
  isAppError(error) && error.code === 'rate_limited' && error.retryAfterSeconds === 30 && pattern.test(error.detail);

describe('publish slots: per user, per node, a bounded queue', () => {
  test('a user has at most perUser publishes under way; a released one makes room', () => {
    const slots = new PublishSlots({ perUser: 2, perNode: 10, queued: 10, bufferBytes: 64 });
    const first = slots.admit(1);
    slots.admit(1);
    assert.throws(() => slots.admit(1), refusedWith(/You have 2 publishes under way; at most 2/));
    slots.admit(2);
    first.release();
    first.release(); // twice counts once
    slots.admit(1);
    assert.throws(() => slots.admit(1), refusedWith(/at most 2/));
  });

  test('a node runs perNode at once; the others wait in order and run as places free up', async () => {
    const slots = new PublishSlots({ perUser: 10, perNode: 2, queued: 10, bufferBytes: 64 });
    const order: number[] = [];
    const taken = [1, 2, 3, 4].map((user) => slots.admit(user));
    const turns = taken.map((slot, index) => slot.turn().then(() => order.push(index)));
    await Promise.all(turns.slice(0, 2));
    assert.deepEqual(slots.load, { running: 2, waiting: 2 });
    taken[0]?.release();
    await turns[2];
    assert.deepEqual(order, [0, 1, 2]);
    // A waiting publish that ends before its turn (its page closed, the store stopping) leaves the queue.
    taken[3]?.release();
    assert.deepEqual(slots.load, { running: 2, waiting: 0 });
    taken[1]?.release();
    taken[2]?.release();
    assert.deepEqual(slots.load, { running: 0, waiting: 0 });
  });

  test('beyond the queue, the node refuses', async () => {
    const slots = new PublishSlots({ perUser: 10, perNode: 1, queued: 1, bufferBytes: 64 });
    await slots.admit(1).turn();
    void slots.admit(2).turn();
    assert.throws(() => slots.admit(3), refusedWith(/The store is busy with 2 publishes/));
  });

  test('download buffers: one per running publish, handed on from one to the next, never one per publish', async () => {
    const slots = new PublishSlots({ perUser: 10, perNode: 2, queued: 10, bufferBytes: 64 });
    const [a, b, c] = [slots.admit(1), slots.admit(2), slots.admit(3)];
    assert.throws(() => c?.buffer(), /only while it runs/);
    await a?.turn();
    await b?.turn();
    const [first, second] = [a?.buffer(), b?.buffer()];
    assert.equal(first?.length, 64);
    assert.notEqual(first, second, 'two publishes at once have a buffer each');
    assert.equal(a?.buffer(), first, 'the same one while it runs');
    a?.release();
    await c?.turn();
    assert.equal(c?.buffer(), first, 'the next publish reuses the buffer of the one that ended');
    b?.release();
    c?.release();
  });
});
