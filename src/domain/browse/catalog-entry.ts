import type { AppTranslation } from '../releases/release-data.ts';
import { parseSpec } from '../versions/semantic-version.ts';
import type { SpecBounds } from '../versions/semantic-version.ts';

/**
 * One listed app as the catalogue pages hold it between page views: what cards, the home page,
 * search filters and sorted orders need, and nothing else (no releases, no descriptions, no
 * certificate). An app page reads the rest on demand (browse-catalog.ts, AppDetails).
 */
export interface CatalogEntry {
  readonly id: string;
  /** Names and summaries by language. */
  readonly translations: Readonly<Record<string, { readonly name: string; readonly summary: string }>>;
  readonly categories: readonly string[];
  readonly isFeatured: boolean;
  /** Deprecated by its owner: off the home page and out of a search unless asked for (issue 52). */
  readonly isDeprecated: boolean;
  readonly ratingOverall: number;
  readonly ratingNumOverall: number;
  readonly created: string;
  readonly lastModified: string;
  /** The first screenshot's address (pages show the store's thumbnail of it); null without screenshots. */
  readonly shot: string | null;
  /** The distinct Nextcloud ranges of its releases: what the "supports Nextcloud" filter checks. */
  readonly platforms: readonly SpecBounds[];
}

/** What an entry and the search index are made from (read from storage, then dropped): the entry's facts with the descriptions, and the ranges as written. */
export interface EntrySource extends Omit<CatalogEntry, 'translations' | 'platforms'> {
  readonly translations: Readonly<Record<string, AppTranslation>>;
  readonly platformVersionSpecs: readonly string[];
}

export function catalogEntry(source: EntrySource): CatalogEntry {
  const { translations, platformVersionSpecs, ...rest } = source;
  return {
    ...rest,
    translations: Object.fromEntries(
      Object.entries(translations).map(([language, t]) => [language, { name: t.name, summary: t.summary }]),
    ),
    platforms: platformVersionSpecs.map(parseSpec),
  };
}
