import type { Kysely, Transaction } from 'kysely';
import type { Category, CategoryTranslation } from '../../domain/catalog/catalog.ts';
import type { ImportSummary } from '../../domain/catalog/import-catalog.ts';
import type { Database } from '../schema.ts';
import { formatTimestamp } from '../../domain/timestamps.ts';
import { writeTransaction } from '../write-transaction.ts';
import type { AuditOf } from '../write-transaction.ts';

export async function listCategories(db: Kysely<Database>): Promise<Category[]> {
  const [categories, translations] = await Promise.all([
    db.selectFrom('categories').select('id').orderBy('id').execute(),
    db
      .selectFrom('category_translations')
      .select(['category_id', 'language', 'name', 'description'])
      .orderBy('language')
      .execute(),
  ]);
  const byCategory = new Map<string, Record<string, CategoryTranslation>>(categories.map((c) => [c.id, {}]));
  for (const t of translations) {
    const target = byCategory.get(t.category_id);
    if (target !== undefined) target[t.language] = { name: t.name, description: t.description };
  }
  return categories.map((c) => ({ id: c.id, translations: byCategory.get(c.id) ?? {} }));
}

/** The ids of every category: what info.xml may name. */
export async function listCategoryIds(db: Kysely<Database>): Promise<ReadonlySet<string>> {
  return new Set((await db.selectFrom('categories').select('id').execute()).map((row) => row.id));
}

/**
 * Creates or replaces the given categories (their translations become exactly the given ones);
 * categories not named stay as they are. Nothing is written when nothing differs.
 */
export async function upsertCategories(
  db: Kysely<Database>,
  categories: readonly Category[],
  at: Date,
  audit: AuditOf<ImportSummary> | null = null,
): Promise<ImportSummary> {
  const { result } = await writeTransaction(
    db,
    at,
    async (trx) => {
      const summary = await writeCategories(trx, categories, at);
      return { changed: summary.created + summary.updated > 0, result: summary };
    },
    audit,
  );
  return result;
}

/** upsertCategories' writes, inside the caller's write transaction. */
export async function writeCategories(
  trx: Transaction<Database>,
  categories: readonly Category[],
  at: Date,
): Promise<ImportSummary> {
  const existing = new Map((await listCategories(trx)).map((c) => [c.id, c]));
  const now = formatTimestamp(at);
  let created = 0;
  let updated = 0;
  for (const category of categories) {
    const before = existing.get(category.id);
    if (before !== undefined && sameTranslations(before.translations, category.translations)) continue;
    if (before === undefined) {
      await trx.insertInto('categories').values({ id: category.id, created_at: now, updated_at: now }).execute();
      created += 1;
    } else {
      await trx.updateTable('categories').set({ updated_at: now }).where('id', '=', category.id).execute();
      await trx.deleteFrom('category_translations').where('category_id', '=', category.id).execute();
      updated += 1;
    }
    await trx
      .insertInto('category_translations')
      .values(
        Object.entries(category.translations).map(([language, t]) => ({
          category_id: category.id,
          language,
          name: t.name,
          description: t.description,
        })),
      )
      .execute();
  }
  return { created, updated, unchanged: categories.length - created - updated };
}

function sameTranslations(
  a: Readonly<Record<string, CategoryTranslation>>,
  b: Readonly<Record<string, CategoryTranslation>>,
): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => b[k] !== undefined && a[k]?.name === b[k].name && a[k]?.description === b[k].description);
}
