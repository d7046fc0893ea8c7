/** The languages of an Accept-Language header, best first (`de-DE` also adds `de`); at most 8. */
export function acceptedLanguages(header: string | undefined): string[] {
  if (header === undefined || header.length > 500) return [];
  const ranked = header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = Number(
        params
          .map((p) => p.trim())
          .find((p) => p.startsWith('q='))
          ?.slice(2) ?? '1',
      );
      return { tag: tag.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((entry) => /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/.test(entry.tag) && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  const out: string[] = [];
  for (const { tag } of ranked) {
    for (const candidate of [
      tag.replace(/-(\w+)$/, (_m, region: string) => `_${region.toUpperCase()}`),
      tag.split('-')[0] ?? tag,
    ]) {
      if (!out.includes(candidate)) out.push(candidate);
    }
  }
  return out.slice(0, 8);
}

/** The cookie that remembers the language a visitor chose with the switcher. */
export const LANGUAGE_COOKIE = 'appstore_lang';
export const LANGUAGE_PATTERN = /^[a-z]{2,3}(_[A-Z]{2})?$/;

/** The visitor's languages: the one chosen (cookie) first, then the browser's. */
export function visitorLanguages(chosen: string | undefined, acceptLanguage: string | undefined): string[] {
  const browser = acceptedLanguages(acceptLanguage);
  return chosen !== undefined && LANGUAGE_PATTERN.test(chosen)
    ? [chosen, ...browser.filter((l) => l !== chosen)]
    : browser;
}
