/** Categories and platform releases: the store's reference data, managed by administrators. */

export interface CategoryTranslation {
  readonly name: string;
  readonly description: string;
}

export interface Category {
  readonly id: string;
  /** Language code → text; always has `en`. */
  readonly translations: Readonly<Record<string, CategoryTranslation>>;
}

export interface PlatformRelease {
  /** `X.Y.Z`, digits only. */
  readonly version: string;
  readonly hasRelease: boolean;
  readonly isSupported: boolean;
}

export const CATEGORY_ID_PATTERN = /^[a-z][a-z0-9_-]{0,63}$/;
export const LANGUAGE_CODE_PATTERN = /^[A-Za-z]{2,3}(?:[_-][A-Za-z0-9]{1,8}){0,3}$/;

/** Listing order of categories.json: by id. */
export function sortCategories(categories: readonly Category[]): Category[] {
  return [...categories].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
