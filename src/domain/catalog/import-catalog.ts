import type { Category, PlatformRelease } from './catalog.ts';
import { parseCategoryFile, parsePlatformFile } from './import-file.ts';

export interface ImportSummary {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
}

/** What the catalogue needs from storage: all-or-nothing upserts that report what they changed. */
export interface CatalogStore {
  upsertCategories(categories: readonly Category[], now: Date): Promise<ImportSummary>;
  upsertPlatformReleases(releases: readonly PlatformRelease[], now: Date): Promise<ImportSummary>;
  /** The ids of every category: what info.xml may name. */
  categoryIds(): Promise<ReadonlySet<string>>;
}

export interface CatalogDeps {
  readonly store: CatalogStore;
  readonly now: () => Date;
}

/** Validates a whole category file, then upserts it in one transaction (or refuses it whole). */
export async function importCategories(data: unknown, deps: CatalogDeps): Promise<ImportSummary> {
  return deps.store.upsertCategories(parseCategoryFile(data), deps.now());
}

/** Validates a whole platform file, then upserts it in one transaction (or refuses it whole). */
export async function importPlatformReleases(data: unknown, deps: CatalogDeps): Promise<ImportSummary> {
  return deps.store.upsertPlatformReleases(parsePlatformFile(data), deps.now());
}
