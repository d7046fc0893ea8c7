import { said } from '../../../i18n/said.ts';
import type { PageTexts } from '../../../web/page-texts.ts';
import { requestTexts } from '../../page-context.ts';
import {
  addPublisher,
  listPublishers,
  removePublisher,
} from '../../../domain/trusted-publishing/trusted-publishing.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { chartStart, downloadChart } from '../../../domain/archives/download-weeks.ts';
import { messagePage } from '../../../web/pages/account-pages.ts';
import type { ErrorCode } from '../../../errors.ts';
import { deleteApp } from '../../../domain/apps/delete-app.ts';
import { appAuditTrail, managedApp, myApps } from '../../../domain/apps/app-overview.ts';
import {
  addCoMaintainer,
  lockTransfer,
  removeCoMaintainer,
  setAppFlags,
  unlockTransfer,
} from '../../../domain/apps/manage-apps.ts';
import { deleteRelease } from '../../../domain/releases/delete-release.ts';
import { deprecateApp, retireRelease, setOrphan } from '../../../domain/apps/app-status.ts';
import { AppError, isAppError } from '../../../errors.ts';
import type { ManagePageState, ManageSection } from '../../../web/pages/developer-pages.ts';
import { manageAppPage, myAppsPage } from '../../../web/pages/developer-pages.ts';
import { totalDownloads } from '../../../domain/archives/download-counts.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import type { PageSetting } from '../../page-context.ts';
import { errorResponses } from '../../schemas.ts';
import type { SignedIn } from './signed-in-forms.ts';
import {
  LooseForm,
  REDIRECT as Redirect,
  SIGNED_IN_FORM_ERRORS as FORM_ERRORS,
  checked as on,
  placeProblems,
} from './signed-in-forms.ts';
import { AppParams } from './developer-page-kit.ts';
import type { SignedInPages } from './signed-in-forms.ts';
import type { Container } from '../../../container.ts';
import type { AppServer } from '../../types.ts';

