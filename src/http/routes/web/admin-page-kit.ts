import { said } from '../../../i18n/said.ts';
import { requestTexts } from '../../page-context.ts';
import type { PageTexts } from '../../../web/page-texts.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Container } from '../../../container.ts';
import { requireAdmin } from '../../../domain/accounts/authorization.ts';
import type { ErrorCode } from '../../../errors.ts';
import type { FormState } from '../../../web/forms.ts';
import type { Html } from '../../../web/html.ts';
import type { AdminState } from '../../../web/pages/admin-pages.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import type { PageSetting } from '../../page-context.ts';
import { errorResponses } from '../../schemas.ts';
import type { SignedIn } from './signed-in-forms.ts';
import { LooseForm, REDIRECT, SIGNED_IN_FORM_ERRORS, signedInPages } from './signed-in-forms.ts';

const ENTRY = said`use the administration pages.`;

/** An administrator page's GET route: hidden from the API page, a page, a redirect to sign in, or a refusal. */
export const adminGetSchema = () => ({
  hide: true,
  response: { ...PAGE_RESPONSE, ...REDIRECT, ...errorResponses('forbidden', 'invalid_request') },
});

/** An administrator form's POST route: its fields, and the refusals its use case may give besides the form's own. */
export const adminPostSchema = (fields: readonly string[], ...codes: ErrorCode[]) => ({
  hide: true,
  body: LooseForm(fields, 500_000),
  response: { ...PAGE_RESPONSE, ...REDIRECT, ...errorResponses(SIGNED_IN_FORM_ERRORS, ...codes) },
});

/** How an administrator page is shown and how its forms answer. */
export type AdminPageKit = ReturnType<typeof adminPageKit>;

/** What the administrator pages' route files share. */
export function adminPageKit(container: Container) {
  const pages = signedInPages(container);
  return {
    container,
    /** A page only an administrator sees (anyone else: 403, or the sign-in page). */
    page: (
      request: FastifyRequest,
      reply: FastifyReply,
      build: (who: SignedIn, setting: PageSetting) => Promise<Html>,
    ) =>
      pages.page(request, reply, async (who, setting) => {
        requireAdmin(who.acting, ENTRY);
        return build(who, setting);
      }),
    /** An admin form: the work returns the message; the page (built by `show`) comes back with it, or with the refusal. */
    form: (
      form: string,
      back: string,
      work: (body: Record<string, string>, who: SignedIn, t: PageTexts) => Promise<string>,
      show: AdminShow,
    ) =>
      adminForm(pages, form, back, show, async (request, reply, who, body) => {
        const message = await work(body, who, requestTexts(request));
        return pages.show(request, reply, who.visitor, (setting) => show(who, setting, { form, message }, body));
      }),
    /**
     * An admin form whose success is a redirect (post, redirect, get): the work returns where to
     * go, so that reloading the page it lands on repeats nothing. A refusal comes back as `form` does.
     */
    redirectingForm: (
      form: string,
      back: string,
      work: (body: Record<string, string>, who: SignedIn) => Promise<string>,
      show: AdminShow,
    ) =>
      adminForm(pages, form, back, show, async (_request, reply, who, body) =>
        reply.redirect(await work(body, who), 303),
      ),
  };
}

/** An administrator page with the state of one of its forms (`AdminState`). */
type AdminShow = (
  who: SignedIn,
  setting: PageSetting,
  state: AdminState,
  body: Record<string, string>,
) => Promise<Html>;

/** An admin form's route: `succeed` answers the work done; a refusal shows the page (`show`) with it at the form. */
function adminForm(
  pages: ReturnType<typeof signedInPages>,
  form: string,
  back: string,
  show: AdminShow,
  succeed: (
    request: FastifyRequest,
    reply: FastifyReply,
    who: SignedIn,
    body: Record<string, string>,
  ) => Promise<FastifyReply>,
) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const body = request.body as Record<string, string>;
    return pages.form(
      request,
      reply,
      back,
      async (who) => succeed(request, reply, who, body),
      async (state: FormState, who, setting) => show(who, setting, { form, state }, body),
    );
  };
}
