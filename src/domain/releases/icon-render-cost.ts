/**
 * What an icon costs a browser to draw (issue 49): not how many elements the file holds, but how
 * many it expands to. A `<use>` draws a copy of what it references, and so does a reference to a
 * mask or a clip path (`mask="url(#m)"`, `clip-path="url(#c)"`) or a paint server
 * (`fill="url(#g)"`); what they reference may reference again. Nine nested levels of a `<g>`
 * holding ten `<use>` of the level below is a 4 KB file that draws 10⁹ elements and freezes the
 * page that shows it. So each element costs one, plus its children, plus the full cost of each
 * element it references, counted recursively (what sits in `defs`, a symbol or a mask counts only
 * where it is referenced); a reference that leads back to an element already
 * being counted (a cycle) is refused, as browsers would refuse to draw it.
 *
 * An element costs what it draws itself, too (issue 49, second trial): a path of 2,000 segments
 * drawn 8,000 times, or a dash pattern of 0.001 along a path (150,000 dashes each), froze
 * Chromium for a minute with a 1 KB icon. So each element counts its segments, and its dashes
 * under the shortest dash period of the icon (dash patterns inherit, so the shortest one is
 * assumed everywhere).
 *
 * Pure: it sees only the rebuilt tree (domain/releases/app-icon.ts), after the allow-list, so no
 * pattern, filter or foreign element is left to count.
 */
export interface IconElement {
  /** The element's `id`, when it has one. */
  readonly id?: string;
  /**
   * What drawing the element itself costs besides its children, in units of about one path
   * segment: its segments, points or glyphs (1 for an element that draws nothing itself).
   */
  readonly segments: number;
  /**
   * An upper bound of the length of its outline in user units, for its dashes: a dash pattern of
   * period P cuts an outline of length L into L / P dashes, each drawn on its own.
   */
  readonly outline: number;
  /** Its glyphs' outline length in font sizes (text): the font size is the icon's largest, `RenderScale.fontSize`. */
  readonly glyphOutline: number;
  /** The ids it references (`href="#id"`, `url(#id)` in an attribute or style). */
  readonly references: readonly string[];
  readonly children: readonly IconElement[];
  /**
   * False for what is drawn only where it is referenced (`defs`, `symbol`, `mask`, `clipPath`,
   * gradients): in place it costs one element, and its content counts at each reference.
   */
  readonly drawnInPlace: boolean;
}

export type RenderCost = { readonly cost: number } | { readonly cycle: string };

/**
 * What every element is drawn with, as far as the cost goes: the icon's shortest dash period
 * (null: no dashes) and its largest font size. Both inherit down the tree and through `<use>`,
 * so the worst of each is assumed everywhere.
 */
export interface RenderScale {
  readonly dashPeriod: number | null;
  readonly fontSize: number;
}

/** The ids an attribute value references: `#id` (href) or every `url(#id)` in it. */
export function referencedIds(name: string, value: string): string[] {
  if (name === 'href') return value.startsWith('#') ? [value.slice(1)] : [];
  const ids: string[] = [];
  for (const match of value.matchAll(/url\s*\(\s*['"]?#([\w.:-]+)['"]?\s*\)/gi)) ids.push(match[1] ?? '');
  return ids;
}

/**
 * The work drawing `root` expands to (segments and dashes of every element drawn, through every
 * reference), counting stops at `budget` (the answer is then above it, not exact), or the first
 * id found on a cycle. `scale`: the dash period and font size assumed everywhere. Each element's
 * cost is computed once, so the work is linear in the tree's size whatever the references
 * multiply to.
 */
export function renderCost(
  root: IconElement,
  budget: number,
  scale: RenderScale = { dashPeriod: null, fontSize: 16 },
): RenderCost {
  const byId = new Map<string, IconElement>();
  const index = (element: IconElement): void => {
    // The first element with an id wins, as in a browser's getElementById.
    if (element.id !== undefined && !byId.has(element.id)) byId.set(element.id, element);
    for (const child of element.children) index(child);
  };
  index(root);
  const done = new Map<IconElement, number>();
  const counting = new Set<IconElement>();
  let cycle: string | null = null;
  const cost = (element: IconElement): number => {
    const known = done.get(element);
    if (known !== undefined) return known;
    if (counting.has(element)) {
      cycle ??= element.id ?? element.references[0] ?? '?';
      return Infinity;
    }
    counting.add(element);
    const outline = element.outline + element.glyphOutline * scale.fontSize;
    let total = Math.max(1, element.segments) + (scale.dashPeriod === null ? 0 : Math.ceil(outline / scale.dashPeriod));
    for (const child of element.children) {
      total += child.drawnInPlace ? cost(child) : 1;
      if (total > budget) break;
    }
    for (const id of element.references) {
      if (total > budget) break;
      const target = byId.get(id);
      if (target !== undefined) total += cost(target);
    }
    counting.delete(element);
    const capped = Math.min(total, budget + 1);
    done.set(element, capped);
    return capped;
  };
  const total = cost(root);
  return cycle !== null ? { cycle } : { cost: total };
}
