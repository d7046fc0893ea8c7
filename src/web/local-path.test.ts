import assert from 'node:assert/strict';
import { test } from 'node:test';
import { localPath } from './local-path.ts';

test('localPath: only paths on this site; anything else goes home', () => {
  assert.equal(localPath('/apps/news?x=1'), '/apps/news?x=1');
  for (const bad of [
    '//evil.example/',
    'https://evil.example/',
    '/\\evil.example',
    'javascript:alert(1)',
    '/a\nb',
    '',
    undefined,
  ])
    assert.equal(localPath(bad), '/', String(bad));
});

test('localPath: what a Location header cannot carry is percent-encoded, so a redirect never fails', () => {
  assert.equal(localPath('/\u0100'), '/%C4%80');
  assert.equal(localPath('/search?q=caf\u00e9 bar'), '/search?q=caf%C3%A9%20bar');
  assert.equal(localPath('/apps/news?q=%41'), '/apps/news?q=%41', 'existing escapes kept');
  assert.equal(localPath('/a\ud800b'), '/ab', 'a lone surrogate has no encoding: dropped');
});
