import type { CatalogDeps } from '../catalog/import-catalog.ts';
import { DEFAULT_CATEGORY_IDS } from '../catalog/default-categories.ts';
import { readRelease } from './read-release.ts';
import type { ReleaseCandidate } from './release-data.ts';

export interface Inspection {
  readonly candidate: ReleaseCandidate;
  /** True when the store has no categories yet and the Nextcloud app store's list was used. */
  readonly defaultCategories: boolean;
}

/**
 * `appstore release inspect`: the release reader on a local archive, with the store's categories
 * (or, before it has any, the Nextcloud app store's), so a developer sees what publishing will say.
 */
export async function inspectRelease(
  bytes: Buffer,
  nightly: boolean,
  deps: Pick<CatalogDeps, 'store'>,
): Promise<Inspection> {
  const stored = await deps.store.categoryIds();
  const defaultCategories = stored.size === 0;
  const candidate = await readRelease(bytes, {
    nightly,
    validCategories: defaultCategories ? new Set(DEFAULT_CATEGORY_IDS) : stored,
  });
  return { candidate, defaultCategories };
}
