import { said } from '../../../i18n/said.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { AppError, isAppError } from '../../../errors.ts';
import type { ErrorCode, SaidFieldErrors } from '../../../errors.ts';
import { BODY_ERRORS } from '../../schemas.ts';
import { userActing } from '../../../domain/audit/audit.ts';
import type { Acting } from '../../../domain/audit/audit.ts';
import type { User } from '../../../domain/accounts/user.ts';
import { lacksRequiredFactor } from '../../../domain/accounts/two-factor.ts';
import type { FormState } from '../../../web/forms.ts';
import type { Html } from '../../../web/html.ts';
import { formRefusal } from '../../form-refusal.ts';
import { showPage } from '../../page-context.ts';
import type { PageSetting } from '../../page-context.ts';
import { postedBy, visitorOf } from '../../web-visitor.ts';
import type { Visitor } from '../../web-visitor.ts';

/** Who signed in, as a page handler needs them: the user, the visitor and the `Acting` of their request. */
export interface SignedIn {
  readonly user: User;
  readonly visitor: Visitor;
  readonly acting: Acting;
}

/** To the sign-in page, and back to `path` afterwards. */
export function toSignIn(reply: FastifyReply, path: string): FastifyReply {
  return reply.redirect(`/account/login?next=${encodeURIComponent(path)}`, 303);
}

const signedIn = (user: User, visitor: Visitor, request: FastifyRequest): SignedIn => ({
  user,
  visitor,
  acting: userActing(user, request.ip, request.id),
});

/** The signed-in sender of this request (a live session), or null. */
export async function signedInVisitor(request: FastifyRequest, container: Container): Promise<SignedIn | null> {
  const visitor = await visitorOf(request, container);
  return visitor.user === null ? null : signedIn(visitor.user, visitor, request);
}

/** Where a user goes who lacks the second factor an administrator requires. */
export const REQUIRED_FACTOR_PAGE = '/account/security?required=1';

/** What the developer and admin forms answer besides a page: on to another page. */
export const REDIRECT = { 303: Type.Null({ description: 'On to the next page' }) };
/** The refusals every developer and admin form may meet. */
export const SIGNED_IN_FORM_ERRORS = [...BODY_ERRORS, 'csrf_failed', 'forbidden', 'rate_limited'] as const;
/** A form whose fields may be missing (an unticked checkbox is not sent): the handler reads each with a default. */
export const LooseForm = (names: readonly string[], maxLength: number) =>
  Type.Record(Type.String(), Type.String({ maxLength }), { description: `fields: ${names.join(', ')}` });
/** A ticked checkbox (or a hidden field set to 'on'). */
export const checked = (value: string | undefined): boolean => value !== undefined && value !== '';

/**
 * A refusal's problems put next to a form's fields: each problem the error names is moved to the
 * field `rename` gives for where it is (an import file's `[0].translations.de.name`, a use case's
 * own field name); a refusal that names none goes to the field `field` gives for its code. The
 * detail stays at the top of the form.
 */
export function placeProblems(place: {
  readonly rename?: (where: string) => string;
  readonly field?: (code: ErrorCode) => string | undefined;
}) {
  return (error: unknown): never => {
    if (!isAppError(error)) throw error;
    let fields: SaidFieldErrors | undefined = error.saidErrors ?? error.errors;
    if (fields !== undefined && place.rename !== undefined) {
      const renamed: SaidFieldErrors = {};
      for (const [where, messages] of Object.entries(fields)) (renamed[place.rename(where)] ??= []).push(...messages);
      fields = renamed;
    }
    const detail = error.said ?? error.detail;
    const field = fields === undefined ? place.field?.(error.code) : undefined;
    if (field !== undefined) fields = { [field]: [detail] };
    throw new AppError(error.code, detail, fields, error.retryAfterSeconds);
  };
}

/**
 * The developer and administrator pages: signed-in visitors only (a disabled account has no
 * session), never kept by a cache; every decision about what they may do is the use cases'.
 */
export function signedInPages(container: Container) {
  async function show(
    request: FastifyRequest,
    reply: FastifyReply,
    visitor: Visitor,
    build: (setting: PageSetting) => Html | Promise<Html>,
  ): Promise<FastifyReply> {
    reply.header('cache-control', 'no-store');
    return showPage(request, reply, container, build, visitor);
  }

  /** A GET: the page for the signed-in user, or the way to sign in; a refusal (403, 404) shows as an error page. */
  async function page(
    request: FastifyRequest,
    reply: FastifyReply,
    build: (who: SignedIn, setting: PageSetting) => Promise<Html>,
  ): Promise<FastifyReply> {
    const who = await signedInVisitor(request, container);
    if (who === null) return toSignIn(reply, request.url);
    // An administrator requires a second factor of this user, who has none: that comes first.
    if (await lacksRequiredFactor(who.user, container.accounts)) return reply.redirect(REQUIRED_FACTOR_PAGE, 303);
    return show(request, reply, who.visitor, (setting) => build(who, setting));
  }

  /**
   * A form's POST: the work for the signed-in sender (checked by the website's guard); a refusal
   * shows the page again with what was wrong, under the catalogue's status. `back` is where a
   * visitor who is not signed in returns after signing in.
   */
  async function form(
    request: FastifyRequest,
    reply: FastifyReply,
    back: string,
    work: (who: SignedIn) => Promise<FastifyReply>,
    refused: (state: FormState, who: SignedIn, setting: PageSetting) => Promise<Html>,
  ): Promise<FastifyReply> {
    reply.header('cache-control', 'no-store');
    let who: SignedIn | null = null;
    try {
      const visitor = postedBy(request);
      if (visitor.user === null) return toSignIn(reply, back);
      who = signedIn(visitor.user, visitor, request);
      if (await lacksRequiredFactor(who.user, container.accounts))
        throw new AppError(
          'forbidden',
          said`An administrator of this store requires a second factor for your account: add an authenticator app or a passkey on /account/security first.`,
        );
      return await work(who);
    } catch (error) {
      const state = formRefusal(error, request, reply);
      if (who === null) return toSignIn(reply, back);
      const sender = who;
      return show(request, reply, sender.visitor, (setting) => refused(state, sender, setting));
    }
  }

  return { page, form, show };
}

/** A signed-in page's GET, form POST and page shown, as `signedInPages` makes them. */
export type SignedInPages = ReturnType<typeof signedInPages>;
