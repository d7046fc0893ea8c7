import type { SiteStrings } from '../strings.ts';
import { ratingToStars } from '../../domain/ratings/rate-app.ts';
import type { CatalogEntry } from '../../domain/browse/catalog-entry.ts';
import { shownLanguageOf, textsIn } from '../../domain/browse/browse-catalog.ts';
import type { IconRef } from '../../domain/browse/browse-catalog.ts';
import { starRating, timeAgo } from '../catalog-display.ts';
import type { Html } from '../html.ts';
import { html, trusted } from '../html.ts';
import { textLanguage } from '../page-texts.ts';

/** What cards need besides the app: the visitor's languages, the time, and the apps' icons. */
export interface CardSetting {
  readonly languages: readonly string[];
  /** The language the site's text and dates are written in (the one the page is shown in). */
  readonly dateLanguage: string;
  readonly now: Date;
  /** App id → its icon; apps without one get the placeholder. */
  readonly icons: ReadonlyMap<string, IconRef>;
  /** The site's text in the page's language. */
  readonly strings: SiteStrings;
  /** Where the store serves its copy of a screenshot, full size and as a thumbnail; null while it has none (issue 54). */
  readonly shots: (url: string) => { readonly image: string; readonly thumbnail: string } | null;
}

/** What catalogue pages show apps with: cards, and category names in the visitor's languages. */
export interface CatalogDisplay {
  readonly cards: CardSetting;
  categoryName(id: string): string;
  /** The category's description in the page's language ('' when it has none). */
  categoryDescription(id: string): string;
}

/** Where an icon is served: its content hash in the address, so browsers may keep it for a year. */
export const iconAddress = (hash: string): string => `/icons/${hash}.svg`;

/** The app's icon, or a neutral placeholder; decorative (the name is next to it). */
export function appIcon(appId: string, icons: ReadonlyMap<string, IconRef>, size: 'small' | 'large' = 'small'): Html {
  const icon = icons.get(appId);
  const pixels = size === 'small' ? 32 : 64;
  return icon === undefined
    ? html`<span class="icon icon-${size} icon-none" aria-hidden="true"></span>`
    : html`<img class="icon icon-${size}${icon.dark ? ' icon-dark' : ''}" src="${iconAddress(icon.hash)}" alt="" width="${pixels}" height="${pixels}">`;
}

/** Each entry's card as far as its date, by the language of its texts, the page's, and its screenshot's copy: made once per entry (a catalogue's entries live as long as it). */
const cardsOf = new WeakMap<CatalogEntry, Map<string, string>>();

/**
 * One app in a list: its first screenshot (or its icon on a plain panel, so every card has the
 * same shape), icon and name (a link to its page), summary, stars and when it was last updated.
 * All but "updated … ago" is rendered once per entry and language.
 */
export function appCard(app: CatalogEntry, setting: CardSetting): Html {
  const s = setting.strings;
  const shot = app.shot === null ? null : setting.shots(app.shot);
  const language = `${shownLanguageOf(app, setting.languages)} ${setting.dateLanguage} ${shot === null ? '' : shot.thumbnail}`;
  let cards = cardsOf.get(app);
  if (cards === undefined) cardsOf.set(app, (cards = new Map()));
  let head = cards.get(language);
  if (head === undefined) {
    const texts = textsIn(app, setting.languages);
    head = html`<li class="card">
  <a class="card-link" href="/apps/${encodeURIComponent(app.id)}">
    ${shot === null ? html`<span class="card-shot card-shot-none">${appIcon(app.id, setting.icons, 'large')}</span>` : html`<img class="card-shot" src="${shot.thumbnail}" alt="" loading="lazy">`}
    <span class="card-title">${appIcon(app.id, setting.icons)}<span class="card-name"${textLanguage(texts.language)}>${texts.name}</span>${app.isDeprecated ? html` <span class="mark">${s.deprecatedMark}</span>` : ''}</span>
  </a>
  <p class="card-summary"${textLanguage(texts.language)}>${texts.summary}</p>
  <p class="card-meta">${starRating(s, ratingToStars(app.ratingOverall), app.ratingNumOverall)} · `.text;
    cards.set(language, head);
  }
  return html`${trusted(head)}${updated(app, setting)}</p>
</li>`;
}

type Rated = Pick<CatalogEntry, 'ratingOverall' | 'ratingNumOverall' | 'lastModified'>;

/** When the app was last updated ("Updated 3 days ago"). */
function updated(app: Rated, setting: CardSetting): Html {
  return html`<time datetime="${app.lastModified}">${setting.strings.updatedAgo(timeAgo(app.lastModified, setting.now, setting.dateLanguage))}</time>`;
}

/** The app's stars and when it was last updated: under the app page's title. */
export function ratedAndUpdated(app: Rated, setting: CardSetting): Html {
  return html`${starRating(setting.strings, ratingToStars(app.ratingOverall), app.ratingNumOverall)} · ${updated(app, setting)}`;
}

export function appList(apps: readonly CatalogEntry[], setting: CardSetting): Html {
  return html`<ul class="cards">${apps.map((app) => appCard(app, setting))}</ul>`;
}
