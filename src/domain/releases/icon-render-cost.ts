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
 * Pure: it sees only the rebuilt tree (domain/releases/app-icon.ts), after the allow-list, so no
 * pattern, filter or foreign element is left to count.
 */
export interface IconElement {
  /** The element's `id`, when it has one. */
  readonly id?: string;
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

/** The ids an attribute value references: `#id` (href) or every `url(#id)` in it. */
export function referencedIds(name: string, value: string): string[] {
  if (name === 'href') return value.startsWith('#') ? [value.slice(1)] : [];
  const ids: string[] = [];
  for (const match of value.matchAll(/url\s*\(\s*['"]?#([\w.:-]+)['"]?\s*\)/gi)) ids.push(match[1] ?? '');
  return ids;
}

/**
 * The number of elements drawing `root` expands to, counting stops at `budget` (the answer is then
 * above it, not exact), or the first id found on a cycle. Each element's cost is computed once, so
 * the work is linear in the tree's size whatever the references multiply to.
 */
export function renderCost(root: IconElement, budget: number): RenderCost {
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
    let total = 1;
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
