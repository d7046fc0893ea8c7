import type { Html, HtmlValue } from './html.ts';
import { html } from './html.ts';

/** A table wider than a phone scrolls in its own region, which the keyboard can reach. */
export const SCROLL_LABEL = 'Table (scrolls sideways)';

/** The heading of a column of buttons: read by screen readers, not shown. */
export const ACTIONS_HEADING = html`<span class="visually-hidden">Actions</span>`;

/**
 * A data table in its scrolling region: the column headings, then the rows as given. `caption`
 * names it for screen readers; `className` adds to `data` (such as `audit`).
 */
export function dataTable(
  options: { readonly caption?: string; readonly className?: string; readonly headings: readonly HtmlValue[] },
  rows: HtmlValue,
): Html {
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${SCROLL_LABEL}"><table class="data${options.className === undefined ? '' : ` ${options.className}`}">${options.caption === undefined ? '' : html`<caption class="visually-hidden">${options.caption}</caption>`}<thead><tr>${options.headings.map((heading) => html`<th scope="col">${heading}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}
