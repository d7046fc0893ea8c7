import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discussionLink, withDiscussionLink } from './discussion-link.ts';

test("an app's own discussion link wins; else the template's, with the id (dashed or not)", () => {
  const forum = 'https://forum.example.org/c/apps/{id-dashed}';
  assert.equal(discussionLink(forum, 'files_texteditor', ''), 'https://forum.example.org/c/apps/files-texteditor');
  assert.equal(discussionLink('https://x.example/{id}/talk', 'news', ''), 'https://x.example/news/talk');
  assert.equal(discussionLink(forum, 'news', 'https://own.example/news'), 'https://own.example/news');
  assert.equal(discussionLink('', 'news', ''), '', 'no template: empty, as before');
  const app = { id: 'news', discussion: 'https://own.example' };
  assert.equal(withDiscussionLink(app, forum), app, 'unchanged: the same object');
  assert.equal(
    withDiscussionLink({ id: 'a_b', discussion: '' }, forum).discussion,
    'https://forum.example.org/c/apps/a-b',
  );
});
