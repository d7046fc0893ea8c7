// timing: run alone (scripts/run-tests.mjs runs this file's long runs on a quiet machine)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addUser } from '../../src/domain/accounts/manage-users.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { startMailServer } from '../helpers/mail-server.ts';
import type { MailServer } from '../helpers/mail-server.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { longRunOnly } from '../helpers/long-runs.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';

/**
 * Whether an address has an account must not show in how long the answer takes. The requests are
 * timed in process (no network), the two kinds interleaved so that the machine's noise falls on
 * both, and the fastest of each compared: the other test files running beside this one stretch
 * single samples by several milliseconds (a reset takes two or three), and noise only ever adds
 * time. Each mail is delivered before the next request starts (outside the timing): the mail goes
 * out after the answer. Before the mail queue, a reset for a known address took 155 ms (the
 * mail sent in the request) against 3.5 ms for an unknown one. The two comparisons (about 25 s
 * of requests) run in `npm run test:long`.
 */
describe(`the answers' timing tells nothing about which addresses have accounts (${DIALECT})`, () => {
  let mail: MailServer;
  let server: TestServer;
  before(async () => {
    mail = await startMailServer();
    server = await createTestServer({ env: { APPSTORE_SMTP_URL: mail.url } });
  });
  after(async () => {
    await server.close();
    await mail.close();
  });

  /** Times one form post from a browser of its own (its own client address: the limits per address stay out of it). */
  async function timed(index: number, url: string, fields: Record<string, string>): Promise<number> {
    const browser = new WebClient(server.app, `10.9.${Math.floor(index / 200)}.${index % 200}`);
    await browser.get(url);
    const started = performance.now();
    const response = await browser.post(url, fields);
    const elapsed = performance.now() - started;
    assert.equal(response.statusCode, 200, response.body.slice(0, 300));
    await server.container.mailQueue.settled();
    return elapsed;
  }

  /** Accounts `name0@example.org` … whose addresses the tests ask about. */
  async function accounts(name: string, count: number): Promise<void> {
    for (let i = 0; i < count; i++)
      await addUser(
        { username: `${name}${i}`, email: `${name}${i}@example.org`, password: null },
        TEST_ACTING,
        server.container.accounts,
      );
  }

  /**
   * Times `rounds` pairs of posts, the two kinds alternating, and which goes first alternating too:
   * the post after one that sends a mail meets what is left of that mail (the SMTP server in this
   * process, the pool's connection), and each kind must meet it as often. [times of the first kind, of the second]
   */
  async function interleaved(
    rounds: number,
    first: (i: number) => number | Promise<number>,
    second: (i: number) => number | Promise<number>,
  ): Promise<[number[], number[]]> {
    const [a, b]: [number[], number[]] = [[], []];
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        a.push(await first(i));
        b.push(await second(i));
      } else {
        b.push(await second(i));
        a.push(await first(i));
      }
    }
    return [a, b];
  }

  /**
   * How far apart two kinds of request are, by the median of their pairs' differences (each pair
   * one after the other): what loads the machine falls on both of a pair alike and cancels, and a
   * few stretched samples move a median little. The first pair, which warms up, is left out.
   * (A comparison of the fastest of each was decided by one lucky sample on a loaded machine.)
   */
  function pairedShift(first: number[], second: number[]): { shift: number; typical: number; shown: string } {
    const median = (values: number[]): number => {
      const sorted = [...values].sort((a, b) => a - b);
      const middle = Math.floor(sorted.length / 2);
      return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
    };
    const differences = first.slice(1).map((t, i) => t - (second[i + 1] ?? 0));
    const typical = median([...first.slice(1), ...second.slice(1)]);
    const shift = median(differences);
    return {
      shift,
      typical,
      shown: `median difference ${shift.toFixed(2)} ms over ${differences.length} pairs; median request ${typical.toFixed(2)} ms`,
    };
  }

  test(
    'password reset: a known and an unknown address take the same time; only the known one gets a mail',
    longRunOnly,
    async (t) => {
      const rounds = 24;
      await accounts('known', rounds);
      const [known, unknown] = await interleaved(
        rounds,
        (i) => timed(2 * i, '/account/reset', { email: `known${i}@example.org` }),
        (i) => timed(2 * i + 1, '/account/reset', { email: `unknown${i}@example.org` }),
      );
      // Before the mail queue, a known address took 155 ms (the mail sent in the request), an unknown one 3.5 ms.
      const { shift, typical, shown } = pairedShift(known, unknown);
      t.diagnostic(`known − unknown: ${shown}`);
      assert.ok(Math.abs(shift) < Math.max(5, 0.5 * typical), shown);
      assert.equal(
        mail.received.filter((m) => m.to.some((to) => to.startsWith('known'))).length,
        rounds,
        'a reset mail to each known address',
      );
      assert.equal(mail.received.filter((m) => m.to.some((to) => to.startsWith('unknown'))).length, 0);
    },
  );

  test('sign-up: an address that has an account and a free one take the same time', longRunOnly, async (t) => {
    // The request never looks the address up (the mail's delivery does), so any difference is
    // work one kind does and the other does not: before the mail queue, about 70 ms.
    const rounds = 24;
    await accounts('holder', rounds);
    const password = 'quartz lantern meadow violin';
    const [taken, free] = await interleaved(
      rounds,
      (i) =>
        timed(1000 + 2 * i, '/account/signup', { username: `taker${i}`, email: `holder${i}@example.org`, password }),
      (i) =>
        timed(1001 + 2 * i, '/account/signup', { username: `fresh${i}`, email: `newbie${i}@example.org`, password }),
    );
    const { shift, typical, shown } = pairedShift(taken, free);
    t.diagnostic(`taken − free: ${shown}`);
    assert.ok(Math.abs(shift) < Math.max(10, 0.25 * typical), shown);
    // The mails went to the right places: a note to each holder, a link to each newcomer.
    assert.equal(
      mail.received.filter(
        (m) => m.to.some((to) => /^holder\d+@/.test(to)) && /already has an account|address/i.test(m.subject + m.text),
      ).length,
      rounds,
    );
    assert.equal(
      mail.received.filter(
        (m) => m.to.some((to) => /^newbie\d+@/.test(to)) && m.links.some((link) => link.includes('/account/verify/')),
      ).length,
      rounds,
    );
  });

  test('mail flooding: 12 sign-ups for one address from 12 client addresses send it at most 5 mails', async () => {
    for (let i = 0; i < 12; i++)
      await timed(2000 + i, '/account/signup', {
        username: `flood${i}`,
        email: 'victim@example.org',
        password: 'quartz lantern meadow violin',
      });
    assert.equal(mail.received.filter((m) => m.to.includes('victim@example.org')).length, 5);
  });
});
