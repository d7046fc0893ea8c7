import type { Html, HtmlValue } from './html.ts';
import { html } from './html.ts';
import type { SiteStrings } from './strings.ts';

/** The heading of a column of buttons: read by screen readers, not shown. */
export const actionsHeading = (s: SiteStrings): Html => html`<span class="visually-hidden">${s.actions}</span>`;

/**
 * A data table in its scrolling region (a table wider than a phone scrolls in its own region,
 * which the keyboard can reach): the column headings, then the rows as given. `caption`
 * names it for screen readers; `className` adds to `data` (such as `audit`).
 */
export function dataTable(
  s: SiteStrings,
  options: { readonly caption?: string; readonly className?: string; readonly headings: readonly HtmlValue[] },
  rows: HtmlValue,
): Html {
  return html`<div class="scroll" tabindex="0" role="region" aria-label="${s.scrollsSideways}"><table class="data${options.className === undefined ? '' : ` ${options.className}`}">${options.caption === undefined ? '' : html`<caption class="visually-hidden">${options.caption}</caption>`}<thead><tr>${options.headings.map((heading) => html`<th scope="col">${heading}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`;
}
