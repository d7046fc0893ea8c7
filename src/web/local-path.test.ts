import assert from 'node:assert/strict';
import { test } from 'node:test';
import { localPath } from './local-path.ts';

test('localPath: only paths on this site; anything else goes home', () => {
  assert.equal(localPath('/apps/news?x=1'), '/apps/news?x=1');
  for (const bad of ['//evil.example/', 'https://evil.example/', '/\\evil.example', 'javascript:alert(1)', '/a\nb', '', undefined]) assert.equal(localPath(bad), '/', String(bad));
});
