import { said } from '../../i18n/said.ts';
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
  upsertCategories(
    categories: readonly Category[],
    now: Date,
    audit: (summary: ImportSummary) => AuditEntry,
  ): Promise<ImportSummary>;
  upsertPlatformReleases(
    releases: readonly PlatformRelease[],
    now: Date,
    audit: (summary: ImportSummary) => AuditEntry,
  ): Promise<ImportSummary>;
  /** The ids of every category: what info.xml may name. */
  categoryIds(): Promise<ReadonlySet<string>>;
  /** Every category with its translations, by id. */
  categories(): Promise<Category[]>;
  /** Every platform release, supported or not, newest first. */
  platformReleases(): Promise<PlatformRelease[]>;
}

export interface CatalogDeps {
  readonly store: CatalogStore;
  readonly now: () => Date;
}

/** Validates a whole category file, then upserts it in one transaction (or refuses it whole). */
export async function importCategories(data: unknown, acting: Acting, deps: CatalogDeps): Promise<ImportSummary> {
  requireAdmin(acting, said`change categories.`);
  const categories = parseCategoryFile(data);
  return deps.store.upsertCategories(categories, deps.now(), (summary) =>
    auditEntry(acting, 'categories.imported', { details: { ...summary, ids: categories.map((c) => c.id) } }),
  );
}

/** Validates a whole platform file, then upserts it in one transaction (or refuses it whole). */
export async function importPlatformReleases(data: unknown, acting: Acting, deps: CatalogDeps): Promise<ImportSummary> {
  requireAdmin(acting, said`change platform releases.`);
  const releases = parsePlatformFile(data);
  return deps.store.upsertPlatformReleases(releases, deps.now(), (summary) =>
    auditEntry(acting, 'platforms.imported', { details: { ...summary, versions: releases.map((r) => r.version) } }),
  );
}

/** The admin pages' edit of one category's text in one language: the category's other languages stay. */
export async function saveCategoryText(
  id: string,
  language: string,
  text: { name: string; description: string },
  acting: Acting,
  deps: CatalogDeps,
): Promise<ImportSummary> {
  const existing = (await deps.store.categories()).find((category) => category.id === id);
  return importCategories(
    [
      {
        id,
        translations: {
          ...(existing?.translations ?? {}),
          [language]: { name: text.name.trim(), description: text.description.trim() },
        },
      },
    ],
    acting,
    deps,
  );
}

/** Every category with its texts, as the admin pages show them: administrators only. */
export function categoriesForAdmin(acting: Acting, deps: CatalogDeps): Promise<Category[]> {
  requireAdmin(acting, said`manage categories.`);
  return deps.store.categories();
}

/** Every platform release, supported or not: administrators only. */
export function platformsForAdmin(acting: Acting, deps: CatalogDeps): Promise<PlatformRelease[]> {
  requireAdmin(acting, said`manage Nextcloud releases.`);
  return deps.store.platformReleases();
}
