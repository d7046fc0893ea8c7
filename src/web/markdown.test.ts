import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { html } from './html.ts';
import { renderMarkdown } from './markdown.ts';

const render = (source: string): string => renderMarkdown(source).text;

describe('renderMarkdown: hostile text stays text', () => {
  test('raw HTML, script tags and event handlers are shown as text, never as elements', () => {
    const out = render(
      '<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n<svg><script>alert(1)</script></svg>',
    );
    assert.doesNotMatch(out, /<script|<img|<svg/i);
    assert.match(out, /&lt;script&gt;/);
  });

  test('links: http, https and mailto only, each with rel="nofollow ugc noopener"', () => {
    const out = render(
      '[a](https://example.com) [b](javascript:alert(1)) [c](JaVaScRiPt:alert(1)) [d](data:text/html,x) [e](mailto:a@b.c) [f](vbscript:x)',
    );
    assert.match(out, /<a href="https:\/\/example\.com" rel="nofollow ugc noopener">a<\/a>/);
    assert.match(out, /<a href="mailto:a@b\.c" rel="nofollow ugc noopener">e<\/a>/);
    assert.doesNotMatch(out, /href="(javascript|data|vbscript)/i);
    assert.equal((out.match(/<a /g) ?? []).length, 2);
  });

  test('images are never drawn: each shows its description (the pages load images only from the store)', () => {
    const out = render(
      '![shot](https://example.com/a.png) ![bad](http://example.com/a.png) ![x](javascript:alert(1)) ![lang](/language?lang=ar)',
    );
    assert.doesNotMatch(out, /<img|src=/);
    assert.match(out, /shot[\s\S]*bad[\s\S]*x[\s\S]*lang/);
  });

  test('attribute breaking in link titles and texts is escaped', () => {
    const out = render('[x](https://e.com "a\\" onmouseover=\\"alert(1)")');
    assert.doesNotMatch(out, /" onmouseover=/);
  });

  test('markdown still renders: headings, lists, emphasis, code', () => {
    const out = render('# Title\n\n- one\n- *two*\n\n`code <b>`');
    assert.match(out, /<h3>Title<\/h3>/, "headings start at h3, below the page's own");
    assert.match(out, /<em>two<\/em>/);
    assert.match(out, /<code>code &lt;b&gt;<\/code>/);
  });
});

describe('html templates', () => {
  test('interpolated text is escaped, nested templates and arrays are not escaped twice', () => {
    const name = '<b>"x" & \'y\'</b>';
    const out = html`<p title="${name}">${name}${[html`<i>${'<'}</i>`, '>']}</p>`.text;
    assert.equal(
      out,
      '<p title="&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;">&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;<i>&lt;</i>&gt;</p>',
    );
  });
});
