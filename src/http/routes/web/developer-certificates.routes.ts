import { said } from '../../../i18n/said.ts';
import { Type } from 'typebox';
import {
  approvalRequired,
  myCertificateRequests,
  readCertificateRequest,
  requestCertificate,
} from '../../../domain/identity/request-certificate.ts';
import type { CertificateOutcome } from '../../../domain/identity/request-certificate.ts';
import { AppError } from '../../../errors.ts';
import { APP_ID_MAX_LENGTH } from '../../../domain/app-id.ts';
import { certificatePage } from '../../../web/pages/developer-pages.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import type { SignedIn } from './signed-in-forms.ts';
import {
  REDIRECT as Redirect,
  SIGNED_IN_FORM_ERRORS as FORM_ERRORS,
  signedInVisitor,
  toSignIn,
} from './signed-in-forms.ts';
import { AppQuery, CERTIFICATE_FILE, Form, commandId, text } from './developer-page-kit.ts';
import type { SignedInPages } from './signed-in-forms.ts';
import type { Container } from '../../../container.ts';
import type { AppServer } from '../../types.ts';

/** A certificate from the store's own authority: the request form, its status, and the issued file. */
export async function developerCertificateRoutes(
  app: AppServer,
  container: Container,
  pages: SignedInPages,
): Promise<void> {
  // A certificate from the store's own authority

  const certificateModel = async (who: SignedIn, appId: string, outcome?: CertificateOutcome) => ({
    appId,
    ownAuthority: container.certificateRequests.ownAuthority,
    approvalRequired: await approvalRequired(container.certificateRequests),
    requests: await myCertificateRequests(who.user, container.certificateRequests),
    ...(outcome === undefined ? {} : { outcome }),
  });

  app.get('/developer/certificates', {
    schema: {
      hide: true,
      querystring: AppQuery,
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') },
    },
    handler: async (request, reply) =>
      pages.page(request, reply, async (who, setting) =>
        certificatePage(
          await certificateModel(who, commandId(request.query.app)),
          who.user.isAdmin,
          setting.formToken(),
          {},
          setting.context,
        ),
      ),
  });

  app.post('/developer/certificates', {
    schema: {
      hide: true,
      body: Form({ csr: text(16384) }),
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        ...errorResponses(FORM_ERRORS, 'invalid_csr', 'authority_unavailable'),
      },
    },
    handler: async (request, reply) =>
      pages.form(
        request,
        reply,
        '/developer/certificates',
        async (who) => {
          const outcome = await requestCertificate(
            request.body.csr,
            who.user,
            who.acting,
            container.certificateRequests,
          );
          return pages.show(request, reply, who.visitor, async (setting) =>
            certificatePage(
              await certificateModel(who, outcome.appId, outcome),
              who.user.isAdmin,
              setting.formToken(),
              {},
              setting.context,
            ),
          );
        },
        async (state, who, setting) =>
          certificatePage(
            await certificateModel(who, ''),
            who.user.isAdmin,
            setting.formToken(),
            state,
            setting.context,
          ),
      ),
  });

  app.get('/developer/certificates/:id/:file', {
    schema: {
      hide: true,
      params: Type.Object({
        id: Type.String({ pattern: '^[0-9]{1,12}$' }),
        file: Type.String({ pattern: CERTIFICATE_FILE, maxLength: APP_ID_MAX_LENGTH + 4 }),
      }),
      response: {
        200: Type.String({ description: 'The certificate (PEM)' }),
        ...Redirect,
        ...errorResponses('not_found', 'invalid_request'),
      },
    },
    handler: async (request, reply) => {
      const who = await signedInVisitor(request, container);
      if (who === null) return toSignIn(reply, '/developer/certificates');
      const found = await readCertificateRequest(Number(request.params.id), who.acting, container.certificateRequests);
      if (found.certificate === null || `${found.appId}.crt` !== request.params.file)
        throw new AppError(
          'not_found',
          said`This request has no certificate (yet): see its status on your certificates page.`,
        );
      return reply
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="${found.appId}.crt"`)
        .type('application/x-pem-file')
        .send(found.certificate);
    },
  });
}
