import type { FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../errors.ts';
import type { FormState } from '../web/forms.ts';
import { toErrorResponse } from './error-body.ts';
import { requestTexts } from './page-context.ts';
import { pageRefusal } from '../web/refusal-texts.ts';
import { logRefusal } from './refusal-log.ts';
import { wantsPage } from './html-reply.ts';
import { postedBy } from './web-visitor.ts';
import type { Visitor } from './web-visitor.ts';

/** Fields never shown again on a form (nor logged). */
const SECRET_FIELDS = new Set(['password', 'current_password', 'csrf_token']);

/** What was typed into a form, without its secrets: shown again after a refusal. */
export function formValues(body: unknown): Record<string, string> {
  const values: Record<string, string> = {};
  if (typeof body !== 'object' || body === null) return values;
  for (const [name, value] of Object.entries(body))
    if (typeof value === 'string' && !SECRET_FIELDS.has(name)) values[name] = value;
  return values;
}

/**
 * A form's refusal: a client error (an AppError the catalogue maps to a 4xx) becomes the form
 * again with what was wrong, under the catalogue's status; anything else goes on to the error
 * handler, as does any refusal for a client that does not ask for HTML. The refusal is logged like the API's.
 */
export function formRefusal(error: unknown, request: FastifyRequest, reply: FastifyReply): FormState {
  // A client that does not read pages gets the JSON error, as from every route.
  if (!isAppError(error) || !wantsPage(request)) throw error;
  const response = toErrorResponse(error);
  if (response.isServerFault) throw error;
  logRefusal(request.log, { code: response.body.code, status: response.status, detail: response.body.detail });
  reply.code(response.status);
  if (response.retryAfterSeconds !== undefined) reply.header('retry-after', String(response.retryAfterSeconds));
  return {
    values: formValues(request.body),
    problem: pageRefusal(error.code, { ...error, detail: response.body.detail }, requestTexts(request)),
  };
}

/** Runs a website form's work for its sender (checked by the website's guard); a refusal shows the form again. */
export async function handleForm(
  request: FastifyRequest,
  reply: FastifyReply,
  work: (visitor: Visitor) => Promise<FastifyReply>,
  refused: (state: FormState, visitor: Visitor | undefined) => Promise<FastifyReply>,
): Promise<FastifyReply> {
  let visitor: Visitor | undefined;
  try {
    visitor = postedBy(request);
    return await work(visitor);
  } catch (error) {
    return refused(formRefusal(error, request, reply), visitor);
  }
}
