import { IntlMessageFormat } from 'intl-messageformat';
import ar from './refusals/ar.json' with { type: 'json' };
import de from './refusals/de.json' with { type: 'json' };
import es from './refusals/es.json' with { type: 'json' };
import fr from './refusals/fr.json' with { type: 'json' };
import it from './refusals/it.json' with { type: 'json' };
import ja from './refusals/ja.json' with { type: 'json' };
import ptBR from './refusals/pt_BR.json' with { type: 'json' };
import zhCN from './refusals/zh_CN.json' with { type: 'json' };
import type { Said } from './said.ts';
import { isSaid } from './said.ts';
import type { SiteLanguage } from './site-languages.ts';
import { languageTag } from './site-languages.ts';

type Translated = Exclude<SiteLanguage, 'en'>;

/**
 * The refusals' translations, one flat JSON object per language: the English source
 * (`The app {0} is not registered.`) → its translation in ICU MessageFormat with the same
 * numbered placeholders. English needs none: the source is the English.
 */
export const REFUSAL_CATALOGUES: Readonly<Record<Translated, Readonly<Record<string, string>>>> = {
  de,
  fr,
  es,
  it,
  pt_BR: ptBR,
  zh_CN: zhCN,
  ja,
  ar,
};

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
