import type { ErrorCode, FieldErrors, SaidFieldErrors } from '../errors.ts';
import type { FormProblem } from './forms.ts';
import type { PageTexts } from './page-texts.ts';
import { refusalSummary } from './refusal-summary.ts';
import { translateSaid } from '../i18n/refusals.ts';
import { isSaid } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
import type { SiteLanguage } from '../i18n/site-languages.ts';

/** A refusal as a page in another language than English shows it. */
export interface TranslatedRefusal {
  /** The detail in the page's language; undefined when the catalogue lacks it (the page shows the English). */
  readonly detail?: string;
  readonly fields?: FieldErrors;
  /** The fields whose messages stayed English (the page marks them `lang="en"`). */
  readonly englishFields: readonly string[];
}

/** What a refusal says: an AppError, or a publish job's refusal kept in the database. */
export interface RefusalWords {
  readonly detail: string;
  readonly said?: Said;
  readonly errors?: FieldErrors;
  readonly saidErrors?: SaidFieldErrors;
}

/** A schema refusal ("Invalid request body: name: …"): a page says only the field's message, at the field. */
const FIELD_PREFIX = /^Invalid (request body|query string|path|request)\b/;

/**
 * The refusal's detail and field messages in `language`, from the refusal catalogues
 * (docs/translations.md). A message written without the `said` tag, or one the catalogue lacks,
 * stays English and is said to be so.
 */
export function translateRefusal(error: RefusalWords, language: SiteLanguage): TranslatedRefusal {
  const fields: FieldErrors = {};
  const englishFields: string[] = [];
  for (const [field, messages] of Object.entries(error.saidErrors ?? error.errors ?? {})) {
    const translated = messages.map((message) => (isSaid(message) ? translateSaid(message, language) : undefined));
    if (translated.every((text) => text !== undefined)) fields[field] = translated;
    else {
      fields[field] = error.errors?.[field] ?? [];
      englishFields.push(field);
    }
  }
  const hasFields = Object.keys(fields).length > 0;
  // As the English page does (forms.ts `spoken`), a schema refusal says its first field's message.
  const firstField = Object.keys(fields)[0];
  const detail =
    FIELD_PREFIX.test(error.detail) && firstField !== undefined
      ? englishFields.includes(firstField)
        ? undefined
        : fields[firstField]?.[0]
      : error.said === undefined
        ? undefined
        : translateSaid(error.said, language);
  return { ...(detail === undefined ? {} : { detail }), ...(hasFields ? { fields } : {}), englishFields };
}

/**
 * A refusal as a page shows it: in English as the API says it; in another language translated
 * where the refusal catalogues can, else led by a translated sentence chosen by the code and
 * followed by the English detail, marked as English.
 */
export function pageRefusal(code: ErrorCode, words: RefusalWords, texts: PageTexts): FormProblem {
  const fields = words.errors;
  if (texts.language === 'en') return { code, detail: words.detail, ...(fields === undefined ? {} : { fields }) };
  const translated = translateRefusal(words, texts.language);
  return {
    code,
    detail: translated.detail ?? words.detail,
    ...(translated.fields === undefined ? {} : { fields: translated.fields }),
    ...(translated.englishFields.length === 0 ? {} : { englishFields: translated.englishFields }),
    ...(translated.detail === undefined ? { summary: refusalSummary(texts.site, code) } : {}),
  };
}
