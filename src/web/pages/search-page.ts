import type { SearchQuery, SearchResult } from '../../domain/browse/search-catalog.ts';
import type { Sort } from '../../domain/browse/search-index.ts';
import { defaultSort, SORTS } from '../../domain/browse/search-index.ts';
import type { Html } from '../html.ts';
import type { SiteStrings } from '../strings.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import type { CatalogDisplay } from './app-card.ts';
import { appList } from './app-card.ts';

const SORT_LABELS = {
  relevance: 'sortRelevance',
  rating: 'sortRating',
  newest: 'sortNewest',
  updated: 'sortUpdated',
  name: 'sortName',
} as const satisfies Record<Sort, keyof SiteStrings>;

/** The query string of this search on another page. */
function pageLink(query: SearchQuery, page: number): string {
  const params = new URLSearchParams();
  if (query.text !== '') params.set('q', query.text);
  if (query.category !== null) params.set('category', query.category);
  if (query.nextcloud !== null) params.set('nextcloud', query.nextcloud);
  if (query.featuredOnly) params.set('featured', '1');
  if (query.deprecated) params.set('deprecated', '1');
  if (query.sort !== defaultSort(query.text)) params.set('sort', query.sort);
  if (page > 1) params.set('page', String(page));
  const text = params.toString();
  return `/search${text === '' ? '' : `?${text}`}`;
}

export function searchPage(
  query: SearchQuery,
  result: SearchResult,
  categories: readonly string[],
  context: PageContext,
  display: CatalogDisplay,
): Html {
  const s = context.t.site;
  const title =
    query.category !== null && query.text === ''
      ? s.categoryTitle(display.categoryName(query.category))
      : query.text === ''
        ? s.allApps
        : s.resultsFor(query.text);
  return layout(
    { title },
    html`<h1>${title}</h1>
${query.category === null || query.text !== '' || display.categoryDescription(query.category) === '' ? '' : html`<p class="lead">${display.categoryDescription(query.category)}</p>`}
<form class="filters" action="/search" method="get" role="search" aria-label="${s.filters}">
  ${query.text === '' ? '' : html`<input type="hidden" name="q" value="${query.text}">`}
  <p><label for="category">${s.category}</label>
  <select id="category" name="category"><option value="">${s.allCategories}</option>${categories.map((id) => html`<option value="${id}"${query.category === id ? html` selected` : ''}>${display.categoryName(id)}</option>`)}</select></p>
  <p><label for="nextcloud">${s.supportsNextcloud}</label> <input id="nextcloud" name="nextcloud" inputmode="decimal" placeholder="30" value="${query.nextcloud ?? ''}" size="8" maxlength="20"></p>
  <p><input id="featured" name="featured" type="checkbox" value="1"${query.featuredOnly ? html` checked` : ''}> <label for="featured">${s.featuredOnly}</label></p>
  <p><input id="deprecated" name="deprecated" type="checkbox" value="1"${query.deprecated ? html` checked` : ''}> <label for="deprecated">${s.includeDeprecated}</label></p>
  <p><label for="sort">${s.sortBy}</label>
  <select id="sort" name="sort">${SORTS.filter((sort) => sort !== 'relevance' || query.text !== '').map((sort) => html`<option value="${sort}"${query.sort === sort ? html` selected` : ''}>${s[SORT_LABELS[sort]]}</option>`)}</select></p>
  <p><button type="submit">${s.apply}</button></p>
</form>
<p class="lead" role="status">${s.found(result.total)}</p>
${result.apps.length === 0 ? html`<p>${s.nothingFound}</p>` : appList(result.apps, display.cards)}
${
  result.pages <= 1
    ? ''
    : html`<nav class="pager" aria-label="${s.pages}"><ul>
${result.page > 1 ? html`<li><a rel="prev" href="${pageLink(query, result.page - 1)}">${s.previous}</a></li>` : ''}
<li aria-current="page">${s.pageOf(result.page, result.pages)}</li>
${result.page < result.pages ? html`<li><a rel="next" href="${pageLink(query, result.page + 1)}">${s.next}</a></li>` : ''}
</ul></nav>`
}`,
    context,
  );
}
