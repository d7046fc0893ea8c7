import type { TwoFactorDeps } from '../../../domain/accounts/two-factor.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import type { SelfServiceDeps } from '../../../domain/accounts/account-links.ts';
import type { ExternalLoginDeps } from '../../../domain/accounts/external-login.ts';
import type { Html } from '../../../web/html.ts';
import type { FormState } from '../../../web/forms.ts';
import type { ProviderChoice } from '../../../web/pages/account-pages.ts';
import { messagePage } from '../../../web/pages/account-pages.ts';
import { showPage } from '../../page-context.ts';
import type { PageSetting } from '../../page-context.ts';
import { BODY_ERRORS } from '../../schemas.ts';
import type { Visitor } from '../../web-visitor.ts';
import { handleForm } from '../../form-refusal.ts';
import { toSignIn } from './signed-in-forms.ts';
export { toSignIn } from './signed-in-forms.ts';
import type { User } from '../../../domain/accounts/user.ts';

export const Redirect = { 303: Type.Null({ description: 'On to the next page' }) };
export const text = (maxLength: number) => Type.String({ maxLength });
export const Form = <T extends Record<string, ReturnType<typeof text>>>(fields: T) =>
  Type.Object(fields, { additionalProperties: true });
export const SecretParams = Type.Object({
  secret: Type.String({ maxLength: 200, description: 'the secret part of a mailed link' }),
});
export const FORM_ERRORS = [...BODY_ERRORS, 'csrf_failed'] as const;

/** What the account pages' route files share: the container's accounts, the providers offered, and how a page is shown. */
export interface AccountPageKit {
  readonly container: Container;
  readonly deps: SelfServiceDeps & TwoFactorDeps;
  readonly external: ExternalLoginDeps;
  /** The "Sign in with …" buttons of the sign-in and sign-up pages. */
  readonly providers: ProviderChoice[];
  show(
    request: FastifyRequest,
    reply: FastifyReply,
    build: (setting: PageSetting) => Html,
    visitor?: Visitor,
  ): Promise<FastifyReply>;
  /** The page of a mailed link that does not work (mistyped, expired, used), with the way to sign in. */
  linkProblem(request: FastifyRequest, reply: FastifyReply, state: FormState): Promise<FastifyReply>;
}

export function accountPageKit(container: Container): AccountPageKit {
  const external = container.externalLogin;
  const show: AccountPageKit['show'] = (request, reply, build, visitor) =>
    showPage(request, reply, container, build, visitor);
  return {
    container,
    deps: container.selfService,
    external,
    providers: [...external.providers.values()].map(({ id, name }) => ({ id, name })),
    show,
    linkProblem: (request, reply, state) =>
      show(request, reply, (s) =>
        messagePage(s.context.t.site.linkProblemTitle, state.problem?.detail ?? '', s.context, {
          href: '/account/login',
          label: s.context.t.site.signIn,
        }),
      ),
  };
}

/**
 * A form of a signed-in page (`/account/tokens`, `/account/security`): `work` runs for the
 * signed-in sender; a refusal shows the page again with what was wrong (`refused`); a sender who
 * is not signed in goes to sign in, and back to `page`.
 */
/** What a signed-in page's form does for its sender. */
export type SignedInWork = (
  user: User,
  body: Readonly<Record<string, string>>,
  request: FastifyRequest,
  reply: FastifyReply,
  visitor: Visitor,
) => Promise<FastifyReply>;

export function signedInForm(
  page: string,
  work: SignedInWork,
  refused: (
    user: User,
    state: FormState,
    request: FastifyRequest,
    reply: FastifyReply,
    visitor: Visitor,
  ) => Promise<FastifyReply>,
) {
  return async (request: FastifyRequest, reply: FastifyReply) =>
    handleForm(
      request,
      reply,
      async (visitor) =>
        visitor.user === null
          ? toSignIn(reply, page)
          : work(visitor.user, request.body as Record<string, string>, request, reply, visitor),
      async (state, visitor) =>
        visitor?.user === undefined || visitor.user === null
          ? toSignIn(reply, page)
          : refused(visitor.user, state, request, reply, visitor),
    );
}
