import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Container } from '../container.ts';
import { formToken } from '../domain/accounts/form-token.ts';
import { catalogLanguages } from '../domain/browse/browse-catalog.ts';
import type { CatalogView } from '../domain/browse/browse-catalog.ts';
import type { PageContext } from '../web/layout.ts';
import { LANGUAGE_COOKIE, visitorLanguages } from '../web/languages.ts';
import { formTokenFor, visitorOf } from './web-visitor.ts';
import type { Visitor } from './web-visitor.ts';

/** What a page handler knows: the catalogue, the visitor, the page's context for the layout. */
export interface PageSetting {
  readonly catalog: CatalogView;
  readonly visitor: Visitor;
  readonly context: PageContext;
  /** The CSRF token for this page's forms (an anonymous browser gets its form cookie now). */
  formToken(): string;
}

/** The context of a page for `visitor` (after a sign-in or sign-out, the new one). */
function contextFor(request: FastifyRequest, catalog: CatalogView, visitor: Visitor, container: Container): PageContext {
  const account = visitor.user === null || visitor.browserSecret === undefined ? null : { username: visitor.user.username, formToken: formToken(container.accounts.keys, visitor.browserSecret) };
  return {
    languages: visitorLanguages(request.cookies[LANGUAGE_COOKIE], request.headers['accept-language']),
    availableLanguages: catalogLanguages(catalog.apps),
    path: request.url,
    account,
  };
}

export async function pageSetting(request: FastifyRequest, reply: FastifyReply, container: Container, visitor?: Visitor): Promise<PageSetting> {
  const [catalog, who] = await Promise.all([container.browse.catalog(), visitor ?? visitorOf(request, container)]);
  let token: string | undefined;
  return {
    catalog,
    visitor: who,
    context: contextFor(request, catalog, who, container),
    formToken: () => (token ??= formTokenFor(who, request, reply, container)),
  };
}
