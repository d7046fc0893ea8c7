import type { Category, PlatformRelease } from './catalog.ts';
import { parseCategoryFile, parsePlatformFile } from './import-file.ts';

export interface ImportSummary {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
}

/** What importing needs from storage: an all-or-nothing upsert that reports what it changed. */
export interface CatalogStore {
  upsertCategories(categories: readonly Category[]): Promise<ImportSummary>;
  upsertPlatformReleases(releases: readonly PlatformRelease[]): Promise<ImportSummary>;
}

/** Validates a whole category file, then upserts it in one transaction (or refuses it whole). */
export async function importCategories(data: unknown, store: CatalogStore): Promise<ImportSummary> {
  return store.upsertCategories(parseCategoryFile(data));
}

/** Validates a whole platform file, then upserts it in one transaction (or refuses it whole). */
export async function importPlatformReleases(data: unknown, store: CatalogStore): Promise<ImportSummary> {
  return store.upsertPlatformReleases(parsePlatformFile(data));
}
