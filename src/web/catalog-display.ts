import type { SiteStrings } from './strings.ts';
import type { NextcloudRange } from '../domain/browse/browse-catalog.ts';
import { remember } from '../domain/bounded-map.ts';
import type { Html } from './html.ts';
import { html } from './html.ts';

/**
 * One formatter per kind and language, made on first use: pages render dozens of dates per view
 * and an Intl formatter costs far more to make than to use. The languages are those of the
 * catalogue and of Accept-Language (a bounded set of valid tags).
 */
function cached<T>(make: (tag: string) => T): (tag: string) => T {
  const made = new Map<string, T>();
  return (tag) => {
    let formatter = made.get(tag);
    if (formatter === undefined) {
      formatter = make(tag);
      if (made.size < 200) made.set(tag, formatter);
    }
    return formatter;
  };
}

const relativeTime = cached((tag) => new Intl.RelativeTimeFormat(tag, { numeric: 'auto' }));
const mediumDate = cached((tag) => new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeZone: 'UTC' }));
const dayMonth = cached((tag) => new Intl.DateTimeFormat(tag, { day: 'numeric', month: 'short', timeZone: 'UTC' }));
const wholeNumber = cached((tag) => new Intl.NumberFormat(tag, { maximumFractionDigits: 0 }));
const ownName = cached((tag): string | null => {
  const name = new Intl.DisplayNames([tag], { type: 'language', fallback: 'none' }).of(tag);
  return name === undefined || name === '' ? null : name.charAt(0).toLocaleUpperCase(tag) + name.slice(1);
});

/** `pt_BR` → `pt-BR`: the BCP 47 tag Intl expects; null for what Intl cannot read. */
function bcp47(language: string): string | null {
  const tag = language.replace('_', '-');
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? null;
  } catch {
    return null;
  }
}

/** A language by its own name, as its speakers write it (Deutsch, English, français); the code when unknown. */
export function languageName(language: string): string {
  const tag = bcp47(language);
  if (tag === null) return language;
  try {
    return ownName(tag) ?? language;
  } catch {
    return language;
  }
}

const DAY = 86_400_000;

/** How long ago `iso` was, in words of `language`: today, yesterday, 3 days ago, 2 months ago. */
export function timeAgo(iso: string, now: Date, language: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  const days = Math.max(0, Math.floor((now.getTime() - at) / DAY));
  const key = `${language} ${days}`;
  let text = agoTexts.get(key);
  if (text === undefined) {
    const format = relativeTime(bcp47(language) ?? 'en');
    text =
      days < 45
        ? format.format(-days, 'day')
        : days < 365
          ? format.format(-Math.round(days / 30.44), 'month')
          : format.format(-Math.round(days / 365.25), 'year');
    remember(agoTexts, key, text, 4096);
  }
  return text;
}

/** "3 days ago" by language and days: every card of every page writes one. */
const agoTexts = new Map<string, string>();

/** A count as the language writes it: 12,345 in English, 12.345 in German. */
export function countText(value: number, language: string): string {
  return wholeNumber(bcp47(language) ?? 'en').format(value);
}

/** A date as people of `language` write it (24 Nov 2026, 24.11.2026). */
export function shortDate(iso: string, language: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  return mediumDate(bcp47(language) ?? 'en').format(at);
}

/**
 * A rating as five stars, filled to the nearest half (CSS only: the page allows no inline style),
 * with its text alternative and the count beside it. `stars` from 1 to 5.
 */
export function starRating(s: SiteStrings, stars: number, count: number): Html {
  if (count === 0)
    return html`<span class="rating"><span class="stars s0" aria-hidden="true"></span> ${s.notRated}</span>`;
  const halves = Math.min(10, Math.max(0, Math.round(stars * 2)));
  return html`<span class="rating"><span class="stars s${halves * 5}" role="img" aria-label="${s.starsAlt(stars)}"></span> <span class="count">(${count})</span></span>`;
}

/** A range of Nextcloud versions, written the one way every page writes it ("29 to 32"). */
export function rangeText(s: SiteStrings, range: NextcloudRange): string {
  return s.versionRange(range.min, range.max);
}

/** A day without its year, as `language` writes it ("9 Nov", "9. Nov.", "11月9日"): for recent weeks. */
export function dayAndMonth(iso: string, language: string): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return '';
  return dayMonth(bcp47(language) ?? 'en').format(at);
}
