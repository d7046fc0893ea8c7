import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createUser } from '../helpers/accounts.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';
import type { TestServer } from '../helpers/test-server.ts';
import { multipartForm } from '../helpers/multipart.ts';
import { WebClient } from '../helpers/web-client.ts';

describe(`the developer forms keep what was typed and speak to people (${DIALECT})`, () => {
  let server: TestServer;
  let web: WebClient;
  before(async () => {
    server = await createTestServer();
    await createUser(server.container, 'nora', 'ember walrus lagoon');
    web = new WebClient(server.app);
    await web.get('/account/login');
    const signedIn = await web.post('/account/login', {
      username: 'nora',
      password: 'ember walrus lagoon',
      next: '/developer',
    });
    assert.equal(signedIn.statusCode, 303, signedIn.body);
  });
  after(() => server.close());

  test("the publish page fills the app's commands in, and keeps them through a refusal", async () => {
    const page = await web.get('/developer/publish?app=notesplus');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /openssl dgst -sha512 -sign notesplus\.key notesplus\.tar\.gz/);
    assert.doesNotMatch(page.body, /APP\.key/);
    const refused = await web.post('/developer/publish', {
      app: 'notesplus',
      download: 'http://example.org/notesplus.tar.gz',
      signature: 'c2lnbmF0dXJl',
      nightly: 'on',
    });
    assert.equal(refused.statusCode, 400);
    // Said to a person: the message, the field marked; not the API's "Invalid request body: download:".
    assert.doesNotMatch(refused.body, /Invalid request body/);
    assert.match(refused.body, /<p>Enter a valid HTTPS URL\.<\/p>/);
    assert.match(refused.body, /aria-invalid="true"/);
    assert.match(refused.body, /value="http:\/\/example\.org\/notesplus\.tar\.gz"/);
    assert.match(refused.body, /name="nightly" type="checkbox" value="on" checked/);
    assert.match(refused.body, /-sign notesplus\.key notesplus\.tar\.gz/);
  });

  test('"Publish again" opens the form with what was sent', async () => {
    const again = await web.get(
      `/developer/publish?${new URLSearchParams({ download: 'https://example.org/a.tar.gz', nightly: 'on' }).toString()}`,
    );
    assert.equal(again.statusCode, 200);
    assert.match(again.body, /value="https:\/\/example\.org\/a\.tar\.gz"/);
    assert.match(again.body, /name="nightly" type="checkbox" value="on" checked/);
    const hostile = await web.get('/developer/publish?app=%3Cscript%3E');
    assert.equal(hostile.statusCode, 200);
    assert.match(hostile.body, /-sign APP\.key APP\.tar\.gz/, 'only an app id fills the commands');
  });

  test('the upload form: its token must come first; a sender with no app is told so on the form', async () => {
    const page = await web.get('/developer/publish');
    assert.match(
      page.body,
      /<form class="form" action="\/developer\/publish\/upload" method="post" enctype="multipart\/form-data"><input type="hidden" name="csrf_token"/,
    );
    const token = web.csrfToken();
    const archive = { name: 'archive', value: Buffer.from('bytes'), filename: 'a.tar.gz' };
    const late = await web.postMultipart(
      '/developer/publish/upload',
      multipartForm([archive, { name: 'csrf_token', value: token }, { name: 'signature', value: 'c2ln' }]),
    );
    assert.equal(late.statusCode, 403, 'a token after the file is not read');
    assert.match(late.body, /form|token/i);
    const wrong = await web.postMultipart(
      '/developer/publish/upload',
      multipartForm([{ name: 'csrf_token', value: 'x'.repeat(40) }, archive]),
    );
    assert.equal(wrong.statusCode, 403);
    const first = await web.postMultipart(
      '/developer/publish/upload',
      multipartForm([{ name: 'csrf_token', value: token }, archive, { name: 'signature', value: 'c2ln' }]),
    );
    assert.equal(first.statusCode, 403, first.body.slice(0, 300));
    assert.match(first.body, /own or co-maintain no app/);
    assert.match(first.body, /Upload the file/, 'shown on the publish page, with both forms');
  });
});
