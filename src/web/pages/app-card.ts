import { ratingToStars } from '../../domain/ratings/rate-app.ts';
import type { ListedApp } from '../../domain/listings/app-listing.ts';
import { textsIn } from '../../domain/browse/browse-catalog.ts';
import type { Html } from '../html.ts';
import { html } from '../html.ts';
import { STRINGS } from '../strings.ts';

/** One app in a list: its name (a link to its page), summary, first screenshot and rating. */
export function appCard(app: ListedApp, languages: readonly string[]): Html {
  const texts = textsIn(app, languages);
  const shot = app.screenshots[0];
  return html`<li class="card">
  <a class="card-link" href="/apps/${encodeURIComponent(app.id)}">
    ${shot === undefined ? '' : html`<img class="card-shot" src="${shot.smallThumbnail || shot.url}" alt="" loading="lazy" referrerpolicy="no-referrer">`}
    <span class="card-name" lang="${texts.language}">${texts.name}</span>
  </a>
  <p class="card-summary" lang="${texts.language}">${texts.summary}</p>
  <p class="card-meta">${STRINGS.rating(ratingToStars(app.ratingOverall), app.ratingNumOverall)}</p>
</li>`;
}

export function appList(apps: readonly ListedApp[], languages: readonly string[]): Html {
  return html`<ul class="cards">${apps.map((app) => appCard(app, languages))}</ul>`;
}
