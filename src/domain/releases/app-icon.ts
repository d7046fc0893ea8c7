import { createHash } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { referencedIds, renderCost } from './icon-render-cost.ts';
import type { IconElement } from './icon-render-cost.ts';
import type { XmlNode } from './xml-document.ts';

/**
 * App icons (issue 28). Nextcloud apps ship `img/app.svg` (drawn light, for Nextcloud's coloured
 * header) and often `img/app-dark.svg` (drawn dark, for light backgrounds). An SVG is a document
 * that can run scripts and fetch other addresses, so the store never serves what the archive
 * holds: it rebuilds the icon from an allow-list of drawing elements and attributes, and drops
 * everything else (scripts, event handlers, foreign objects, images, links, animations, styles,
 * references outside the icon). The served file also carries its own strict CSP
 * (docs/decisions.md), so a mistake here is still inert.
 */
export interface AppIcon {
  /** The rebuilt SVG. */
  readonly svg: string;
  /** The first 32 hex digits of its SHA-256: its address, so it can be cached for a year. */
  readonly hash: string;
  /** True when drawn dark (app-dark.svg): shown on a light background; else on the accent colour. */
  readonly dark: boolean;
}

/** Elements in the rebuilt icon at most: a drawing this busy is not an icon. */
const MAX_ELEMENTS = 5000;
/**
 * Elements drawn at most, each `<use>` or mask, clip-path or paint reference counted as what it
 * expands to (icon-render-cost.ts): a real icon draws tens to hundreds; 20,000 simple shapes draw
 * in a few milliseconds.
 */
const MAX_RENDERED_ELEMENTS = 20_000;

const ELEMENTS = new Set([
  'svg', 'g', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'defs', 'linearGradient', 'radialGradient', 'stop',
  'clipPath', 'mask', 'symbol', 'use', 'title', 'desc', 'text', 'tspan',
]);
/** Drawn only where referenced, never in place. */
const TEMPLATES = new Set(['defs', 'symbol', 'mask', 'clipPath', 'linearGradient', 'radialGradient']);
const TEXT_ELEMENTS = new Set(['title', 'desc', 'text', 'tspan']);

const ATTRIBUTES = new Set([
  'id', 'd', 'x', 'y', 'x1', 'y1', 'x2', 'y2', 'cx', 'cy', 'r', 'rx', 'ry', 'fx', 'fy', 'fr', 'width', 'height', 'viewBox', 'points',
  'transform', 'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-linecap', 'stroke-linejoin', 'stroke-opacity',
  'stroke-dasharray', 'stroke-dashoffset', 'stroke-miterlimit', 'opacity', 'offset', 'stop-color', 'stop-opacity', 'gradientUnits',
  'gradientTransform', 'spreadMethod', 'clip-path', 'clip-rule', 'mask', 'maskUnits', 'maskContentUnits', 'clipPathUnits',
  'preserveAspectRatio', 'color', 'display', 'visibility', 'font-size', 'font-family', 'font-weight', 'font-style', 'text-anchor',
  'dominant-baseline', 'letter-spacing', 'style', 'href', 'xlink:href', 'version',
]);

/** Style properties kept from `style` attributes: drawing only. */
const STYLE_PROPERTIES = new Set([
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-linecap', 'stroke-linejoin', 'stroke-opacity', 'stroke-dasharray',
  'stroke-dashoffset', 'stroke-miterlimit', 'opacity', 'stop-color', 'stop-opacity', 'color', 'display', 'visibility', 'clip-rule',
  'font-size', 'font-family', 'font-weight', 'font-style', 'text-anchor', 'letter-spacing',
]);

const escapeXml = (text: string): string => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

