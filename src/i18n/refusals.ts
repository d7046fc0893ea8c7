import { IntlMessageFormat } from 'intl-messageformat';
import { lazyCatalogues } from './catalogue-files.ts';
import type { Said } from './said.ts';
import { isSaid } from './said.ts';
import type { SiteLanguage } from './site-languages.ts';
import { languageTag } from './site-languages.ts';

type Translated = Exclude<SiteLanguage, 'en'>;

/**
 * The refusals' translations, one flat JSON object per language: the English source
 * (`The app {0} is not registered.`) → its translation in ICU MessageFormat with the same
 * numbered placeholders, each read when first used. English needs none: the source is the English.
 */
export const REFUSAL_CATALOGUES: Readonly<Record<Translated, Readonly<Record<string, string>>>> = lazyCatalogues(
  'refusals',
  ['de', 'fr', 'es', 'it', 'pt_BR', 'zh_CN', 'ja', 'ar'],
);

const compiled = new Map<string, IntlMessageFormat | null>();

function compiledOf(language: Translated, source: string): IntlMessageFormat | null {
  const key = `${language}\u0000${source}`;
  let message = compiled.get(key);
  if (message === undefined) {
    const translation = REFUSAL_CATALOGUES[language][source];
    message =
      translation === undefined
        ? null
        : new IntlMessageFormat(translation, languageTag(language), undefined, { ignoreTag: true });
    compiled.set(key, message);
  }
  return message;
}

/**
 * A sentence in `language`, its said values translated with it; undefined when the catalogue
 * lacks it or any sentence inside it (the page then shows the English, marked as English).
 */
export function translateSaid(said: Said, language: SiteLanguage): string | undefined {
  if (language === 'en') return said.text;
  const message = compiledOf(language, said.source);
  if (message === null) return undefined;
  const values: Record<string, string | number> = {};
  for (const [index, value] of said.values.entries()) {
    if (isSaid(value)) {
      const inner = translateSaid(value, language);
      if (inner === undefined) return undefined;
      values[String(index)] = inner;
    } else values[String(index)] = value;
  }
  return String(message.format(values));
}
