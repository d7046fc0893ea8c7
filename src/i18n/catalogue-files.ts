import fs from 'node:fs';
import { projectFile } from '../project-files.ts';

type Catalogue = Readonly<Record<string, string>>;

/**
 * Catalogues by language, each read from `src/i18n/<folder>/<language>.json` when first asked for
 * (a property that loads itself once). The other languages are 1.5 MB that a store answering
 * Nextcloud servers, or English visitors, never needs: bundled, they were a fifth of what every
 * start parsed before its port opened (issue 55).
 */
export function lazyCatalogues<L extends string, B extends string = never>(
  folder: string,
  languages: readonly L[],
  /** Catalogues held already (English, bundled), listed first. */
  bundled: Readonly<Record<B, Catalogue>> = {} as Record<B, Catalogue>,
): Readonly<Record<L | B, Catalogue>> {
  const catalogues = { ...bundled } as Record<L | B, Catalogue>;
  for (const language of languages) {
    let loaded: Catalogue | undefined;
    Object.defineProperty(catalogues, language, {
      enumerable: true,
      get: () =>
        (loaded ??= JSON.parse(
          fs.readFileSync(projectFile(`src/i18n/${folder}/${language}.json`), 'utf8'),
        ) as Catalogue),
    });
  }
  return catalogues;
}