/** A value that refers only inside the icon: `url(#id)` and nothing else that names a resource. */
function safeValue(value: string): boolean {
  if (/[<>]|\\|expression\s*\(|javascript:|@import/i.test(value)) return false;
  const urls = value.match(/url\s*\([^)]*\)/gi) ?? [];
  return urls.every((url) => /^url\s*\(\s*['"]?#[\w.:-]+['"]?\s*\)$/i.test(url));
}

function safeStyle(style: string): string | null {
  const kept = style
    .split(';')
    .map((declaration) => declaration.split(':'))
    .filter((parts): parts is [string, string] => parts.length === 2)
    .map(([property, value]) => [property.trim().toLowerCase(), value.trim()] as const)
    .filter(([property, value]) => STYLE_PROPERTIES.has(property) && value !== '' && safeValue(value))
    .map(([property, value]) => `${property}:${value}`);
  return kept.length === 0 ? null : kept.join(';');
}

/** The element without its namespace prefix when it is SVG's own (`svg:path` → `path`). */
const localName = (name: string): string => (name.startsWith('svg:') ? name.slice(4) : name);

/** An element kept by the allow-list: its text is built, its references recorded for the cost. */
interface KeptElement extends IconElement {
  readonly name: string;
  readonly attributes: string;
  readonly text: string;
  readonly children: readonly KeptElement[];
}

function rebuild(node: XmlNode, budget: { left: number }): KeptElement | null {
  const name = localName(node.name);
  if (!ELEMENTS.has(name) || budget.left <= 0) return null;
  budget.left -= 1;
  let attributes = name === 'svg' ? ' xmlns="http://www.w3.org/2000/svg"' : '';
  let id: string | undefined;
  const references: string[] = [];
  for (const [raw, value] of Object.entries(node.attributes)) {
    if (!ATTRIBUTES.has(raw)) continue;
    if (raw === 'href' || raw === 'xlink:href') {
      // Only a reference to an element of the icon itself (a gradient, a symbol).
      if (/^#[\w.:-]+$/.test(value)) {
        attributes += ` href="${escapeXml(value)}"`;
        references.push(...referencedIds('href', value));
      }
      continue;
    }
    const kept = raw === 'style' ? safeStyle(value) : safeValue(value) ? value : null;
    if (kept === null) continue;
    attributes += ` ${raw}="${escapeXml(kept)}"`;
    if (raw === 'id') id = kept;
    else references.push(...referencedIds(raw, kept));
  }
  const text = TEXT_ELEMENTS.has(name) ? escapeXml(node.text.trim().slice(0, 500)) : '';
  const children = node.children.map((child) => rebuild(child, budget)).filter((child) => child !== null);
  return { name, attributes, text, children, references, drawnInPlace: !TEMPLATES.has(name), ...(id === undefined ? {} : { id }) };
}

const serialise = (element: KeptElement): string =>
  `<${element.name}${element.attributes}>${element.text}${element.children.map(serialise).join('')}</${element.name}>`;

/**
 * Why `root` would cost a browser too much to draw, or null. Shared by the publish and by the
 * migration that checks icons stored before the rendered cost was bounded.
 */
function renderProblem(root: IconElement, file: string): string | null {
  const result = renderCost(root, MAX_RENDERED_ELEMENTS);
  if ('cycle' in result) return `${file}: the reference to #${result.cycle.slice(0, 60)} leads back to itself (a cycle); remove it`;
  if (result.cost > MAX_RENDERED_ELEMENTS) {
    return `${file} draws more than ${MAX_RENDERED_ELEMENTS} elements once its <use>, mask and clip-path references are expanded; an icon this costly would freeze the pages that show it`;
  }
  return null;
}

/**
 * The icon rebuilt from `bytes` (an SVG file from the archive), or why it was left out. The XML
 * parser refuses a DOCTYPE, so entity expansion (an XML bomb) and external entities cannot happen.
 */
export function sanitiseIcon(bytes: Buffer, dark: boolean, maxBytes: number, parse: (bytes: Buffer, file: string) => XmlNode): AppIcon | { readonly problem: string } {
  const file = dark ? 'img/app-dark.svg' : 'img/app.svg';
  if (bytes.length > maxBytes) return { problem: `${file} is larger than ${Math.round(maxBytes / 1024)} KiB` };
  let root: XmlNode;
  try {
    root = parse(bytes, file);
  } catch (error) {
    return { problem: error instanceof AppError ? error.detail : `${file} could not be read` };
  }
  if (localName(root.name) !== 'svg') return { problem: `${file}: the root element is <${root.name.slice(0, 40)}>, not <svg>` };
  const budget = { left: MAX_ELEMENTS };
  const kept = rebuild(root, budget);
  if (budget.left <= 0 || kept === null) return { problem: `${file} has more than ${MAX_ELEMENTS} elements` };
  const problem = renderProblem(kept, file);
  if (problem !== null) return { problem };
  const svg = serialise(kept);
  return { svg, hash: createHash('sha256').update(svg).digest('hex').slice(0, 32), dark };
}