/** "My apps" and each app's management page: releases, co-maintainers, transfer, flags, deletion. */
export async function developerAppRoutes(app: AppServer, container: Container, pages: SignedInPages): Promise<void> {
  app.get('/developer', {
    schema: { hide: true, response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') } },
    handler: async (request, reply) =>
      pages.page(request, reply, async (who, setting) => {
        const managed = await myApps(who.acting, container.appOverview);
        const ids = managed.map((m) => m.appId);
        const [downloads, listed] = await Promise.all([
          container.downloads.stats.stats.counts(ids),
          setting.catalog.details(ids),
        ]);
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

  // Managing an app
  /** The downloads chart's weeks: about a quarter. */
  const CHART_WEEKS = 12;

  async function managePage(appId: string, who: SignedIn, setting: PageSetting, state: ManagePageState) {
    const managed = await managedApp(appId, who.acting, container.appOverview);
    const trail = await appAuditTrail(managed, container.appOverview);
    const downloads = (await container.downloads.stats.stats.counts([appId])).get(appId) ?? null;
    const today = container.now();
    const chart = downloadChart(
      await container.downloads.stats.stats.releaseDownloads(appId, chartStart(today, CHART_WEEKS)),
      today,
      CHART_WEEKS,
    );
    const listed = (await setting.catalog.details([appId])).get(appId)?.app ?? null;
    const shotUrls = (listed?.screenshots ?? []).map((shot) => shot.url);
    const copies = await container.screenshots.copies();
    return manageAppPage(
      managed,
      listed,
      downloads,
      chart,
      await container.appStatus.statuses.status(appId),
      await listPublishers(appId, container.trustedPublishing),
      shotUrls.map((url) => ({ url, copy: copies.get(url) ?? null })),
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
    work: (appId: string, body: B, who: SignedIn, t: PageTexts) => Promise<string | null>,
  ) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const { appId } = request.params as { appId: string };
      const back = `/developer/apps/${appId}`;
      return pages.form(
        request,
        reply,
        back,
        async (who) => {
          const message = await work(appId, request.body as B, who, requestTexts(request));
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
            return messagePage(requestTexts(request).dev.myAppsTitle, state.problem?.detail ?? '', setting.context, {
              href: '/developer',
              label: requestTexts(request).dev.myAppsTitle,
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
    handler: manageForm<{ version?: string; nightly?: string }>('releases', async (appId, body, who, t) => {
      const version = body.version ?? '';
      await deleteRelease({ appId, version, nightly: on(body.nightly) }, who.user, who.acting, container.publishing);
      return t.dev.releaseDeleted(version);
    }),
  });

  // Saying an app is over (issue 52)
  app.post('/developer/apps/:appId/status/deprecate', {
    schema: manageSchema(['reason', 'successor', 'undo'], 'app_not_found'),
    handler: manageForm<{ reason?: string; successor?: string; undo?: string }>(
      'status',
      async (appId, body, who, t) => {
        const undo = on(body.undo);
        await deprecateApp(
          appId,
          undo ? null : { reason: body.reason ?? '', successor: body.successor ?? '' },
          who.acting,
          container.appStatus,
        );
        return undo ? t.dev.undeprecated : t.dev.deprecatedDone;
      },
    ),
  });

  app.post('/developer/apps/:appId/status/orphan', {
    schema: manageSchema(['orphan'], 'app_not_found'),
    handler: manageForm<{ orphan?: string }>('status', async (appId, body, who, t) => {
      const orphan = on(body.orphan);
      await setOrphan(appId, orphan, who.acting, container.appStatus);
      return orphan ? t.dev.orphaned : t.dev.adopted;
    }),
  });

  app.post('/developer/apps/:appId/releases/retire', {
    schema: manageSchema(['release', 'reason', 'note', 'undo'], 'release_not_found'),
    handler: manageForm<{ release?: string; reason?: string; note?: string; undo?: string }>(
      'retired',
      async (appId, body, who, t) => {
        // "1.2.0" or "1.2.0 nightly", as the form's choices name them.
        const [version = '', kind = ''] = (body.release ?? '').trim().split(' ');
        const undo = on(body.undo);
        await retireRelease(
          { appId, version, nightly: kind === 'nightly' },
          undo ? null : { reason: body.reason ?? '', note: body.note ?? '' },
          who.acting,
          container.appStatus,
        );
        return undo ? t.dev.releaseRestored(version) : t.dev.releaseRetired(version);
      },
    ),
  });

  // Trusted publishers (issue 53)
  app.post('/developer/apps/:appId/publishers/add', {
    schema: manageSchema(
      ['provider', 'issuer', 'repository', 'workflow', 'environment', 'ref', 'repositoryId', 'ownerId', 'claims'],
      'forbidden',
      'conflict',
    ),
    handler: manageForm<Record<string, string | undefined>>('publishers', async (appId, body, who, t) => {
      const claims = Object.fromEntries(
        (body['claims'] ?? '')
          .split(/\r?\n/)
          .map((line) => line.trim())
          .filter((line) => line !== '')
          .map((line) => {
            const at = line.indexOf('=');
            return at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
          }),
      );
      const { provider = '', issuer, repository, workflow, environment, ref, repositoryId, ownerId } = body;
      await addPublisher(
        appId,
        {
          provider,
          ...(issuer === undefined ? {} : { issuer }),
          ...(repository === undefined ? {} : { repository }),
          ...(workflow === undefined ? {} : { workflow }),
          ...(environment === undefined ? {} : { environment }),
          ...(ref === undefined ? {} : { ref }),
          ...(repositoryId === undefined ? {} : { repositoryId }),
          ...(ownerId === undefined ? {} : { ownerId }),
          claims,
        },
        who.acting,
        container.trustedPublishing,
      );
      return t.dev.publisherAdded;
    }),
  });

  app.post('/developer/apps/:appId/publishers/remove', {
    schema: manageSchema(['id'], 'forbidden', 'not_found'),
    handler: manageForm<{ id?: string }>('publishers', async (appId, body, who, t) => {
      const id = Number(body.id ?? '');
      if (!Number.isInteger(id))
        throw new AppError('invalid_request', said`Which trusted publisher? The form names none.`);
      await removePublisher(appId, id, who.acting, container.trustedPublishing);
      return t.dev.publisherRemoved;
    }),
  });

  app.post('/developer/apps/:appId/maintainers/add', {
    schema: manageSchema(['username'], 'user_not_found', 'conflict'),
    handler: manageForm<{ username?: string }>('maintainers', async (appId, body, who, t) => {
      const username = (body.username ?? '').trim();
      const added = await addCoMaintainer(appId, username, who.acting, container.appManagement).catch(
        placeProblems({ rename: () => 'username', field: () => 'username' }),
      );
      return added ? t.dev.maintainerAdded(username) : t.dev.maintainerAlready(username);
    }),
  });

  app.post('/developer/apps/:appId/maintainers/remove', {
    schema: manageSchema(['username'], 'user_not_found'),
    handler: manageForm<{ username?: string }>('maintainers', async (appId, body, who, t) => {
      const username = body.username ?? '';
      await removeCoMaintainer(appId, username, who.acting, container.appManagement);
      // A co-maintainer who stepped down can no longer see the page.
      return who.user.username === username && !who.user.isAdmin ? null : t.dev.maintainerRemoved(username);
    }),
  });

  app.post('/developer/apps/:appId/transfer', {
    schema: manageSchema(['unlock']),
    handler: manageForm<{ unlock?: string }>('transfer', async (appId, body, who, t) => {
      if (on(body.unlock)) await unlockTransfer(appId, who.acting, container.appManagement);
      else await lockTransfer(appId, who.acting, container.appManagement);
      return on(body.unlock) ? t.dev.transferUnlocked : t.dev.transferLocked;
    }),
  });

  app.post('/developer/apps/:appId/flags', {
    schema: manageSchema(['featured', 'enterprise']),
    handler: manageForm<{ featured?: string; enterprise?: string }>('flags', async (appId, body, who, t) => {
      await setAppFlags(
        appId,
        { featured: on(body.featured), enterpriseOnly: on(body.enterprise) },
        who.acting,
        container.appManagement,
      );
      return t.dev.flagsSaved;
    }),
  });

  app.post('/developer/apps/:appId/delete', {
    schema: manageSchema(['confirm']),
    handler: manageForm<{ confirm?: string }>('delete', async (appId, body, who, _t) => {
      if ((body.confirm ?? '').trim() !== appId)
        throw new AppError('invalid_request', said`Type the app id, ${appId}, exactly.`, {
          confirm: [said`Type the app id, ${appId}, exactly.`],
        });
      await deleteApp(appId, who.user, who.acting, container.appManagement);
      return null;
    }),
  });
}
