import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sanitiseIcon } from './app-icon.ts';
import type { AppIcon } from './app-icon.ts';
import { parseXmlDocument } from './xml-document.ts';

const LIMIT = 256 * 1024;
const icon = (svg: string, dark = false) => sanitiseIcon(Buffer.from(svg), dark, LIMIT, parseXmlDocument);
const rebuilt = (svg: string): AppIcon => {
  const result = icon(svg);
  assert.ok(!('problem' in result), 'problem' in result ? result.problem : '');
  return result;
};

describe('app icons, rebuilt safe', () => {
  test('a plain icon keeps its drawing; the hash names the result', () => {
    const result = rebuilt('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32"><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs><path d="M1 1h30v30H1z" fill="url(#g)" style="fill-opacity:.5"/></svg>');
    assert.equal(result.svg, '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32"><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"></stop></linearGradient></defs><path d="M1 1h30v30H1z" fill="url(#g)" style="fill-opacity:.5"></path></svg>');
    assert.match(result.hash, /^[0-9a-f]{32}$/);
    assert.equal(result.dark, false);
  });

  test('scripts, event handlers, foreign objects, links, images and animations are dropped', () => {
    const result = rebuilt(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><script href="https://evil.example/x.js"/>
      <a href="javascript:alert(3)"><rect width="1" height="1"/></a><foreignObject><div xmlns="http://www.w3.org/1999/xhtml" onclick="alert(4)">x</div></foreignObject>
      <image href="https://evil.example/track.png"/><animate attributeName="href" to="javascript:alert(5)"/><set attributeName="onload" to="alert(6)"/>
      <circle r="4" onclick="alert(7)" onmouseover="alert(8)"/><style>@import url(https://evil.example/x.css);</style></svg>`);
    assert.equal(result.svg, '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"></circle></svg>');
  });

  test('references leave the icon never: external <use href>, url() to elsewhere, styles that fetch', () => {
    const result = rebuilt(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><symbol id="s"><path d="M0 0"/></symbol>
      <use href="https://evil.example/sprite.svg#a"/><use xlink:href="data:image/svg+xml,&lt;svg onload='alert(1)'/&gt;"/><use xlink:href="#s"/>
      <rect fill="url(https://evil.example/p)" stroke="url(#s)" style="fill:url(https://evil.example/q);stroke-width:2;behavior:url(x.htc)"/></svg>`);
    assert.equal(result.svg, '<svg xmlns="http://www.w3.org/2000/svg"><symbol id="s"><path d="M0 0"></path></symbol><use></use><use></use><use href="#s"></use><rect stroke="url(#s)" style="stroke-width:2"></rect></svg>');
  });

  test('refused: an XML bomb (any DOCTYPE), a file over the limit, not SVG, not XML', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]><svg xmlns="http://www.w3.org/2000/svg"><text>&c;</text></svg>`;
    assert.match((icon(bomb) as { problem: string }).problem, /DOCTYPE/);
    const big = sanitiseIcon(Buffer.alloc(LIMIT + 1, 32), false, LIMIT, parseXmlDocument);
    assert.match((big as { problem: string }).problem, /larger than 256 KiB/);
    assert.match((icon('<html><body/></html>') as { problem: string }).problem, /not <svg>/);
    assert.match((icon('<svg', true) as { problem: string }).problem, /^img\/app-dark\.svg: malformed XML/);
  });

  test('text in titles is kept as text, escaped', () => {
    assert.equal(rebuilt('<svg xmlns="http://www.w3.org/2000/svg"><title>A &lt;b&gt; &amp; c</title></svg>').svg, '<svg xmlns="http://www.w3.org/2000/svg"><title>A &lt;b&gt; &amp; c</title></svg>');
  });
});
