import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { requireAdmin } from '../../../domain/accounts/authorization.ts';
import { addUser, searchUsers, setActive, setAdmin } from '../../../domain/accounts/manage-users.ts';
import { sendInvitation } from '../../../domain/accounts/password-reset.ts';
import { readAuditLog } from '../../../domain/accounts/read-audit-log.ts';
import { allApps } from '../../../domain/apps/app-overview.ts';
import {
  categoriesForAdmin,
  importPlatformReleases,
  platformsForAdmin,
  saveCategoryText,
} from '../../../domain/catalog/import-catalog.ts';
import { listRevocations, revokeCertificate } from '../../../domain/certificates/revoke-certificate.ts';
import { exportDiscover, importDiscover } from '../../../domain/discover/manage-discover.ts';
import {
  approvalRequired,
  approveCertificateRequest,
  pendingCertificateRequests,
  rejectCertificateRequest,
  setApprovalRequired,
} from '../../../domain/identity/request-certificate.ts';
import { revokeBySerial } from '../../../domain/identity/revoke-by-serial.ts';
import { AppError } from '../../../errors.ts';
import type { ErrorCode } from '../../../errors.ts';
import { ADMIN } from '../../../web/developer-strings.ts';
import type { FormState } from '../../../web/forms.ts';
import type { Html } from '../../../web/html.ts';
import type { AdminState, AuditFilter } from '../../../web/pages/admin-pages.ts';
import {
  adminAppsPage,
  adminAuditPage,
  adminCategoriesPage,
  adminCertificatesPage,
  adminDiscoverPage,
  adminOverviewPage,
  adminPlatformsPage,
  adminUsersPage,
} from '../../../web/pages/admin-pages.ts';
import { installFormParser } from '../../body-parsers.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import type { PageSetting } from '../../page-context.ts';
import { errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import type { SignedIn } from './signed-in-forms.ts';
import {
  LooseForm,
  REDIRECT as Redirect,
  SIGNED_IN_FORM_ERRORS as FORM_ERRORS,
  checked as on,
  placeProblems,
  signedInPages,
} from './signed-in-forms.ts';

const text = (maxLength: number) => Type.String({ maxLength });
const ENTRY = 'use the administration pages.';

/**
 * The administrator pages (docs/website.md): users, apps, categories, Nextcloud releases,
 * discover entries, certificates (approval queue, revocation) and the audit log. Every page and
 * action calls a use case that refuses anyone but an administrator; every action is audited there.
 */
export async function adminPageRoutes(app: AppServer, container: Container): Promise<void> {
  installFormParser(app);
  const pages = signedInPages(container);
  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    build: (who: SignedIn, setting: PageSetting) => Promise<Html>,
  ) =>
    pages.page(request, reply, async (who, setting) => {
      requireAdmin(who.acting, ENTRY);
      return build(who, setting);
    });
  const getSchema = () => ({
    hide: true,
    response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('forbidden', 'invalid_request') },
  });
  const UsersQuery = Type.Object({ q: Type.Optional(text(100)) }, { additionalProperties: true });
  const AuditQuery = Type.Object(
    {
      app: Type.Optional(text(64)),
      user: Type.Optional(text(150)),
      event: Type.Optional(text(64)),
      since: Type.Optional(text(30)),
    },
    { additionalProperties: true },
  );
  const postSchema = (fields: readonly string[], ...codes: ErrorCode[]) => ({
    hide: true,
    body: LooseForm(fields, 500_000),
    response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses(FORM_ERRORS, ...codes) },
  });

  /** An admin form: the work returns the message; the page (built by `show`) comes back with it, or with the refusal. */
  function adminForm(
    form: string,
    back: string,
    work: (body: Record<string, string>, who: SignedIn) => Promise<string>,
    show: (who: SignedIn, setting: PageSetting, state: AdminState, body: Record<string, string>) => Promise<Html>,
  ) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const body = request.body as Record<string, string>;
      return pages.form(
        request,
        reply,
        back,
        async (who) => {
          const message = await work(body, who);
          return pages.show(request, reply, who.visitor, (setting) => show(who, setting, { form, message }, body));
        },
        async (state: FormState, who, setting) => show(who, setting, { form, state }, body),
      );
    };
  }

  app.get('/admin', {
    schema: getSchema(),
    handler: async (request, reply) =>
      page(request, reply, async (_who, setting) => adminOverviewPage(setting.context)),
  });

  // Users

  const usersPage = async (who: SignedIn, setting: PageSetting, state: AdminState, query: string) =>
    adminUsersPage(
      query,
      await searchUsers(query, 200, who.acting, container.accounts),
      setting.formToken(),
      state,
      setting.context,
    );

  app.get('/admin/users', {
    schema: { ...getSchema(), querystring: UsersQuery },
    handler: async (request, reply) =>
      page(request, reply, (who, setting) => usersPage(who, setting, {}, request.query.q ?? '')),
  });
  const showUsers = (who: SignedIn, setting: PageSetting, state: AdminState, body: Record<string, string>) =>
    usersPage(who, setting, state, body['q'] ?? '');

  app.post('/admin/users/active', {
    schema: postSchema(['username', 'active', 'q'], 'user_not_found', 'conflict'),
    handler: adminForm(
      'users',
      '/admin/users',
      async (body, who) => {
        const user = await setActive(body['username'] ?? '', on(body['active']), who.acting, container.accounts);
        return user.isActive ? ADMIN.enabledDone(user.username) : ADMIN.disabledDone(user.username);
      },
      showUsers,
    ),
  });

  app.post('/admin/users/admin', {
    schema: postSchema(['username', 'admin', 'q'], 'user_not_found', 'conflict'),
    handler: adminForm(
      'users',
      '/admin/users',
      async (body, who) => {
        const user = await setAdmin(body['username'] ?? '', on(body['admin']), who.acting, container.accounts);
        return ADMIN.adminDone(user.username, user.isAdmin);
      },
      showUsers,
    ),
  });

  app.post('/admin/users/invite', {
    schema: postSchema(['username', 'email', 'admin'], 'invalid_user', 'user_exists'),
    handler: adminForm(
      'invite',
      '/admin/users',
      async (body, who) => {
        const email = (body['email'] ?? '').trim();
        if (email === '')
          throw new AppError('invalid_user', 'An invitation needs an e-mail address.', {
            email: ['needed: the invitation is mailed there'],
          });
        const user = await addUser(
          {
            username: (body['username'] ?? '').trim(),
            email,
            password: null,
            isAdmin: on(body['admin']),
            emailVerified: false,
          },
          who.acting,
          container.accounts,
        );
        await sendInvitation(user, container.selfService);
        return ADMIN.invited(user.username, email);
      },
      (who, setting, state) => usersPage(who, setting, state, ''),
    ),
  });

  // Apps

  app.get('/admin/apps', {
    schema: getSchema(),
    handler: async (request, reply) =>
      page(request, reply, async (who, setting) =>
        adminAppsPage(await allApps(who.acting, container.appOverview), setting.context),
      ),
  });

  // Categories and Nextcloud releases

  const categoriesPage = async (who: SignedIn, setting: PageSetting, state: AdminState) =>
    adminCategoriesPage(
      await categoriesForAdmin(who.acting, container.catalog),
      setting.formToken(),
      state,
      setting.context,
    );
  app.get('/admin/categories', {
    schema: getSchema(),
    handler: async (request, reply) => page(request, reply, (who, setting) => categoriesPage(who, setting, {})),
  });
  app.post('/admin/categories', {
    schema: postSchema(['id', 'language', 'name', 'description'], 'invalid_import'),
    handler: adminForm(
      'category',
      '/admin/categories',
      async (body, who) => {
        const id = (body['id'] ?? '').trim();
        const language = (body['language'] ?? '').trim();
        await saveCategoryText(
          id,
          language,
          { name: body['name'] ?? '', description: body['description'] ?? '' },
          who.acting,
          container.catalog,
        ).catch(
          placeProblems({
            rename: (where) =>
              /\.id$/.test(where)
                ? 'id'
                : /\.name$/.test(where)
                  ? 'name'
                  : /\.description$/.test(where)
                    ? 'description'
                    : /translations/.test(where)
                      ? 'language'
                      : 'id',
          }),
        );
        return ADMIN.categorySaved(id);
      },
      categoriesPage,
    ),
  });

  const platformsPage = async (who: SignedIn, setting: PageSetting, state: AdminState) =>
    adminPlatformsPage(
      await platformsForAdmin(who.acting, container.catalog),
      setting.formToken(),
      state,
      setting.context,
    );
  app.get('/admin/platforms', {
    schema: getSchema(),
    handler: async (request, reply) => page(request, reply, (who, setting) => platformsPage(who, setting, {})),
  });
  app.post('/admin/platforms', {
    schema: postSchema(['version', 'hasRelease', 'isSupported'], 'invalid_import'),
    handler: adminForm(
      'platform',
      '/admin/platforms',
      async (body, who) => {
        const version = (body['version'] ?? '').trim();
        await importPlatformReleases(
          [{ version, hasRelease: on(body['hasRelease']), isSupported: on(body['isSupported']) }],
          who.acting,
          container.catalog,
        ).catch(placeProblems({ rename: () => 'version' }));
        return ADMIN.platformSaved(version);
      },
      platformsPage,
    ),
  });

  // Discover entries

  const discoverPage = async (who: SignedIn, setting: PageSetting, state: AdminState) =>
    adminDiscoverPage(
      JSON.stringify(await exportDiscover(who.acting, container.discover), null, 2),
      setting.formToken(),
      state,
      setting.context,
    );
  app.get('/admin/discover', {
    schema: getSchema(),
    handler: async (request, reply) => page(request, reply, (who, setting) => discoverPage(who, setting, {})),
  });
  app.post('/admin/discover', {
    schema: postSchema(['entries'], 'invalid_import'),
    handler: adminForm(
      'discover',
      '/admin/discover',
      async (body, who) => {
        let data: unknown;
        try {
          data = JSON.parse(body['entries'] ?? '');
        } catch (error) {
          const message = `is not JSON: ${error instanceof Error ? error.message : String(error)}`;
          throw new AppError('invalid_request', `The entries ${message}`, { entries: [message] });
        }
        const result = await importDiscover(data, who.acting, container.discover).catch(
          placeProblems({ rename: () => 'entries' }),
        );
        return ADMIN.discoverSaved(result.entries, result.changed);
      },
      discoverPage,
    ),
  });

  // Certificates

  const certificatesPage = async (who: SignedIn, setting: PageSetting, state: AdminState) => {
    const deps = container.certificateRequests;
    return adminCertificatesPage(
      {
        approvalRequired: await approvalRequired(deps),
        ownAuthority: deps.ownAuthority,
        pending: deps.ownAuthority ? await pendingCertificateRequests(who.acting, deps) : [],
        revoked: await listRevocations(who.acting, container.revocations),
      },
      setting.formToken(),
      state,
      setting.context,
    );
  };
  app.get('/admin/certificates', {
    schema: getSchema(),
    handler: async (request, reply) => page(request, reply, (who, setting) => certificatesPage(who, setting, {})),
  });

  app.post('/admin/certificates/approval', {
    schema: postSchema(['required']),
    handler: adminForm(
      'approval',
      '/admin/certificates',
      async (body, who) => {
        await setApprovalRequired(on(body['required']), who.acting, container.certificateRequests);
        return ADMIN.approvalSaved;
      },
      certificatesPage,
    ),
  });

  const requestId = (body: Record<string, string>): number => {
    const id = Number(body['id']);
    if (!Number.isSafeInteger(id) || id <= 0)
      throw new AppError('invalid_request', 'No certificate request was named (id).');
    return id;
  };
  app.post('/admin/certificates/approve', {
    schema: postSchema(['id'], 'not_found', 'conflict', 'authority_unavailable'),
    handler: adminForm(
      'queue',
      '/admin/certificates',
      async (body, who) => {
        return ADMIN.approved(
          (await approveCertificateRequest(requestId(body), who.acting, container.certificateRequests)).appId,
        );
      },
      certificatesPage,
    ),
  });
  app.post('/admin/certificates/reject', {
    schema: postSchema(['id', 'reason'], 'not_found', 'conflict'),
    handler: adminForm(
      'queue',
      '/admin/certificates',
      async (body, who) => {
        return ADMIN.rejected(
          (
            await rejectCertificateRequest(
              requestId(body),
              body['reason'] ?? '',
              who.acting,
              container.certificateRequests,
            )
          ).appId,
        );
      },
      certificatesPage,
    ),
  });

  app.post('/admin/certificates/revoke', {
    schema: postSchema(
      ['serial', 'certificate', 'reason'],
      'not_found',
      'invalid_certificate',
      'certificate_untrusted',
    ),
    handler: adminForm(
      'revoke',
      '/admin/certificates',
      async (body, who) => {
        const pem = (body['certificate'] ?? '').trim();
        const serial = (body['serial'] ?? '').trim();
        if (pem === '' && serial === '')
          throw new AppError('invalid_request', 'Give the serial number, or paste the certificate.', {
            serial: ['give the serial, or paste the certificate below'],
          });
        const result =
          pem !== ''
            ? await revokeCertificate(
                pem,
                await container.trust(),
                container.revocations,
                container.now(),
                who.acting,
                body['reason'] ?? '',
              ).catch(placeProblems({ rename: () => 'certificate' }))
            : await revokeBySerial(serial, body['reason'] ?? '', who.acting, container.serialRevocation);
        return ADMIN.revokedDone(result.serial, result.appId, result.alreadyRevoked);
      },
      certificatesPage,
    ),
  });

  // The audit log

  app.get('/admin/audit', {
    schema: { ...getSchema(), querystring: AuditQuery },
    handler: async (request, reply) =>
      page(request, reply, async (who, setting) => {
        const filter: AuditFilter = {
          app: request.query.app?.trim() ?? '',
          user: request.query.user?.trim() ?? '',
          event: request.query.event?.trim() ?? '',
          since: request.query.since?.trim() ?? '',
        };
        let since: Date | undefined;
        let state: FormState = {};
        if (filter.since !== '') {
          since = new Date(filter.since);
          if (Number.isNaN(since.getTime())) {
            state = {
              problem: {
                code: 'invalid_request',
                detail: `'${filter.since}' is not a date: use YYYY-MM-DD.`,
                fields: { since: ['use YYYY-MM-DD'] },
              },
            };
            since = undefined;
          }
        }
        const records = await readAuditLog(
          {
            limit: 500,
            ...(filter.app === '' ? {} : { appId: filter.app }),
            ...(filter.user === '' ? {} : { user: filter.user }),
            ...(filter.event === '' ? {} : { event: filter.event }),
            ...(since === undefined ? {} : { since }),
          },
          who.acting,
          container.audit,
        );
        return adminAuditPage(filter, records, state, setting.context);
      }),
  });
}
