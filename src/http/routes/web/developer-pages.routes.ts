import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { messagePage } from '../../../web/pages/account-pages.ts';
import type { ErrorCode } from '../../../errors.ts';
import type { Container } from '../../../container.ts';
import { deleteApp } from '../../../domain/apps/delete-app.ts';
import { appAuditTrail, managedApp, myApps } from '../../../domain/apps/app-overview.ts';
import {
  addCoMaintainer,
  lockTransfer,
  removeCoMaintainer,
  setAppFlags,
  unlockTransfer,
} from '../../../domain/apps/manage-apps.ts';
import { registerApp } from '../../../domain/apps/register-app.ts';
import {
  approvalRequired,
  myCertificateRequests,
  readCertificateRequest,
  requestCertificate,
} from '../../../domain/identity/request-certificate.ts';
import type { CertificateOutcome } from '../../../domain/identity/request-certificate.ts';
import { deleteRelease } from '../../../domain/releases/delete-release.ts';
import { AppError, isAppError } from '../../../errors.ts';
import { APP_ID_MAX_LENGTH, APP_ID_PATTERN, appIdProblem } from '../../../domain/app-id.ts';
import { DEV } from '../../../web/developer-strings.ts';
import type { ManagePageState, ManageSection } from '../../../web/pages/developer-pages.ts';
import {
  certificatePage,
  manageAppPage,
  myAppsPage,
  publishJobPage,
  publishPage,
  registerPage,
} from '../../../web/pages/developer-pages.ts';
import { totalDownloads } from '../../../domain/mirror/download-counts.ts';
import { installFormParser } from '../../body-parsers.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import type { PageSetting } from '../../page-context.ts';
import { AppIdParam, errorResponses } from '../../schemas.ts';
import type { AppServer } from '../../types.ts';
import { countedUpload } from '../../../metrics.ts';
import type { SignedIn } from './signed-in-forms.ts';
import {
  LooseForm,
  REDIRECT as Redirect,
  SIGNED_IN_FORM_ERRORS as FORM_ERRORS,
  checked as on,
  placeProblems,
  signedInPages,
  signedInVisitor,
  toSignIn,
} from './signed-in-forms.ts';

const text = (maxLength: number) => Type.String({ maxLength });
const Form = <T extends Record<string, ReturnType<typeof text>>>(fields: T) =>
  Type.Object(fields, { additionalProperties: true });
const AppQuery = Type.Object({ app: Type.Optional(text(64)) }, { additionalProperties: true });
const AppParams = Type.Object({ appId: AppIdParam });
/** An app id as typed into the commands' box: shown in commands only if it looks like one. */
const commandId = (value: string | undefined): string =>
  value !== undefined && appIdProblem(value.trim()) === null ? value.trim() : '';
/** A certificate's file name: the app id (the one app-id rule, digits included) and `.crt`. */
const CERTIFICATE_FILE = `${APP_ID_PATTERN.source.slice(0, -1)}\\.crt$`;

/**
 * The developer pages (docs/website.md): my apps, a certificate from the store's authority,
 * registering an app, publishing a release (a job followed by a page that refreshes) and managing
 * an app. Every action calls the use case the API and the CLI call; the use cases decide who may.
 */
