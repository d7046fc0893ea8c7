import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Container } from '../container.ts';
import { formToken } from '../domain/accounts/form-token.ts';
import { categoryDescription, categoryName } from '../domain/browse/browse-catalog.ts';
import type { PageCatalog } from '../domain/browse/browse-catalog.ts';
import type { PageContext } from '../web/layout.ts';
import { pageTexts } from '../web/page-texts.ts';
import type { PageTexts } from '../web/page-texts.ts';
import { siteLanguageOf } from '../i18n/site-languages.ts';
import type { CardSetting, CatalogDisplay } from '../web/pages/app-card.ts';
import { screenshotAddress } from '../domain/screenshots/screenshot-copies.ts';
import { LANGUAGE_COOKIE, visitorLanguages } from '../web/languages.ts';
import type { Html } from '../web/html.ts';
import { sendPage } from './html-reply.ts';
import { formTokenFor, visitorOf } from './web-visitor.ts';
import type { Visitor } from './web-visitor.ts';

/** What a page handler knows: the catalogue, the visitor, the page's context for the layout. */
export interface PageSetting {
  readonly catalog: PageCatalog;
  readonly visitor: Visitor;
  readonly context: PageContext;
  /** What catalogue pages show apps with: cards, category names. */
  readonly display: CatalogDisplay;
  /** The screenshot copies the cards were given (a new object when they may have changed). */
  readonly screenshotCopies: object;
  /** The CSRF token for this page's forms (an anonymous browser gets its form cookie now). */
  formToken(): string;
}

/** The context of a page for `visitor` (after a sign-in or sign-out, the new one). */
function contextFor(
  request: FastifyRequest,
  catalog: PageCatalog,
  visitor: Visitor,
  container: Container,
): PageContext {
  const account =
    visitor.user === null || visitor.browserSecret === undefined
      ? null
      : {
          username: visitor.user.username,
          isAdmin: visitor.user.isAdmin,
          formToken: formToken(container.accounts.keys, visitor.browserSecret),
        };
  const languages = requestLanguages(request);
  return {
    languages,
    t: pageTexts(siteLanguageOf(languages)),
    availableLanguages: catalog.languages,
    path: request.url,
    account,
  };
}

export async function pageSetting(
  request: FastifyRequest,
  reply: FastifyReply,
  container: Container,
  visitor?: Visitor,
): Promise<PageSetting> {
  const [catalog, who, copies] = await Promise.all([
    container.browse.catalog(),
    visitor ?? visitorOf(request, container),
    container.screenshots.copies(),
  ]);
  let token: string | undefined;
  const context = contextFor(request, catalog, who, container);
  const shots = (url: string) => {
    const copy = copies.get(url);
    // Not tried yet (a release just published, or published on another node): copied soon.
    if (copy === undefined) container.screenshots.kickSoon();
    // Refused: tried again a day later, by the housekeeping look.
    if (copy === undefined || copy.sha256 === null || copy.format === null || copy.thumbnailSha256 === null)
      return null;
    return {
      image: screenshotAddress(copy.sha256, copy.format),
      thumbnail: screenshotAddress(copy.thumbnailSha256, 'webp'),
    };
  };
  return {
    catalog,
    visitor: who,
    context,
    display: catalogDisplay(catalog, context, container.now(), shots),
    screenshotCopies: copies,
    formToken: () => (token ??= formTokenFor(who, request, reply, container)),
  };
}

/** The context an error page is shown in: the visitor's header and languages, as on any page. */
export async function errorPageContext(request: FastifyRequest, container: Container): Promise<PageContext> {
  const [catalog, who] = await Promise.all([container.browse.catalog(), visitorOf(request, container)]);
  return contextFor(request, catalog, who, container);
}

/** Sends the page `build` makes for the visitor (after a sign-in or sign-out, the new one). */
export async function showPage(
  request: FastifyRequest,
  reply: FastifyReply,
  container: Container,
  build: (setting: PageSetting) => Html | Promise<Html>,
  visitor?: Visitor,
): Promise<FastifyReply> {
  const setting = await pageSetting(request, reply, container, visitor);
  return sendPage(request, reply, await build(setting));
}

/** Cards and category names for the visitor's languages, as of `now`. */
function catalogDisplay(
  catalog: PageCatalog,
  context: PageContext,
  now: Date,
  shots: CardSetting['shots'],
): CatalogDisplay {
  return {
    cards: {
      languages: context.languages,
      dateLanguage: context.t.language,
      now,
      icons: catalog.icons,
      strings: context.t.site,
      shots,
    },
    categoryName: (id) => categoryName(catalog.categories, id, context.languages),
    categoryDescription: (id) => categoryDescription(catalog.categories, id, context.languages),
  };
}

/** The site's text in the language of the visitor making `request` (the switcher's choice, else Accept-Language). */
export function requestTexts(request: FastifyRequest): PageTexts {
  return pageTexts(siteLanguageOf(requestLanguages(request)));
}

/** The languages of the visitor making `request`, best first: the switcher's choice, then the browser's. */
export function requestLanguages(request: FastifyRequest): string[] {
  return visitorLanguages(request.cookies[LANGUAGE_COOKIE], request.headers['accept-language']);
}
