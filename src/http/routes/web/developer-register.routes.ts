import type { ErrorCode } from '../../../errors.ts';
import { registerApp } from '../../../domain/apps/register-app.ts';
import { myCertificateRequests } from '../../../domain/identity/request-certificate.ts';
import { registerPage } from '../../../web/pages/developer-pages.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import { countedUpload } from '../../../metrics.ts';
import { REDIRECT as Redirect, SIGNED_IN_FORM_ERRORS as FORM_ERRORS, placeProblems } from './signed-in-forms.ts';
import { AppQuery, Form, commandId, text } from './developer-page-kit.ts';
import type { SignedInPages } from './signed-in-forms.ts';
import type { Container } from '../../../container.ts';
import type { AppServer } from '../../types.ts';

/** Registering an app with its certificate and the app id's signature. */
export async function developerRegisterRoutes(
  app: AppServer,
  container: Container,
  pages: SignedInPages,
): Promise<void> {
  // Registering an app

  app.get('/developer/register', {
    schema: {
      hide: true,
      querystring: AppQuery,
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') },
    },
    handler: async (request, reply) => {
      const appId = commandId(request.query.app);
      // Coming from an issued certificate: the form starts with it.
      return pages.page(request, reply, async (who, setting) => {
        const issued =
          appId === ''
            ? null
            : ((await myCertificateRequests(who.user, container.certificateRequests)).find(
                (r) => r.appId === appId && r.certificate !== null,
              )?.certificate ?? null);
        return registerPage(
          appId,
          who.user.isAdmin,
          setting.formToken(),
          issued === null ? {} : { values: { certificate: issued } },
          setting.context,
        );
      });
    },
  });

  app.post('/developer/register', {
    schema: {
      hide: true,
      body: Form({ certificate: text(16384), signature: text(8192) }),
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        ...errorResponses(FORM_ERRORS, [
          'invalid_certificate',
          'certificate_untrusted',
          'certificate_expired',
          'certificate_not_yet_valid',
          'certificate_revoked',
          'invalid_app_id',
          'invalid_signature',
          'authority_unavailable',
        ]),
      },
    },
    handler: async (request, reply) =>
      pages.form(
        request,
        reply,
        '/developer/register',
        async (who) => {
          const input = {
            certificate: request.body.certificate,
            signature: request.body.signature.replace(/\s+/g, ''),
          };
          const result = await countedUpload(container.metrics, 'register', () =>
            registerApp(input, who.user, who.acting, container.registration),
          ).catch(placeProblems({ field: (code) => REGISTER_FIELDS[code] }));
          return pages.show(request, reply, who.visitor, (setting) =>
            registerPage(result.appId, who.user.isAdmin, setting.formToken(), {}, setting.context, result),
          );
        },
        async (state, who, setting) =>
          registerPage(commandId(state.values?.['app']), who.user.isAdmin, setting.formToken(), state, setting.context),
      ),
  });
}

/** Where the registration's refusals belong: the certificate's problems by its field, the signature's by its own. */
const REGISTER_FIELDS: Partial<Record<ErrorCode, string>> = {
  invalid_certificate: 'certificate',
  certificate_untrusted: 'certificate',
  certificate_expired: 'certificate',
  certificate_not_yet_valid: 'certificate',
  certificate_revoked: 'certificate',
  invalid_app_id: 'certificate',
  forbidden: 'certificate',
  invalid_signature: 'signature',
};
