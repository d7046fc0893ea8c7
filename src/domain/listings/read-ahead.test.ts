import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readAhead } from './read-ahead.ts';

/** Reads that answer when the test says, recording the batches asked for. */
function reads(): {
  read: (batch: string[]) => Promise<string>;
  asked: string[][];
  answer: (error?: Error) => void;
} {
  const asked: string[][] = [];
  const pending: { batch: string[]; resolve: (v: string) => void; reject: (e: Error) => void }[] = [];
  return {
    asked,
    read: (batch) => {
      asked.push(batch);
      return new Promise((resolve, reject) => pending.push({ batch, resolve, reject }));
    },
    answer: (error) => {
      const first = pending.shift();
      assert.ok(first !== undefined, 'nothing was read');
      if (error === undefined) first.resolve(first.batch.join('+'));
      else first.reject(error);
    },
  };
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('readAhead', () => {
  test('every batch in order, the next one asked for before this one is handed out', async () => {
    const source = reads();
    const batches = readAhead(['a', 'b', 'c', 'd', 'e'], 2, source.read);
    const first = batches.next();
    await turn();
    assert.deepEqual(source.asked, [['a', 'b']]);
    source.answer();
    assert.deepEqual((await first).value, { batch: ['a', 'b'], rows: 'a+b' });
    assert.deepEqual(
      source.asked,
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
      'read while the first batch is worked on',
    );
    source.answer();
    assert.deepEqual((await batches.next()).value, { batch: ['c', 'd'], rows: 'c+d' });
    source.answer();
    assert.deepEqual((await batches.next()).value, { batch: ['e'], rows: 'e' });
    assert.equal((await batches.next()).done, true);
    assert.equal(source.asked.length, 3);
  });

  test("a read's failure is thrown at its batch; one read ahead that fails while unread is no unhandled rejection", async () => {
    const source = reads();
    const batches = readAhead(['a', 'b', 'c'], 1, source.read);
    const first = batches.next();
    source.answer();
    await first;
    source.answer(new Error('connection lost')); // the read ahead, not reached yet
    await turn();
    await assert.rejects(batches.next(), /connection lost/);
    assert.equal((await batches.next()).done, true);

    const early = reads();
    const stopped = readAhead(['a', 'b'], 1, early.read);
    const taken = stopped.next();
    early.answer();
    await taken;
    await stopped.return(undefined); // the caller stops: the read ahead is left
    early.answer(new Error('ignored'));
    await turn();
  });

  test('no ids: no read', async () => {
    const source = reads();
    assert.equal((await readAhead([], 4, source.read).next()).done, true);
    assert.deepEqual(source.asked, []);
  });
});
