import type { Html, HtmlValue } from './html.ts';
import { html } from './html.ts';
import type { PageTexts } from './page-texts.ts';
import { pageTexts } from './page-texts.ts';
import { SITE_LANGUAGES } from '../i18n/site-languages.ts';
import { languageName } from './catalog-display.ts';
import { CSRF_FIELD } from '../domain/accounts/form-token.ts';

export interface PageOptions {
  readonly title: string;
  readonly description?: string;
  /** The site's own scripts this page needs (the passkey prompts); most pages have none. */
  readonly scripts?: readonly string[];
}

/** What every page knows of its visitor: their languages, best first, and where they are. */
export interface PageContext {
  readonly languages: readonly string[];
  /** The site's own text, in the first of the visitor's languages the site is shipped in (else English). */
  readonly t: PageTexts;
  /** The languages the switcher offers. */
  readonly availableLanguages: readonly string[];
  /** This page's path and query, where the switcher returns to. */
  readonly path: string;
  /** The signed-in visitor, with their forms' CSRF token (the header's sign-out button); null: anonymous. */
  readonly account: { readonly username: string; readonly isAdmin?: boolean; readonly formToken: string } | null;
  /** The words searched for, shown in the header's search box (the search page). */
  readonly query?: string | undefined;
  /** The page reloads itself after this many seconds (a publish in progress): works without JavaScript. */
  readonly refreshSeconds?: number | undefined;
}

function accountNav(context: PageContext | undefined): Html | '' {
  if (context === undefined) return '';
  const { account } = context;
  const s = context.t.site;
  if (account === null) {
    const back = context.path.startsWith('/account/') ? '' : `?next=${encodeURIComponent(context.path)}`;
    return html`<li><a href="/account/login${back}">${s.signIn}</a></li><li><a href="/account/signup">${s.signUp}</a></li>`;
  }
  return html`<li><a href="/developer">${s.navDeveloper}</a></li>${account.isAdmin === true ? html`<li><a href="/admin">${s.navAdmin}</a></li>` : ''}<li><a href="/account" aria-label="${s.accountOf(account.username)}"><span class="wide-only">${s.accountWord} (</span>${account.username}<span class="wide-only">)</span></a></li>
<li><form class="inline" action="/account/logout" method="post"><input type="hidden" name="${CSRF_FIELD}" value="${account.formToken}"><button type="submit" class="link">${s.signOut}</button></form></li>`;
}

/** The language app texts are shown in: the visitor's first one the catalogue has texts in, else English. */
export function shownLanguage(context: PageContext): string {
  return context.languages.find((l) => context.availableLanguages.includes(l)) ?? 'en';
}

/**
 * The switcher: a plain form, so it works without JavaScript; the choice is kept in a cookie. It
 * offers the languages the site is shipped in, then those only apps have texts in (the site's
 * own text stays English in those).
 */
function languageSwitcher(context: PageContext): Html {
  const offered = [
    ...SITE_LANGUAGES,
    ...context.availableLanguages.filter((l) => !(SITE_LANGUAGES as readonly string[]).includes(l)),
  ];
  const current = context.languages.find((l) => offered.includes(l)) ?? context.t.language;
  return html`<form class="language" action="/language" method="get">
<input type="hidden" name="next" value="${context.path}">
<label for="lang">${context.t.site.language}</label>
<select id="lang" name="lang">${offered.map((l) => html`<option value="${l}" lang="${l.replace('_', '-')}"${l === current ? html` selected` : ''}>${languageName(l)}</option>`)}</select>
<button type="submit">${context.t.site.change}</button>
</form>`;
}

/** The shell of every page: landmarks, a skip link, the header and the footer; one stylesheet, and a script only where a page asks for one. */
export function layout(options: PageOptions, main: HtmlValue, context?: PageContext): Html {
  const t = context?.t ?? pageTexts('en');
  const s = t.site;
  const title = options.title === s.siteName ? s.siteName : `${options.title} – ${s.siteName}`;
  return html`<!doctype html>
<html lang="${t.tag}" dir="${t.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${options.description === undefined ? '' : html`<meta name="description" content="${options.description}">`}
${context?.refreshSeconds === undefined ? '' : html`<meta http-equiv="refresh" content="${context.refreshSeconds}">`}
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/site.css">
${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
</head>
<body>
<a class="skip" href="#main">${s.skipToContent}</a>
<header class="site-header">
  <a class="brand" href="/">${s.siteName}</a>
  <form class="header-search" action="/search" method="get" role="search"><label class="visually-hidden" for="header-q">${s.searchLabel}</label><input id="header-q" name="q" type="search" maxlength="100" placeholder="${s.searchLabel}"${context?.query === undefined || context.query === '' ? '' : html` value="${context.query}"`}><button type="submit">${s.search}</button></form>
  <nav aria-label="${s.siteNavigation}"><ul><li><a href="/search">${s.navApps}</a></li><li><a href="/api/">${s.navApi}</a></li>${accountNav(context)}</ul></nav>
</header>
<main id="main">
${main}
</main>
<footer class="site-footer"><p>${s.tagline}</p>${context === undefined ? '' : languageSwitcher(context)}</footer>
</body>
</html>
`;
}
