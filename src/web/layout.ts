import type { Html, HtmlValue } from './html.ts';
import { html } from './html.ts';
import { STRINGS } from './strings.ts';
import { languageName } from './catalog-display.ts';
import { CSRF_FIELD } from '../domain/accounts/form-token.ts';

export interface PageOptions {
  readonly title: string;
  readonly language?: string;
  readonly description?: string;
  /** The site's own scripts this page needs (the passkey prompts); most pages have none. */
  readonly scripts?: readonly string[];
}

/** What every page knows of its visitor: their languages, best first, and where they are. */
export interface PageContext {
  readonly languages: readonly string[];
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
  if (account === null) {
    const back = context.path.startsWith('/account/') ? '' : `?next=${encodeURIComponent(context.path)}`;
    return html`<li><a href="/account/login${back}">${STRINGS.signIn}</a></li><li><a href="/account/signup">${STRINGS.signUp}</a></li>`;
  }
  return html`<li><a href="/developer">${STRINGS.navDeveloper}</a></li>${account.isAdmin === true ? html`<li><a href="/admin">${STRINGS.navAdmin}</a></li>` : ''}<li><a href="/account" aria-label="${STRINGS.accountOf(account.username)}"><span class="wide-only">${STRINGS.accountWord} (</span>${account.username}<span class="wide-only">)</span></a></li>
<li><form class="inline" action="/account/logout" method="post"><input type="hidden" name="${CSRF_FIELD}" value="${account.formToken}"><button type="submit" class="link">${STRINGS.signOut}</button></form></li>`;
}

/** The switcher: a plain form, so it works without JavaScript; the choice is kept in a cookie. */
/** The language the site is shown in: the visitor's first one the catalogue has texts in, else English. */
export function shownLanguage(context: PageContext): string {
  return context.languages.find((l) => context.availableLanguages.includes(l)) ?? 'en';
}

function languageSwitcher(context: PageContext): Html {
  const current = shownLanguage(context);
  return html`<form class="language" action="/language" method="get">
<input type="hidden" name="next" value="${context.path}">
<label for="lang">${STRINGS.language}</label>
<select id="lang" name="lang">${context.availableLanguages.map((l) => html`<option value="${l}" lang="${l.replace('_', '-')}"${l === current ? html` selected` : ''}>${languageName(l)}</option>`)}</select>
<button type="submit">${STRINGS.change}</button>
</form>`;
}

/** The shell of every page: landmarks, a skip link, the header and the footer; one stylesheet, and a script only where a page asks for one. */
export function layout(options: PageOptions, main: HtmlValue, context?: PageContext): Html {
  const title = options.title === STRINGS.siteName ? STRINGS.siteName : `${options.title} – ${STRINGS.siteName}`;
  return html`<!doctype html>
<html lang="${options.language ?? 'en'}">
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
<a class="skip" href="#main">${STRINGS.skipToContent}</a>
<header class="site-header">
  <a class="brand" href="/">${STRINGS.siteName}</a>
  <form class="header-search" action="/search" method="get" role="search"><label class="visually-hidden" for="header-q">${STRINGS.searchLabel}</label><input id="header-q" name="q" type="search" maxlength="100" placeholder="${STRINGS.searchLabel}"${context?.query === undefined || context.query === '' ? '' : html` value="${context.query}"`}><button type="submit">${STRINGS.search}</button></form>
  <nav aria-label="Site"><ul><li><a href="/search">${STRINGS.navApps}</a></li><li><a href="/api/">${STRINGS.navApi}</a></li>${accountNav(context)}</ul></nav>
</header>
<main id="main">
${main}
</main>
<footer class="site-footer"><p>${STRINGS.tagline}</p>${context === undefined ? '' : languageSwitcher(context)}</footer>
</body>
</html>
`;
}
