import type { HomeView } from '../../domain/browse/browse-catalog.ts';
import type { Html } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import { STRINGS } from '../strings.ts';
import type { CatalogDisplay } from './app-card.ts';
import { appList } from './app-card.ts';

export function homePage(view: HomeView, context: PageContext, display: CatalogDisplay): Html {
  const section = (id: string, title: string, apps: HomeView['featured']) =>
    apps.length === 0
      ? ''
      : html`<section aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${appList(apps, display.cards)}</section>`;
  return layout(
    { title: STRINGS.siteName, description: STRINGS.tagline },
    html`<h1>${STRINGS.tagline}</h1>
<p class="lead">${STRINGS.appsInStore(view.total)}</p>
${view.total === 0 ? '' : html`<p>${STRINGS.upgradeLead} <a href="/upgrade">${STRINGS.upgradeLink}</a></p>`}
${view.total === 0 ? html`<p>${STRINGS.noApps}</p><p>${STRINGS.firstApp} <a href="/developer">${STRINGS.firstAppLink}</a></p>` : ''}
${section('featured', STRINGS.featured, view.featured)}
${section('newest', STRINGS.newest, view.newest)}
${section('updated', STRINGS.updated, view.updated)}
${
  view.categories.length === 0
    ? ''
    : html`<section aria-labelledby="categories"><h2 id="categories">${STRINGS.categories}</h2>
<ul class="tags">${view.categories.map((c) => html`<li><a href="/categories/${encodeURIComponent(c.id)}">${display.categoryName(c.id)}</a> <span class="count">(${c.apps})</span></li>`)}</ul></section>`
}`,
    context,
  );
}
