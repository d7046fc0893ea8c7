import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnonymousPages } from '../../../src/http/anonymous-pages.ts';
import type { PageSetting } from '../../../src/http/page-context.ts';
import { html } from '../../../src/web/html.ts';

const MINUTE = 60_000;

/** The parts of a page setting the kept pages look at. */
function setting(options: {
  catalog: object;
  copies: object;
  at: number;
  path?: string;
  languages?: string[];
  account?: boolean;
}): PageSetting {
  return {
    catalog: options.catalog,
    screenshotCopies: options.copies,
    context: {
      path: options.path ?? '/',
      languages: options.languages ?? ['en'],
      account: options.account === true ? { username: 'alice', formToken: 't' } : null,
    },
    display: { cards: { now: new Date(options.at) } },
  } as unknown as PageSetting;
}

describe('pages kept for anonymous visitors', () => {
  it('made once per catalogue, screenshot copies, minute, address and languages; never for a signed-in visitor', () => {
    const pages = new AnonymousPages();
    let made = 0;
    const build = () => html`<p>page ${++made}</p>`;
    const catalog = {};
    const copies = {};
    const at = 10 * MINUTE;
    const first = pages.page(setting({ catalog, copies, at }), build);
    assert.equal(pages.page(setting({ catalog, copies, at: at + 59_000 }), build), first, 'kept within the minute');
    assert.equal(made, 1);
    for (const [what, other] of [
      ['another catalogue (a write, a new day)', setting({ catalog: {}, copies, at })],
      ['other screenshot copies', setting({ catalog, copies: {}, at })],
      ['the next minute', setting({ catalog, copies, at: at + MINUTE })],
      ['another address', setting({ catalog, copies, at, path: '/?x=1' })],
      ['other languages', setting({ catalog, copies, at, languages: ['de', 'en'] })],
    ] as const) {
      const count: number = made;
      assert.notEqual(pages.page(other, build), first, what);
      assert.equal(made, count + 1, what);
    }
    const before = made;
    pages.page(setting({ catalog, copies, at, account: true }), build);
    pages.page(setting({ catalog, copies, at, account: true }), build);
    assert.equal(made, before + 2, 'a signed-in visitor’s page is made every time');
  });

  it('keeps at most 64 addresses and languages per catalogue, the oldest made again', () => {
    const pages = new AnonymousPages();
    let made = 0;
    const build = () => html`<p>${++made}</p>`;
    const catalog = {};
    const copies = {};
    for (let i = 0; i < 65; i++) pages.page(setting({ catalog, copies, at: 0, path: `/?p=${i}` }), build);
    assert.equal(made, 65);
    pages.page(setting({ catalog, copies, at: 0, path: '/?p=64' }), build);
    assert.equal(made, 65, 'the newest is kept');
    pages.page(setting({ catalog, copies, at: 0, path: '/?p=0' }), build);
    assert.equal(made, 66, 'the oldest was let go');
  });
});
