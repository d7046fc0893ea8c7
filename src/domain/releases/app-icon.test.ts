import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sanitiseIcon } from './app-icon.ts';
import type { AppIcon } from './app-icon.ts';
import { loadXmlParser } from './xml-document.ts';

const parseXmlDocument = await loadXmlParser();

const LIMIT = 256 * 1024;
const icon = (svg: string, dark = false) => sanitiseIcon(Buffer.from(svg), dark, LIMIT, parseXmlDocument);
const rebuilt = (svg: string): AppIcon => {
  const result = icon(svg);
  assert.ok(!('problem' in result), 'problem' in result ? result.problem : '');
  return result;
};

describe('app icons, rebuilt safe', () => {
  test('a plain icon keeps its drawing; the hash names the result', () => {
    const result = rebuilt(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32"><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient></defs><path d="M1 1h30v30H1z" fill="url(#g)" style="fill-opacity:.5"/></svg>',
    );
    assert.equal(
      result.svg,
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32"><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"></stop></linearGradient></defs><path d="M1 1h30v30H1z" fill="url(#g)" style="fill-opacity:.5"></path></svg>',
    );
    assert.match(result.hash, /^[0-9a-f]{32}$/);
    assert.equal(result.dark, false);
  });

  test('scripts, event handlers, foreign objects, links, images and animations are dropped', () => {
    const result =
      rebuilt(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><script href="https://evil.example/x.js"/>
      <a href="javascript:alert(3)"><rect width="1" height="1"/></a><foreignObject><div xmlns="http://www.w3.org/1999/xhtml" onclick="alert(4)">x</div></foreignObject>
      <image href="https://evil.example/track.png"/><animate attributeName="href" to="javascript:alert(5)"/><set attributeName="onload" to="alert(6)"/>
      <circle r="4" onclick="alert(7)" onmouseover="alert(8)"/><style>@import url(https://evil.example/x.css);</style></svg>`);
    assert.equal(result.svg, '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"></circle></svg>');
  });

  test('references leave the icon never: external <use href>, url() to elsewhere, styles that fetch', () => {
    const result =
      rebuilt(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><symbol id="s"><path d="M0 0"/></symbol>
      <use href="https://evil.example/sprite.svg#a"/><use xlink:href="data:image/svg+xml,&lt;svg onload='alert(1)'/&gt;"/><use xlink:href="#s"/>
      <rect fill="url(https://evil.example/p)" stroke="url(#s)" style="fill:url(https://evil.example/q);stroke-width:2;behavior:url(x.htc)"/></svg>`);
    assert.equal(
      result.svg,
      '<svg xmlns="http://www.w3.org/2000/svg"><symbol id="s"><path d="M0 0"></path></symbol><use></use><use></use><use href="#s"></use><rect stroke="url(#s)" style="stroke-width:2"></rect></svg>',
    );
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
    assert.equal(
      rebuilt('<svg xmlns="http://www.w3.org/2000/svg"><title>A &lt;b&gt; &amp; c</title></svg>').svg,
      '<svg xmlns="http://www.w3.org/2000/svg"><title>A &lt;b&gt; &amp; c</title></svg>',
    );
  });
});

/** `levels` levels, each a <g> of ten <use> of the level below: 10^levels copies (nine: 10⁹ in about 4 KB). */
const nestedUses = (levels: number): string =>
  `<svg xmlns="http://www.w3.org/2000/svg"><defs><g id="l0"><rect width="1" height="1"/></g>${Array.from({ length: levels }, (_, l) => `<g id="l${l + 1}">${`<use href="#l${l}"/>`.repeat(10)}</g>`).join('')}</defs><use href="#l${levels}"/></svg>`;

describe('app icons, bounded by what they draw (issue 49)', () => {
  const problem = (svg: string): string => {
    const result = icon(svg);
    assert.ok('problem' in result, 'the icon was kept');
    return result.problem;
  };

  test('ten <use> nested nine deep (10⁹ copies, 4 KB) is refused for what it draws, not its size', () => {
    const svg = nestedUses(9);
    assert.ok(svg.length < 5000);
    assert.match(
      problem(svg),
      /^img\/app\.svg takes more than 200000 units of drawing work \(elements, path segments, glyphs and dashes, counted through every <use>, mask and clip-path reference\)/,
    );
  });

  test('a few levels of <use> that draw little are kept', () => {
    const result = rebuilt(nestedUses(3));
    assert.match(result.svg, /<use href="#l3"><\/use><\/svg>$/);
  });

  test('masks and clip paths that reference each other multiply the same way', () => {
    let defs = '<mask id="m0"><rect width="1" height="1" fill="#fff"/></mask>';
    for (let level = 1; level <= 6; level++) {
      defs += `<mask id="m${level}">${Array.from({ length: 10 }, () => `<rect width="1" height="1" mask="url(#m${level - 1})"/>`).join('')}</mask>`;
    }
    assert.match(
      problem(
        `<svg xmlns="http://www.w3.org/2000/svg"><defs>${defs}</defs><rect width="9" height="9" mask="url(#m6)"/></svg>`,
      ),
      /takes more than 200000 units/,
    );
    let clips = '<clipPath id="c0"><rect width="1" height="1"/></clipPath>';
    for (let level = 1; level <= 6; level++) {
      clips += `<clipPath id="c${level}">${Array.from({ length: 10 }, () => `<rect width="1" height="1" clip-path="url(#c${level - 1})"/>`).join('')}</clipPath>`;
    }
    assert.match(
      problem(
        `<svg xmlns="http://www.w3.org/2000/svg"><defs>${clips}</defs><rect width="9" height="9" clip-path="url(#c6)"/></svg>`,
      ),
      /takes more than 200000 units/,
    );
  });

  test('a reference that leads back to itself is refused: directly, through an ancestor, through a mask', () => {
    assert.match(
      problem('<svg xmlns="http://www.w3.org/2000/svg"><use id="a" href="#a"/></svg>'),
      /#a leads back to itself \(a cycle\)/,
    );
    assert.match(
      problem(
        '<svg xmlns="http://www.w3.org/2000/svg"><g id="top"><rect width="1" height="1"/><use href="#top"/></g></svg>',
      ),
      /#top leads back to itself/,
    );
    assert.match(
      problem(
        '<svg xmlns="http://www.w3.org/2000/svg"><mask id="m"><rect width="1" height="1" mask="url(#n)"/></mask><mask id="n"><rect mask="url(#m)"/></mask><rect mask="url(#m)"/></svg>',
      ),
      /leads back to itself/,
    );
  });

  test('a long chain of single references is counted without exhausting the stack', () => {
    const chain = Array.from({ length: 4000 }, (_, i) => `<use id="u${i}" href="#u${i + 1}"/>`).join('');
    assert.ok(
      !(
        'problem' in
        icon(`<svg xmlns="http://www.w3.org/2000/svg"><defs>${chain}<rect id="u4000"/></defs><use href="#u0"/></svg>`)
      ),
    );
    // Drawn in place, each of the 4,000 draws the rest of the chain: about 8 million in all.
    assert.match(
      problem(`<svg xmlns="http://www.w3.org/2000/svg">${chain}<rect id="u4000"/></svg>`),
      /takes more than 200000 units/,
    );
  });

  test('a gradient that inherits from another and is used many times is an ordinary icon', () => {
    const shapes = Array.from({ length: 200 }, (_, i) => `<rect x="${i}" width="1" height="1" fill="url(#b)"/>`).join(
      '',
    );
    const svg = `<svg xmlns="http://www.w3.org/2000/svg"><linearGradient id="a"><stop offset="0"/><stop offset="1"/></linearGradient><linearGradient id="b" href="#a"/>${shapes}</svg>`;
    assert.ok(!('problem' in icon(svg)));
  });
});

describe('app icons, bounded by what each element draws (issue 49, second trial)', () => {
  const problem = (svg: string): string => {
    const result = icon(svg);
    assert.ok('problem' in result, 'the icon was kept');
    return result.problem;
  };
  const uses = (id: string, count: number): string => `<use href="#${id}"/>`.repeat(count);
  const TOO_COSTLY = /takes more than 200000 units of drawing work/;

  test('a dash pattern of 0.001 along a few copies of a path (1 KB, a minute of Chromium) is refused', () => {
    const tinydash = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><defs><path id="p" d="M0 0L32 32L0 32L32 0Z" fill="none" stroke="#fff" stroke-width="0.05" stroke-dasharray="0.001"/></defs><defs><g id="g1">${uses('p', 10)}</g><g id="g2">${uses('g1', 10)}</g><g id="g3">${uses('g2', 10)}</g></defs>${uses('g3', 8)}</svg>`;
    assert.ok(tinydash.length < 1200);
    assert.match(problem(tinydash), TOO_COSTLY);
  });

  test('dashes inherited from a group, and dashed paths without any <use>, are counted', () => {
    const paths = Array.from({ length: 40 }, (_, i) => `<path d="M0 ${i}L32 ${i}L32 ${i + 1}Z"/>`).join('');
    assert.match(
      problem(
        `<svg xmlns="http://www.w3.org/2000/svg"><g stroke="#000" style="stroke-dasharray:0.01">${paths}</g></svg>`,
      ),
      TOO_COSTLY,
    );
  });

  test('a path of 2,000 segments drawn 8,000 times is refused; drawn a few times it is an icon', () => {
    const d = `M0 0${' L1 1 L2 0'.repeat(1000)}`;
    const many = `<svg xmlns="http://www.w3.org/2000/svg"><defs><path id="p" d="${d}"/><g id="g1">${uses('p', 20)}</g><g id="g2">${uses('g1', 20)}</g></defs>${uses('g2', 20)}</svg>`;
    assert.match(problem(many), TOO_COSTLY);
    assert.ok(
      !(
        'problem' in
        icon(`<svg xmlns="http://www.w3.org/2000/svg"><defs><path id="p" d="${d}"/></defs>${uses('p', 4)}</svg>`)
      ),
    );
  });

  test('huge text drawn thousands of times, its font size set on an ancestor, is refused', () => {
    const words = 'x'.repeat(500);
    assert.match(
      problem(
        `<svg xmlns="http://www.w3.org/2000/svg" font-size="2000"><defs><text id="t">${words}</text><g id="g">${uses('t', 20)}</g></defs>${uses('g', 20)}</svg>`,
      ),
      TOO_COSTLY,
    );
  });

  test('dash patterns that cannot be counted (%, em, calc()) are dropped; ordinary dashes are kept', () => {
    const kept = rebuilt(
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M2 2h28" stroke="#fff" stroke-dasharray="2 1"/><path d="M2 4h28" stroke-dasharray="1%" style="stroke-dasharray:1em;stroke-width:2"/></svg>',
    );
    assert.equal(
      kept.svg,
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M2 2h28" stroke="#fff" stroke-dasharray="2 1"></path><path d="M2 4h28" style="stroke-width:2"></path></svg>',
    );
  });
});
