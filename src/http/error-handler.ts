import { said } from '../i18n/said.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { PageContext } from '../web/layout.ts';
import { AppError, isAppError } from '../errors.ts';
import { WWW_AUTHENTICATE } from './auth.ts';
import { toErrorResponse } from './error-body.ts';
import { logRefusal } from './refusal-log.ts';
import { allowedMethods } from './route-registry.ts';
import { sendPage, wantsPage } from './html-reply.ts';
import { errorPage } from '../web/pages/error-page.ts';
import { pageRefusal } from '../web/refusal-texts.ts';

/**
 * Installs the one error handler and the 404/405 answers for unmatched requests. `contextOf`
 * gives a refusal's page the site's header as the visitor sees it elsewhere (signed in or not,
 * the language switcher); a server fault's page goes without (what failed may be what it reads).
 */
export function installErrorHandling(
  app: FastifyInstance,
  contextOf?: (request: FastifyRequest) => Promise<PageContext>,
): void {
  app.setErrorHandler(async (error, request, reply) => {
    const response = toErrorResponse(error, request.headers['content-type']);
    if (response.isServerFault) {
      request.log.error({ err: error, code: response.body.code }, 'request failed');
    } else {
      logRefusal(request.log, { code: response.body.code, status: response.status, detail: response.body.detail });
    }
    if (response.status === 405) reply.header('allow', allowedMethods(app, request.url).join(', '));
    const page = wantsPage(request);
    // Not to a browser's page: it would answer a challenge with its own password dialog.
    if (response.status === 401 && !page) reply.header('www-authenticate', WWW_AUTHENTICATE);
    if (response.retryAfterSeconds !== undefined) reply.header('retry-after', String(response.retryAfterSeconds));
    if (page) {
      const context =
        response.isServerFault || contextOf === undefined ? undefined : await contextOf(request).catch(() => undefined);
      return sendPage(
        request,
        reply.code(response.status),
        errorPage(
          response.status,
          isAppError(error) && context !== undefined
            ? pageRefusal(error.code, { ...error, detail: response.body.detail }, context.t)
            : response.body.detail,
          request.id,
          context,
        ),
      );
    }
    return reply.code(response.status).type('application/json; charset=utf-8').send(response.body);
  });

  app.setNotFoundHandler((request) => {
    const allowed = allowedMethods(app, request.url);
    if (allowed.length > 0) {
      throw new AppError(
        'method_not_allowed',
        said`Method ${request.method} is not allowed on this path; allowed: ${allowed.join(', ')}.`,
      );
    }
    const path = (request.url.split('?')[0] ?? '').slice(0, 200);
    throw new AppError('not_found', said`No such path: ${request.method} ${path}. The API lives under /api/v1/.`);
  });
}
