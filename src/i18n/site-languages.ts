/**
 * The languages the site's own text (pages and mails) is shipped in, with complete catalogues in
 * `catalogues/` (docs/translations.md says how to add one). App texts (name, summary,
 * description, changelog) follow the visitor's languages on their own: an app may have Dutch
 * texts while the site shows English around them.
 */
export const SITE_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'pt_BR', 'zh_CN', 'ja', 'ar'] as const;
export type SiteLanguage = (typeof SITE_LANGUAGES)[number];

const RIGHT_TO_LEFT: ReadonlySet<string> = new Set(['ar']);

/**
 * What a visitor's language (as `visitorLanguages` lists them: `de_AT`, `de`, `pt_BR`, `zh`) is
 * shown as: a shipped language itself, or the one its speakers read (`pt` → `pt_BR`; `zh`,
 * `zh_CN` and `zh_SG` → `zh_CN`, but not `zh_TW` or `zh_HK`, who write traditional characters).
 */
function siteLanguageFor(language: string): SiteLanguage | null {
  if ((SITE_LANGUAGES as readonly string[]).includes(language)) return language as SiteLanguage;
  if (language === 'pt') return 'pt_BR';
  if (language === 'zh' || language === 'zh_SG') return 'zh_CN';
  return null;
}

/** The shipped language shown to a visitor with these languages, best first; English when none is shipped. */
export function siteLanguageOf(languages: readonly string[]): SiteLanguage {
  for (const language of languages) {
    const shown = siteLanguageFor(language);
    if (shown !== null) return shown;
  }
  return 'en';
}

/** Whether `language` is one of the shipped ones (a stored choice may predate a removal). */
export function isSiteLanguage(language: string | null | undefined): language is SiteLanguage {
  return language !== null && language !== undefined && (SITE_LANGUAGES as readonly string[]).includes(language);
}

export function textDirection(language: string): 'ltr' | 'rtl' {
  return RIGHT_TO_LEFT.has(language.split('_')[0] ?? language) ? 'rtl' : 'ltr';
}

/** `pt_BR` → `pt-BR`, the tag HTML's lang attribute and Intl take. */
export function languageTag(language: string): string {
  return language.replace('_', '-');
}
