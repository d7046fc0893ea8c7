import { auditEntry } from '../audit/audit.ts';
import type { Acting, AuditEntry } from '../audit/audit.ts';
import { requireAdmin } from '../accounts/authorization.ts';
import type { Category, PlatformRelease } from './catalog.ts';
import { parseCategoryFile, parsePlatformFile } from './import-file.ts';

export interface ImportSummary {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
}

/** What the catalogue needs from storage: all-or-nothing upserts that report what they changed. */
export interface CatalogStore {
  upsertCategories(categories: readonly Category[], now: Date, audit: (summary: ImportSummary) => AuditEntry): Promise<ImportSummary>;
  upsertPlatformReleases(releases: readonly PlatformRelease[], now: Date, audit: (summary: ImportSummary) => AuditEntry): Promise<ImportSummary>;
  /** The ids of every category: what info.xml may name. */
  categoryIds(): Promise<ReadonlySet<string>>;
}

export interface CatalogDeps {
  readonly store: CatalogStore;
  readonly now: () => Date;
}

/** Validates a whole category file, then upserts it in one transaction (or refuses it whole). */
export async function importCategories(data: unknown, acting: Acting, deps: CatalogDeps): Promise<ImportSummary> {
  requireAdmin(acting, 'change categories.');
  const categories = parseCategoryFile(data);
  return deps.store.upsertCategories(categories, deps.now(), (summary) => auditEntry(acting, 'categories.imported', { details: { ...summary, ids: categories.map((c) => c.id) } }));
}

/** Validates a whole platform file, then upserts it in one transaction (or refuses it whole). */
export async function importPlatformReleases(data: unknown, acting: Acting, deps: CatalogDeps): Promise<ImportSummary> {
  requireAdmin(acting, 'change platform releases.');
  const releases = parsePlatformFile(data);
  return deps.store.upsertPlatformReleases(releases, deps.now(), (summary) => auditEntry(acting, 'platforms.imported', { details: { ...summary, versions: releases.map((r) => r.version) } }));
}
