import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AccountMailJob } from './accounts/mail-jobs.ts';
import { MailQueue } from './mail-queue.ts';
import type { MailQueueStore, QueuedMail } from './mail-queue.ts';

/** The queue's rows in memory, with the claims and times the repository keeps. */
class MemoryStore implements MailQueueStore {
  readonly rows = new Map<
    number,
    { job: AccountMailJob; attempts: number; next: number; claimedUntil: number | null }
  >();
  private nextId = 1;
  async add(job: AccountMailJob, now: Date) {
    this.rows.set(this.nextId, { job, attempts: 0, next: now.getTime(), claimedUntil: null });
    return this.nextId++;
  }
  async due(now: Date, limit: number, ids?: readonly number[]): Promise<QueuedMail[]> {
    return [...this.rows]
      .filter(
        ([id, row]) =>
          row.next <= now.getTime() &&
          (row.claimedUntil === null || row.claimedUntil <= now.getTime()) &&
          (ids === undefined || ids.includes(id)),
      )
      .slice(0, limit)
      .map(([id, row]) => ({ id, job: row.job, attempts: row.attempts }));
  }
  async claim(id: number, now: Date, until: Date) {
    const row = this.rows.get(id);
    if (row === undefined || (row.claimedUntil !== null && row.claimedUntil > now.getTime())) return false;
    row.claimedUntil = until.getTime();
    row.attempts += 1;
    return true;
  }
  async remove(id: number) {
    this.rows.delete(id);
  }
  async later(id: number, next: Date) {
    const row = this.rows.get(id);
    if (row !== undefined) Object.assign(row, { claimedUntil: null, next: next.getTime() });
  }
}

const JOB: AccountMailJob = { kind: 'address-taken', email: 'a@example.org' };

test('a failed send is tried again after a growing pause, and given up (reported) after eight attempts', async () => {
  const store = new MemoryStore();
  let now = Date.parse('2026-11-24T00:00:00Z');
  const problems: string[] = [];
  let tries = 0;
  const queue = new MailQueue(
    store,
    async () => {
      tries += 1;
      throw new Error('SMTP down');
    },
    () => new Date(now),
    { problem: (message) => void problems.push(message) },
    false,
  );
  await queue.enqueue(JOB);
  await queue.settled();
  assert.equal(tries, 1);
  assert.match(problems[0] ?? '', /could not be sent: tried again in 1 min/);
  queue.kick();
  await queue.settled();
  assert.equal(tries, 1, 'not before its time');
  for (let attempt = 2; attempt <= 8; attempt++) {
    now += 6 * 3_600_000;
    queue.kick();
    await queue.settled();
    assert.equal(tries, attempt);
  }
  assert.equal(store.rows.size, 0);
  assert.match(problems.at(-1) ?? '', /given up after 8 attempts/);
});

test('a command delivers only the jobs it queued; a job claimed by another process is left to it', async () => {
  const store = new MemoryStore();
  const sent: AccountMailJob[] = [];
  const deliver = async (job: AccountMailJob) => {
    sent.push(job);
    return { sent: 1, heldBack: 0 };
  };
  await store.add({ kind: 'password-reset', email: 'server@example.org' }, new Date());
  const command = new MailQueue(store, deliver, () => new Date(), { problem: () => undefined }, true);
  await command.enqueue(JOB);
  await command.settled();
  assert.deepEqual(sent, [JOB], "the server's job stays for the server");
  assert.equal(store.rows.size, 1);
  const claimed = [...store.rows.keys()][0] ?? 0;
  await store.claim(claimed, new Date(), new Date(Date.now() + 60_000));
  const server = new MailQueue(store, deliver, () => new Date(), { problem: () => undefined }, false);
  server.kick();
  await server.settled();
  assert.equal(sent.length, 1, 'claimed by another process: not sent twice');
});