export async function developerPageRoutes(app: AppServer, container: Container): Promise<void> {
  installFormParser(app);
  const pages = signedInPages(container);

  app.get('/developer', {
    schema: { hide: true, response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') } },
    handler: async (request, reply) =>
      pages.page(request, reply, async (who, setting) => {
        const managed = await myApps(who.acting, container.appOverview);
        const ids = managed.map((m) => m.appId);
        const [downloads, listed] = await Promise.all([container.mirror.downloads(ids), setting.catalog.details(ids)]);
        const rows = managed.map((m) => {
          const counts = downloads.get(m.appId);
          return {
            app: m,
            listed: listed.get(m.appId)?.app ?? null,
            downloads: counts === undefined ? null : totalDownloads(counts),
          };
        });
        return myAppsPage(rows, who.user.isAdmin, setting.context);
      }),
  });

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
          'This request has no certificate (yet): see its status on your certificates page.',
        );
      return reply
        .header('cache-control', 'no-store')
        .header('content-disposition', `attachment; filename="${found.appId}.crt"`)
        .type('application/x-pem-file')
        .send(found.certificate);
    },
  });

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

  // Publishing a release: a job, and its page

  app.get('/developer/publish', {
    schema: { hide: true, response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') } },
    handler: async (request, reply) =>
      pages.page(request, reply, async (who, setting) =>
        publishPage(who.user.isAdmin, setting.formToken(), {}, setting.context),
      ),
  });

  app.post('/developer/publish', {
    schema: {
      hide: true,
      body: Type.Object(
        { download: text(2048), signature: text(65536), nightly: Type.Optional(text(8)) },
        { additionalProperties: true },
      ),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses(FORM_ERRORS) },
    },
    handler: async (request, reply) =>
      pages.form(
        request,
        reply,
        '/developer/publish',
        async (who) => {
          const input = {
            download: request.body.download.trim(),
            signature: request.body.signature.replace(/\s+/g, ''),
            nightly: on(request.body.nightly),
          };
          const id = await container.publishJobs.start(input, who.user, who.acting);
          return reply.redirect(`/developer/publish/${id}`, 303);
        },
        async (state, who, setting) => publishPage(who.user.isAdmin, setting.formToken(), state, setting.context),
      ),
  });

  app.get('/developer/publish/:job', {
    schema: {
      hide: true,
      params: Type.Object({ job: Type.String({ pattern: '^[A-Za-z0-9_-]{10,64}$' }) }),
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('not_found', 'invalid_request') },
    },
    handler: async (request, reply) =>
      pages.page(request, reply, async (who, setting) =>
        publishJobPage(
          await container.publishJobs.find(request.params.job, who.user),
          who.user.isAdmin,
          setting.context,
        ),
      ),
  });

  // Managing an app

  async function managePage(appId: string, who: SignedIn, setting: PageSetting, state: ManagePageState) {
    const managed = await managedApp(appId, who.acting, container.appOverview);
    const trail = await appAuditTrail(managed, container.appOverview);
    const downloads = (await container.mirror.downloads([appId])).get(appId) ?? null;
    return manageAppPage(
      managed,
      (await setting.catalog.details([appId])).get(appId)?.app ?? null,
      downloads,
      trail,
      who.user.isAdmin,
      setting.formToken(),
      state,
      setting.context,
    );
  }

  app.get('/developer/apps/:appId', {
    schema: {
      hide: true,
      params: AppParams,
      response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('forbidden', 'app_not_found', 'invalid_request') },
    },
    handler: async (request, reply) =>
      pages.page(request, reply, (who, setting) => managePage(request.params.appId, who, setting, {})),
  });

  /**
   * A form of the management page: the work returns the message to show (or null when the app is
   * gone: on to "My apps"), and a refusal shows the page with it in the form's section.
   */
  function manageForm<B extends Record<string, string | undefined>>(
    section: ManageSection,
    work: (appId: string, body: B, who: SignedIn) => Promise<string | null>,
  ) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const { appId } = request.params as { appId: string };
      const back = `/developer/apps/${appId}`;
      return pages.form(
        request,
        reply,
        back,
        async (who) => {
          const message = await work(appId, request.body as B, who);
          if (message === null) return reply.redirect('/developer', 303);
          return pages.show(request, reply, who.visitor, (setting) =>
            managePage(appId, who, setting, { section, message }),
          );
        },
        async (state, who, setting) => {
          // The app may be gone, or never have been this user's: their refusal is the page.
          try {
            return await managePage(appId, who, setting, { section, form: state });
          } catch (error) {
            if (!isAppError(error)) throw error;
            return messagePage(DEV.myAppsTitle, state.problem?.detail ?? '', setting.context, {
              href: '/developer',
              label: DEV.myAppsTitle,
            });
          }
        },
      );
    };
  }

  const manageSchema = (fields: readonly string[], ...codes: ErrorCode[]) => ({
    hide: true,
    params: AppParams,
    body: LooseForm(fields, 200),
    response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses(FORM_ERRORS, 'app_not_found', ...codes) },
  });

  app.post('/developer/apps/:appId/releases/delete', {
    schema: manageSchema(['version', 'nightly'], 'release_not_found'),
    handler: manageForm<{ version?: string; nightly?: string }>('releases', async (appId, body, who) => {
      const version = body.version ?? '';
      await deleteRelease({ appId, version, nightly: on(body.nightly) }, who.user, who.acting, container.publishing);
      return DEV.releaseDeleted(version);
    }),
  });

  app.post('/developer/apps/:appId/maintainers/add', {
    schema: manageSchema(['username'], 'user_not_found', 'conflict'),
    handler: manageForm<{ username?: string }>('maintainers', async (appId, body, who) => {
      const username = (body.username ?? '').trim();
      const added = await addCoMaintainer(appId, username, who.acting, container.appManagement).catch(
        placeProblems({ rename: () => 'username', field: () => 'username' }),
      );
      return added ? DEV.maintainerAdded(username) : DEV.maintainerAlready(username);
    }),
  });

  app.post('/developer/apps/:appId/maintainers/remove', {
    schema: manageSchema(['username'], 'user_not_found'),
    handler: manageForm<{ username?: string }>('maintainers', async (appId, body, who) => {
      const username = body.username ?? '';
      await removeCoMaintainer(appId, username, who.acting, container.appManagement);
      // A co-maintainer who stepped down can no longer see the page.
      return who.user.username === username && !who.user.isAdmin ? null : DEV.maintainerRemoved(username);
    }),
  });

  app.post('/developer/apps/:appId/transfer', {
    schema: manageSchema(['unlock']),
    handler: manageForm<{ unlock?: string }>('transfer', async (appId, body, who) => {
      if (on(body.unlock)) await unlockTransfer(appId, who.acting, container.appManagement);
      else await lockTransfer(appId, who.acting, container.appManagement);
      return on(body.unlock) ? DEV.transferUnlocked : DEV.transferLocked;
    }),
  });

  app.post('/developer/apps/:appId/flags', {
    schema: manageSchema(['featured', 'enterprise']),
    handler: manageForm<{ featured?: string; enterprise?: string }>('flags', async (appId, body, who) => {
      await setAppFlags(
        appId,
        { featured: on(body.featured), enterpriseOnly: on(body.enterprise) },
        who.acting,
        container.appManagement,
      );
      return DEV.flagsSaved;
    }),
  });

  app.post('/developer/apps/:appId/delete', {
    schema: manageSchema(['confirm']),
    handler: manageForm<{ confirm?: string }>('delete', async (appId, body, who) => {
      if ((body.confirm ?? '').trim() !== appId)
        throw new AppError('invalid_request', DEV.confirmMismatch(appId), { confirm: [DEV.confirmMismatch(appId)] });
      await deleteApp(appId, who.user, who.acting, container.appManagement);
      return null;
    }),
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
