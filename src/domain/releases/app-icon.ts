import { createHash } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { referencedIds, renderCost } from './icon-render-cost.ts';
import type { IconElement, RenderScale } from './icon-render-cost.ts';
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
 * The most drawing work an icon may take (icon-render-cost.ts), in units of about one path
 * segment or dash: every element drawn, with its segments, points, glyphs and dashes, each
 * `<use>` or mask, clip-path or paint reference counted as what it expands to. A real icon takes
 * hundreds to a few thousand; Chromium draws about 200,000 in a few hundred milliseconds (a
 * minute took 150 million dashes, or 16 million segments).
 */
const MAX_RENDERED_COST = 200_000;

const ELEMENTS = new Set([
  'svg',
  'g',
  'path',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'defs',
  'linearGradient',
  'radialGradient',
  'stop',
  'clipPath',
  'mask',
  'symbol',
  'use',
  'title',
  'desc',
  'text',
  'tspan',
]);
/** Drawn only where referenced, never in place. */
const TEMPLATES = new Set(['defs', 'symbol', 'mask', 'clipPath', 'linearGradient', 'radialGradient']);
const TEXT_ELEMENTS = new Set(['title', 'desc', 'text', 'tspan']);

const ATTRIBUTES = new Set([
  'id',
  'd',
  'x',
  'y',
  'x1',
  'y1',
  'x2',
  'y2',
  'cx',
  'cy',
  'r',
  'rx',
  'ry',
  'fx',
  'fy',
  'fr',
  'width',
  'height',
  'viewBox',
  'points',
  'transform',
  'fill',
  'fill-opacity',
  'fill-rule',
  'stroke',
  'stroke-width',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-opacity',
  'stroke-dasharray',
  'stroke-dashoffset',
  'stroke-miterlimit',
  'opacity',
  'offset',
  'stop-color',
  'stop-opacity',
  'gradientUnits',
  'gradientTransform',
  'spreadMethod',
  'clip-path',
  'clip-rule',
  'mask',
  'maskUnits',
  'maskContentUnits',
  'clipPathUnits',
  'preserveAspectRatio',
  'color',
  'display',
  'visibility',
  'font-size',
  'font-family',
  'font-weight',
  'font-style',
  'text-anchor',
  'dominant-baseline',
  'letter-spacing',
  'style',
  'href',
  'xlink:href',
  'version',
]);

/** Style properties kept from `style` attributes: drawing only. */
const STYLE_PROPERTIES = new Set([
  'fill',
  'fill-opacity',
  'fill-rule',
  'stroke',
  'stroke-width',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-opacity',
  'stroke-dasharray',
  'stroke-dashoffset',
  'stroke-miterlimit',
  'opacity',
  'stop-color',
  'stop-opacity',
  'color',
  'display',
  'visibility',
  'clip-rule',
  'font-size',
  'font-family',
  'font-weight',
  'font-style',
  'text-anchor',
  'letter-spacing',
]);

const escapeXml = (text: string): string =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);

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
    .filter(
      ([property, value]) =>
        STYLE_PROPERTIES.has(property) &&
        value !== '' &&
        safeValue(value) &&
        (property !== 'stroke-dasharray' || countableDashes(value)),
    )
    .map(([property, value]) => `${property}:${value}`);
  return kept.length === 0 ? null : kept.join(';');
}

/** The element without its namespace prefix when it is SVG's own (`svg:path` → `path`). */
const localName = (name: string): string => (name.startsWith('svg:') ? name.slice(4) : name);

/** A dash pattern whose dashes can be counted: none, zeros (solid), or plain numbers (not %, em, calc()). */
const countableDashes = (value: string): boolean =>
  value.trim() === 'none' || /^[\s0.,]+$/.test(value) || dashPeriodOf(value) !== null;

