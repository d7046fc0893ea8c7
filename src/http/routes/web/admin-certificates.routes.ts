import { said } from '../../../i18n/said.ts';
import type { AppServer } from '../../types.ts';
import { listRevocations, revokeCertificate } from '../../../domain/certificates/revoke-certificate.ts';
import {
  approvalRequired,
  approveCertificateRequest,
  pendingCertificateRequests,
  rejectCertificateRequest,
  setApprovalRequired,
} from '../../../domain/identity/request-certificate.ts';
import { revokeBySerial } from '../../../domain/identity/revoke-by-serial.ts';
import { AppError } from '../../../errors.ts';
import type { AdminState } from '../../../web/pages/admin-pages.ts';
import { adminCertificatesPage } from '../../../web/pages/admin-pages.ts';
import type { PageSetting } from '../../page-context.ts';
import type { SignedIn } from './signed-in-forms.ts';
import { checked as on, placeProblems } from './signed-in-forms.ts';
import { adminGetSchema, adminPostSchema } from './admin-page-kit.ts';
import type { AdminPageKit } from './admin-page-kit.ts';

/** The administrator's certificates page: the approval setting and queue, and revocation by serial or certificate. */
export async function adminCertificateRoutes(app: AppServer, kit: AdminPageKit): Promise<void> {
  // Certificates

  const certificatesPage = async (who: SignedIn, setting: PageSetting, state: AdminState) => {
    const deps = kit.container.certificateRequests;
    return adminCertificatesPage(
      {
        approvalRequired: await approvalRequired(deps),
        ownAuthority: deps.ownAuthority,
        pending: deps.ownAuthority ? await pendingCertificateRequests(who.acting, deps) : [],
        revoked: await listRevocations(who.acting, kit.container.revocations),
      },
      setting.formToken(),
      state,
      setting.context,
    );
  };
  app.get('/admin/certificates', {
    schema: adminGetSchema(),
    handler: async (request, reply) => kit.page(request, reply, (who, setting) => certificatesPage(who, setting, {})),
  });

  app.post('/admin/certificates/approval', {
    schema: adminPostSchema(['required']),
    handler: kit.form(
      'approval',
      '/admin/certificates',
      async (body, who, t) => {
        await setApprovalRequired(on(body['required']), who.acting, kit.container.certificateRequests);
        return t.admin.approvalSaved;
      },
      certificatesPage,
    ),
  });

  const requestId = (body: Record<string, string>): number => {
    const id = Number(body['id']);
    if (!Number.isSafeInteger(id) || id <= 0)
      throw new AppError('invalid_request', said`No certificate request was named (id).`);
    return id;
  };
  app.post('/admin/certificates/approve', {
    schema: adminPostSchema(['id'], 'not_found', 'conflict', 'authority_unavailable'),
    handler: kit.form(
      'queue',
      '/admin/certificates',
      async (body, who, t) => {
        return t.admin.approved(
          (await approveCertificateRequest(requestId(body), who.acting, kit.container.certificateRequests)).appId,
        );
      },
      certificatesPage,
    ),
  });
  app.post('/admin/certificates/reject', {
    schema: adminPostSchema(['id', 'reason'], 'not_found', 'conflict'),
    handler: kit.form(
      'queue',
      '/admin/certificates',
      async (body, who, t) => {
        return t.admin.rejected(
          (
            await rejectCertificateRequest(
              requestId(body),
              body['reason'] ?? '',
              who.acting,
              kit.container.certificateRequests,
            )
          ).appId,
        );
      },
      certificatesPage,
    ),
  });

  app.post('/admin/certificates/revoke', {
    schema: adminPostSchema(
      ['serial', 'certificate', 'reason'],
      'not_found',
      'invalid_certificate',
      'certificate_untrusted',
    ),
    handler: kit.form(
      'revoke',
      '/admin/certificates',
      async (body, who, t) => {
        const pem = (body['certificate'] ?? '').trim();
        const serial = (body['serial'] ?? '').trim();
        if (pem === '' && serial === '')
          throw new AppError('invalid_request', said`Give the serial number, or paste the certificate.`, {
            serial: [said`give the serial, or paste the certificate below`],
          });
        const result =
          pem !== ''
            ? await revokeCertificate(
                pem,
                await kit.container.trust(),
                kit.container.revocations,
                kit.container.now(),
                who.acting,
                body['reason'] ?? '',
              ).catch(placeProblems({ rename: () => 'certificate' }))
            : await revokeBySerial(serial, body['reason'] ?? '', who.acting, kit.container.serialRevocation);
        return t.admin.revokedDone(result.serial, result.appId, result.alreadyRevoked);
      },
      certificatesPage,
    ),
  });
}
