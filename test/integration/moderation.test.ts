import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUser } from '../helpers/accounts.ts';
import { certFile } from '../helpers/certificate-fixtures.ts';
import { startArchiveServer, TEST_TLS_CA } from '../helpers/https-archive-server.ts';
import type { ArchiveServer } from '../helpers/https-archive-server.ts';
import {
  importTestCategories,
  injectSend,
  publishFixtureRelease,
  registerFixtureApp,
} from '../helpers/store-actions.ts';
import type { Send } from '../helpers/store-actions.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { WebClient } from '../helpers/web-client.ts';
import { getOrCreateToken } from '../../src/domain/accounts/api-tokens.ts';
import { TEST_ACTING } from '../helpers/acting.ts';

interface RatingEntry {
  rating: number;
  user: { id: number };
  app: string;
  translations: Record<string, { comment: string }>;
}

const PASSWORD = 'a long and unusual passphrase';

/** Moderating ratings (issue 54): reports, the owner's reply, the administrators' queue, limits. */
describe(`moderating ratings (${DIALECT})`, () => {
  let server: TestServer;
  let files: ArchiveServer;
  let send: Send;
  const ids: Record<string, number> = {};

  const signedIn = async (username: string): Promise<WebClient> => {
    const web = new WebClient(server.app);
    await web.get('/account/login');
    const answer = await web.post('/account/login', { username, password: PASSWORD, next: '/' });
    assert.equal(answer.statusCode, 303, answer.body);
    return web;
  };
  const ratingsJson = async (): Promise<RatingEntry[]> =>
    (await server.app.inject({ method: 'GET', url: '/api/v1/ratings.json' })).json() as RatingEntry[];
  const bobsRatingId = async (): Promise<number> => {
    const page = (await server.app.inject({ method: 'GET', url: '/apps/news' })).body;
    const found = /<li class="comment" id="rating-(\d+)">[\s\S]*?Useless spam app/.exec(page);
    assert.ok(found, 'bob’s comment is on the page');
    return Number(found[1]);
  };

  before(async () => {
    files = await startArchiveServer();
    server = await createTestServer({
      env: { APPSTORE_CA_CERT: certFile('chain.pem'), APPSTORE_DOWNLOAD_ALLOW_PRIVATE: '1' },
      downloadCa: [TEST_TLS_CA],
    });
    send = injectSend(server.app);
    await importTestCategories(server.container);
    for (const [name, extra] of [
      ['alice', {}],
      ['bob', {}],
      ['carol', {}],
      ['dave', {}],
      ['root', { isAdmin: true }],
    ] as const) {
      const user = await createUser(server.container, name, PASSWORD, { ...extra, email: `${name}@example.org` });
      ids[name] = user.id;
    }
    const alice = await getOrCreateToken(
      (await server.container.accounts.store.findUserById(ids['alice'] ?? 0))!,
      TEST_ACTING,
      server.container.accounts,
    );
    await registerFixtureApp(send, alice, 'news');
    assert.equal((await publishFixtureRelease(send, alice, files, { id: 'news', version: '1.0.0' })).status, 201);
    const bob = await signedIn('bob');
    await bob.get('/apps/news');
    const rated = await bob.post('/apps/news/rating', { stars: '1', comment: 'Useless spam app', language: 'en' });
    assert.equal(rated.statusCode, 303, rated.body);
  });
  after(async () => {
    await server.close();
    await files.close();
  });

  test('a rating shows the version it was given for', async () => {
    const page = (await server.app.inject({ method: 'GET', url: '/apps/news' })).body;
    assert.match(page, /Useless spam app/);
    assert.match(page, /on \u20661\.0\.0\u2069/);
  });

  test('anyone signed in reports a comment once, with a reason; not their own', async () => {
    const id = await bobsRatingId();
    const carol = await signedIn('carol');
    const page = await carol.get('/apps/news');
    assert.match(page.body, new RegExp(`action="/apps/news/ratings/${id}/report"`));
    const empty = await carol.post(`/apps/news/ratings/${id}/report`, { reason: '' });
    assert.equal(empty.statusCode, 400, 'a report needs a reason');
    await carol.get('/apps/news');
    const sent = await carol.post(`/apps/news/ratings/${id}/report`, { reason: 'Spam: not about the app' });
    assert.equal(sent.statusCode, 303);
    assert.match(String(sent.headers.location), /rated=reported#comments/);
    await carol.get('/apps/news');
    const again = await carol.post(`/apps/news/ratings/${id}/report`, { reason: 'Still spam' });
    assert.match(String(again.headers.location), /rated=reported-before/);
    const bob = await signedIn('bob');
    const own = await bob.get('/apps/news');
    assert.doesNotMatch(own.body, new RegExp(`ratings/${id}/report`), 'no report button on one’s own comment');
    const refused = await bob.post(`/apps/news/ratings/${id}/report`, { reason: 'my own' });
    assert.equal(refused.statusCode, 403);
  });

  test('the owner replies once under a comment; nobody else may', async () => {
    const id = await bobsRatingId();
    const carol = await signedIn('carol');
    await carol.get('/apps/news');
    assert.equal((await carol.post(`/apps/news/ratings/${id}/reply`, { reply: 'Not mine' })).statusCode, 403);
    const alice = await signedIn('alice');
    const page = await alice.get('/apps/news');
    assert.match(page.body, new RegExp(`action="/apps/news/ratings/${id}/reply"`));
    const replied = await alice.post(`/apps/news/ratings/${id}/reply`, { reply: 'Sorry to hear: what went wrong?' });
    assert.equal(replied.statusCode, 303);
    const shown = (await server.app.inject({ method: 'GET', url: '/apps/news' })).body;
    assert.match(shown, /Reply from the developer[\s\S]*Sorry to hear: what went wrong\?/);
    await alice.get('/apps/news');
    await alice.post(`/apps/news/ratings/${id}/reply`, { reply: 'Fixed in 1.0.1.' });
    const replaced = (await server.app.inject({ method: 'GET', url: '/apps/news' })).body;
    assert.match(replaced, /Fixed in 1\.0\.1\./);
    assert.doesNotMatch(replaced, /Sorry to hear/, 'one reply: the new text replaces the old');
  });

  test('the queue: hide a comment (it leaves ratings.json, its stars stay), restore it, dismiss, remove, stop a rater', async () => {
    const id = await bobsRatingId();
    const anonymous = await server.app.inject({
      method: 'GET',
      url: '/admin/reports',
      headers: { accept: 'text/html' },
    });
    assert.equal(anonymous.statusCode, 303, 'signed out: to the sign-in page');
    const carol = await signedIn('carol');
    assert.equal((await carol.get('/admin/reports')).statusCode, 403);
    const root = await signedIn('root');
    assert.match((await root.get('/admin')).body, /1 reported comment waits/);
    const queue = await root.get('/admin/reports');
    assert.match(queue.body, /Useless spam app[\s\S]*carol[\s\S]*Spam: not about the app/);

    const before = (await ratingsJson()).find((r) => r.user.id === ids['bob']);
    assert.deepEqual(before?.translations, { en: { comment: 'Useless spam app' } });
    const hidden = await root.post(`/admin/reports/${id}/hide`, {});
    assert.equal(hidden.statusCode, 303, hidden.body);
    assert.equal(hidden.headers.location, '/admin/reports?done=hide', 'post, redirect, get: a reload repeats nothing');
    assert.match((await root.get('/admin/reports?done=hide')).body, /The comment is hidden; its reports are settled\./);
    const after = (await ratingsJson()).find((r) => r.user.id === ids['bob']);
    assert.ok(after !== undefined, 'the rating value stays');
    assert.equal(after.rating, 0);
    assert.deepEqual(after.translations, {}, 'the hidden comment left ratings.json');
    const page = (await server.app.inject({ method: 'GET', url: '/apps/news' })).body;
    assert.doesNotMatch(page, /Useless spam app/);
    assert.doesNotMatch(page, /Fixed in 1\.0\.1/, 'the reply goes with the comment');
    const apps = (await server.app.inject({ method: 'GET', url: '/api/v1/apps.json' })).json() as Array<{
      id: string;
      ratingNumOverall: number;
    }>;
    assert.equal(apps.find((app) => app.id === 'news')?.ratingNumOverall, 1, 'the stars still count');
    const queueAfter = await root.get('/admin/reports');
    assert.match(queueAfter.body, /No report waits\./);
    assert.match(queueAfter.body, /Hidden comments[\s\S]*Useless spam app/);
    const bob = await signedIn('bob');
    assert.match((await bob.get('/apps/news')).body, /An administrator hid your comment/);

    await root.get('/admin/reports');
    assert.equal((await root.post(`/admin/reports/${id}/restore`, {})).statusCode, 303);
    assert.deepEqual(
      (await ratingsJson()).find((r) => r.user.id === ids['bob'])?.translations,
      { en: { comment: 'Useless spam app' } },
      'restored',
    );
    // A new report, dismissed: the comment stays.
    const dave = await signedIn('dave');
    await dave.get('/apps/news');
    await dave.post(`/apps/news/ratings/${id}/report`, { reason: 'I do not like it' });
    await root.get('/admin/reports');
    assert.equal((await root.post(`/admin/reports/${id}/dismiss`, {})).statusCode, 303);
    assert.match((await root.get('/admin/reports')).body, /No report waits\./);
    assert.ok((await ratingsJson()).some((r) => r.user.id === ids['bob']));

    // Stop bob from rating: his form is gone and the API refuses him.
    const block = await root.post(`/admin/raters/${ids['bob']}/block`, {});
    assert.equal(block.statusCode, 303, block.body);
    assert.match(
      (await root.get(String(block.headers.location))).body,
      /bob[^<]*(<\/bdi>)?[^<]* can no longer rate apps\./,
    );
    const stopped = (await bob.get('/apps/news')).body;
    assert.match(stopped, /stopped your account from rating/);
    assert.match(stopped, /action="\/apps\/news\/rating\/delete"/, 'a stopped user may still remove their rating');
    const bobToken = await getOrCreateToken(
      (await server.container.accounts.store.findUserById(ids['bob'] ?? 0))!,
      TEST_ACTING,
      server.container.accounts,
    );
    const refused = await send('POST', '/api/v1/apps/news/ratings', {
      headers: { authorization: `Token ${bobToken}` },
      payload: { rating: 0.5 },
    });
    assert.equal(refused.status, 403, refused.text);
    await root.get('/admin/reports');
    assert.match((await root.get('/admin/reports')).body, /Users stopped from rating[\s\S]*bob/);

    // Remove the rating: its value leaves ratings.json and the aggregates.
    await root.get('/admin/reports');
    assert.equal((await root.post(`/admin/reports/${id}/remove`, {})).statusCode, 303);
    assert.ok(!(await ratingsJson()).some((r) => r.user.id === ids['bob']));
    await root.get('/admin/reports');
    assert.equal((await root.post(`/admin/raters/${ids['bob']}/allow`, {})).statusCode, 303);

    const audit = await server.app.inject({
      method: 'GET',
      url: '/admin/audit?event=rating.',
      headers: { accept: 'text/html', cookie: [...root.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const event of [
      'rating.reported',
      'rating.replied',
      'rating.hidden',
      'rating.restored',
      'rating.reports-dismissed',
      'rating.removed',
    ])
      assert.match(audit.body, new RegExp(event.replace('.', '\\.')), event);
  });

  test('a hidden comment stays hidden when re-posted; a changed comment loses the reply; the path names the app', async () => {
    const carol = await signedIn('carol');
    await carol.get('/apps/news');
    await carol.post('/apps/news/rating', { stars: '2', comment: 'Carol’s rant', language: 'en' });
    const page = (await server.app.inject({ method: 'GET', url: '/apps/news' })).body;
    const id = Number(/<li class="comment" id="rating-(\d+)">[\s\S]*?Carol’s rant/.exec(page)?.[1]);
    const alice = await signedIn('alice');
    await alice.get('/apps/news');
    await alice.post(`/apps/news/ratings/${id}/reply`, { reply: 'We hear you.' });
    assert.match((await server.app.inject({ method: 'GET', url: '/apps/news' })).body, /We hear you\./);
    // Another app's address with this rating's id: not found.
    await alice.get('/apps/news');
    assert.equal((await alice.post(`/apps/notes/ratings/${id}/reply`, { reply: 'x' })).statusCode, 404);
    // Carol changes her comment: the reply answered the old text, so it goes.
    await carol.get('/apps/news');
    await carol.post('/apps/news/rating', { stars: '2', comment: 'Carol’s new rant', language: 'en' });
    assert.doesNotMatch((await server.app.inject({ method: 'GET', url: '/apps/news' })).body, /We hear you/);
    // Hidden, then deleted and posted again: still hidden.
    const root = await signedIn('root');
    await root.get('/admin/reports');
    assert.equal((await root.post(`/admin/reports/${id}/hide`, {})).statusCode, 303);
    await carol.get('/apps/news');
    assert.equal((await carol.post('/apps/news/rating/delete', {})).statusCode, 303);
    await carol.get('/apps/news');
    await carol.post('/apps/news/rating', { stars: '2', comment: 'Carol’s rant, again', language: 'en' });
    assert.doesNotMatch((await server.app.inject({ method: 'GET', url: '/apps/news' })).body, /Carol’s rant, again/);
    assert.ok(
      !(await ratingsJson()).some((r) => Object.values(r.translations).some((t) => t.comment.includes('again'))),
    );
  });

  test('a user stopped from rating cannot report either', async () => {
    // A comment shown on the page, by someone else: the administrator's own rating.
    const root = await signedIn('root');
    await root.get('/apps/news');
    await root.post('/apps/news/rating', { stars: '4', comment: 'Works for the whole office', language: 'en' });
    const page = (await server.app.inject({ method: 'GET', url: '/apps/news' })).body;
    const id = /<li class="comment" id="rating-(\d+)">[\s\S]*?Works for the whole office/.exec(page)?.[1];
    assert.ok(id !== undefined, 'the comment to report is on the page');
    await root.get('/admin/reports');
    await root.post(`/admin/raters/${ids['dave']}/block`, {});
    const dave = await signedIn('dave');
    await dave.get('/apps/news');
    const refused = await dave.post(`/apps/news/ratings/${id}/report`, { reason: 'blocked but reporting' });
    assert.equal(refused.statusCode, 403);
    await root.get('/admin/reports');
    await root.post(`/admin/raters/${ids['dave']}/allow`, {});
  });

  test('per-user limits: twenty ratings a day', async () => {
    const token = await getOrCreateToken(
      (await server.container.accounts.store.findUserById(ids['dave'] ?? 0))!,
      TEST_ACTING,
      server.container.accounts,
    );
    let last = 0;
    for (let i = 0; i < 21; i += 1) {
      last = (
        await send('POST', '/api/v1/apps/news/ratings', {
          headers: { authorization: `Token ${token}` },
          payload: { rating: 1 },
        })
      ).status;
      if (i < 20) assert.ok(last === 200 || last === 201, `rating ${i + 1}: ${last}`);
    }
    assert.equal(last, 429, 'the 21st rating in a day is refused');
  });
});
