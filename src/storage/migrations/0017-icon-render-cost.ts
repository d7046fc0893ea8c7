import type { Kysely } from 'kysely';

/**
 * Icons stored before their rendered cost was bounded (issue 49) are checked again: each is
 * rebuilt as a publish would now rebuild it (domain/releases/app-icon.ts), and one refused (a
 * `<use>` or mask expansion over the budget, a reference cycle) is removed, so no page shows it.
 * The app is listed without an icon until its next release; the note names each one removed.
 */
export async function up(db: Kysely<unknown>): Promise<string[]> {
  const icons = db as unknown as Kysely<{ app_icons: { app_id: string; svg: string; dark: boolean | number } }>;
  const rows = await icons.selectFrom('app_icons').select(['app_id', 'svg', 'dark']).execute();
  if (rows.length === 0) return [];
  // libxml2 (WebAssembly) is loaded only when there are icons to check.
  const [{ sanitiseIcon }, parseXmlDocument] = await Promise.all([
    import('../../domain/releases/app-icon.ts'),
    import('../../domain/releases/xml-document.ts').then((module) => module.loadXmlParser()),
  ]);
  const notes: string[] = [];
  for (const row of rows) {
    const result = sanitiseIcon(
      Buffer.from(row.svg, 'utf8'),
      Boolean(row.dark),
      Number.POSITIVE_INFINITY,
      parseXmlDocument,
    );
    if (!('problem' in result)) continue;
    await icons.deleteFrom('app_icons').where('app_id', '=', row.app_id).execute();
    notes.push(`removed the icon of app ${row.app_id}: ${result.problem}`);
  }
  return notes;
}
