import type { HomeView } from '../../domain/browse/browse-catalog.ts';
import type { Html } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import type { CatalogDisplay } from './app-card.ts';
import { appList } from './app-card.ts';

export function homePage(view: HomeView, context: PageContext, display: CatalogDisplay): Html {
  const s = context.t.site;
  const section = (id: string, title: string, apps: HomeView['featured']) =>
    apps.length === 0
      ? ''
      : html`<section aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${appList(apps, display.cards)}</section>`;
  return layout(
    { title: s.siteName, description: s.tagline },
    html`<h1>${s.tagline}</h1>
<p class="lead">${s.appsInStore(view.total)}</p>
${view.total === 0 ? '' : html`<p>${s.upgradeLead} <a href="/upgrade">${s.upgradeLink}</a></p>`}
${view.total === 0 ? html`<p>${s.noApps}</p><p>${s.firstApp} <a href="/developer">${s.firstAppLink}</a></p>` : ''}
${section('featured', s.featured, view.featured)}
${section('newest', s.newest, view.newest)}
${section('updated', s.updated, view.updated)}
${
  view.categories.length === 0
    ? ''
    : html`<section aria-labelledby="categories"><h2 id="categories">${s.categories}</h2>
<ul class="tags">${view.categories.map((c) => html`<li><a href="/categories/${encodeURIComponent(c.id)}">${display.categoryName(c.id)}</a> <span class="count">(${c.apps})</span></li>`)}</ul></section>`
}`,
    context,
  );
}