/** Every number in a text (path data, points): what the cost estimates read. */
const numbersIn = (text: string): number[] =>
  (text.match(/[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g) ?? []).map(Number).filter(Number.isFinite);
const sumOf = (values: readonly number[]): number => values.reduce((total, value) => total + Math.abs(value), 0);
const numberOf = (value: string | undefined): number => Math.abs(numbersIn(value ?? '')[0] ?? 0);

/** A property's value in a (kept) style attribute: `property:value` declarations joined by `;`. */
function styleValue(style: string | undefined, name: string): string | undefined {
  return (style ?? '')
    .split(';')
    .find((declaration) => declaration.startsWith(`${name}:`))
    ?.slice(name.length + 1);
}

/** A dash pattern that draws dashes: plain numbers, whose period is above zero; its period, else null. */
function dashPeriodOf(value: string | undefined): number | null {
  if (value === undefined || !/^\s*[\d.]+(?:(?:\s*,\s*|\s+)[\d.]+)*\s*$/.test(value)) return null;
  const lengths = numbersIn(value);
  const period = sumOf(lengths) * (lengths.length % 2 === 1 ? 2 : 1);
  return period > 0 ? period : null;
}

/**
 * What an element draws itself (icon-render-cost.ts): its segments, and an upper bound of its
 * outline's length in user units (each coordinate's size counted, whatever the commands: a
 * segment is never longer than the sum of its coordinates' sizes).
 */
function drawing(
  name: string,
  attributes: ReadonlyMap<string, string>,
  text: string,
): { segments: number; outline: number; glyphOutline: number } {
  const n = (attribute: string) => numberOf(attributes.get(attribute));
  switch (name) {
    case 'path': {
      const data = attributes.get('d') ?? '';
      const numbers = numbersIn(data);
      return {
        segments: (data.match(/[MLHVCSQTAZ]/gi) ?? []).length + Math.ceil(numbers.length / 2),
        outline: 4 * sumOf(numbers),
        glyphOutline: 0,
      };
    }
    case 'polyline':
    case 'polygon': {
      const points = numbersIn(attributes.get('points') ?? '');
      return { segments: Math.ceil(points.length / 2), outline: 2 * sumOf(points), glyphOutline: 0 };
    }
    case 'rect':
      return { segments: 8, outline: 2 * (n('width') + n('height')), glyphOutline: 0 };
    case 'circle':
      return { segments: 4, outline: 2 * Math.PI * n('r'), glyphOutline: 0 };
    case 'ellipse':
      return { segments: 4, outline: 2 * Math.PI * Math.max(n('rx'), n('ry')), glyphOutline: 0 };
    case 'line':
      return { segments: 1, outline: n('x1') + n('x2') + n('y1') + n('y2'), glyphOutline: 0 };
    case 'text':
    case 'tspan':
      // A glyph is an outline of tens of segments, a few times the font size long.
      return { segments: 10 * text.length, outline: 0, glyphOutline: 10 * text.length };
    default:
      return { segments: 0, outline: 0, glyphOutline: 0 };
  }
}

/** An element kept by the allow-list: its text is built, its references recorded for the cost. */
interface KeptElement extends IconElement {
  readonly name: string;
  readonly attributes: string;
  readonly text: string;
  readonly children: readonly KeptElement[];
}

/** The state of one rebuild: elements left, the shortest dash period and the largest font size met. */
interface Rebuilding {
  left: number;
  dashPeriod: number | null;
  fontSize: number;
}

/** A font size in user units: plain numbers and px; anything else (em, %, calc()) is not known here and taken as large. */
const fontSizeOf = (value: string): number => (/^\s*[\d.]+\s*(px)?\s*$/.test(value) ? numberOf(value) : 1000);

function rebuild(node: XmlNode, budget: Rebuilding): KeptElement | null {
  const name = localName(node.name);
  if (!ELEMENTS.has(name) || budget.left <= 0) return null;
  budget.left -= 1;
  let attributes = name === 'svg' ? ' xmlns="http://www.w3.org/2000/svg"' : '';
  let id: string | undefined;
  const references: string[] = [];
  const values = new Map<string, string>();
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
    // A dash pattern only of plain numbers (not %, em or calc(), whose dashes cannot be counted).
    if (raw === 'stroke-dasharray' && !countableDashes(kept)) continue;
    attributes += ` ${raw}="${escapeXml(kept)}"`;
    values.set(raw, kept);
    if (raw === 'id') id = kept;
    else references.push(...referencedIds(raw, kept));
  }
  const style = values.get('style');
  for (const pattern of [values.get('stroke-dasharray'), styleValue(style, 'stroke-dasharray')]) {
    const period = dashPeriodOf(pattern);
    if (period !== null) budget.dashPeriod = Math.min(budget.dashPeriod ?? period, period);
  }
  for (const size of [values.get('font-size'), styleValue(style, 'font-size')])
    if (size !== undefined) budget.fontSize = Math.max(budget.fontSize, fontSizeOf(size));
  const rawText = TEXT_ELEMENTS.has(name) ? node.text.trim().slice(0, 500) : '';
  const text = escapeXml(rawText);
  const children = node.children.map((child) => rebuild(child, budget)).filter((child) => child !== null);
  return {
    name,
    attributes,
    text,
    children,
    references,
    drawnInPlace: !TEMPLATES.has(name),
    ...drawing(name, values, rawText),
    ...(id === undefined ? {} : { id }),
  };
}

const serialise = (element: KeptElement): string =>
  `<${element.name}${element.attributes}>${element.text}${element.children.map(serialise).join('')}</${element.name}>`;

/**
 * Why `root` would cost a browser too much to draw, or null. Shared by the publish and by the
 * migration that checks icons stored before the rendered cost was bounded.
 */
function renderProblem(root: IconElement, file: string, scale: RenderScale): string | null {
  const result = renderCost(root, MAX_RENDERED_COST, scale);
  if ('cycle' in result)
    return `${file}: the reference to #${result.cycle.slice(0, 60)} leads back to itself (a cycle); remove it`;
  if (result.cost > MAX_RENDERED_COST) {
    return `${file} takes more than ${MAX_RENDERED_COST} units of drawing work (elements, path segments, glyphs and dashes, counted through every <use>, mask and clip-path reference); an icon this costly would freeze the pages that show it`;
  }
  return null;
}

/**
 * The icon rebuilt from `bytes` (an SVG file from the archive), or why it was left out. The XML
 * parser refuses a DOCTYPE, so entity expansion (an XML bomb) and external entities cannot happen.
 */
export function sanitiseIcon(
  bytes: Buffer,
  dark: boolean,
  maxBytes: number,
  parse: (bytes: Buffer, file: string) => XmlNode,
): AppIcon | { readonly problem: string } {
  const file = dark ? 'img/app-dark.svg' : 'img/app.svg';
  if (bytes.length > maxBytes) return { problem: `${file} is larger than ${Math.round(maxBytes / 1024)} KiB` };
  let root: XmlNode;
  try {
    root = parse(bytes, file);
  } catch (error) {
    return { problem: error instanceof AppError ? error.detail : `${file} could not be read` };
  }
  if (localName(root.name) !== 'svg')
    return { problem: `${file}: the root element is <${root.name.slice(0, 40)}>, not <svg>` };
  const budget: Rebuilding = { left: MAX_ELEMENTS, dashPeriod: null, fontSize: 16 };
  const kept = rebuild(root, budget);
  if (budget.left <= 0 || kept === null) return { problem: `${file} has more than ${MAX_ELEMENTS} elements` };
  const problem = renderProblem(kept, file, budget);
  if (problem !== null) return { problem };
  const svg = serialise(kept);
  return { svg, hash: createHash('sha256').update(svg).digest('hex').slice(0, 32), dark };
}
