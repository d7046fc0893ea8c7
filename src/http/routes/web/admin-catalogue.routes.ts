import { said } from '../../../i18n/said.ts';
import type { AppServer } from '../../types.ts';
import {
  categoriesForAdmin,
  importPlatformReleases,
  platformsForAdmin,
  saveCategoryText,
} from '../../../domain/catalog/import-catalog.ts';
import { exportDiscover, importDiscover } from '../../../domain/discover/manage-discover.ts';
import { AppError } from '../../../errors.ts';
import type { AdminState } from '../../../web/pages/admin-pages.ts';
import { adminCategoriesPage, adminDiscoverPage, adminPlatformsPage } from '../../../web/pages/admin-pages.ts';
import type { PageSetting } from '../../page-context.ts';
import type { SignedIn } from './signed-in-forms.ts';
import { checked as on, placeProblems } from './signed-in-forms.ts';
import { adminGetSchema, adminPostSchema } from './admin-page-kit.ts';
import type { AdminPageKit } from './admin-page-kit.ts';

/** The administrator's catalogue pages: category texts, Nextcloud releases, discover entries. */
export async function adminCatalogueRoutes(app: AppServer, kit: AdminPageKit): Promise<void> {
  // Categories and Nextcloud releases

  const categoriesPage = async (who: SignedIn, setting: PageSetting, state: AdminState) =>
    adminCategoriesPage(
      await categoriesForAdmin(who.acting, kit.container.catalog),
      setting.formToken(),
      state,
      setting.context,
    );
  app.get('/admin/categories', {
    schema: adminGetSchema(),
    handler: async (request, reply) => kit.page(request, reply, (who, setting) => categoriesPage(who, setting, {})),
  });
  app.post('/admin/categories', {
    schema: adminPostSchema(['id', 'language', 'name', 'description'], 'invalid_import'),
    handler: kit.form(
      'category',
      '/admin/categories',
      async (body, who, t) => {
        const id = (body['id'] ?? '').trim();
        const language = (body['language'] ?? '').trim();
        await saveCategoryText(
          id,
          language,
          { name: body['name'] ?? '', description: body['description'] ?? '' },
          who.acting,
          kit.container.catalog,
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
        return t.admin.categorySaved(id);
      },
      categoriesPage,
    ),
  });

  const platformsPage = async (who: SignedIn, setting: PageSetting, state: AdminState) =>
    adminPlatformsPage(
      await platformsForAdmin(who.acting, kit.container.catalog),
      setting.formToken(),
      state,
      setting.context,
    );
  app.get('/admin/platforms', {
    schema: adminGetSchema(),
    handler: async (request, reply) => kit.page(request, reply, (who, setting) => platformsPage(who, setting, {})),
  });
  app.post('/admin/platforms', {
    schema: adminPostSchema(['version', 'hasRelease', 'isSupported'], 'invalid_import'),
    handler: kit.form(
      'platform',
      '/admin/platforms',
      async (body, who, t) => {
        const version = (body['version'] ?? '').trim();
        await importPlatformReleases(
          [{ version, hasRelease: on(body['hasRelease']), isSupported: on(body['isSupported']) }],
          who.acting,
          kit.container.catalog,
        ).catch(placeProblems({ rename: () => 'version' }));
        return t.admin.platformSaved(version);
      },
      platformsPage,
    ),
  });

  // Discover entries

  const discoverPage = async (who: SignedIn, setting: PageSetting, state: AdminState) =>
    adminDiscoverPage(
      JSON.stringify(await exportDiscover(who.acting, kit.container.discover), null, 2),
      setting.formToken(),
      state,
      setting.context,
    );
  app.get('/admin/discover', {
    schema: adminGetSchema(),
    handler: async (request, reply) => kit.page(request, reply, (who, setting) => discoverPage(who, setting, {})),
  });
  app.post('/admin/discover', {
    schema: adminPostSchema(['entries'], 'invalid_import'),
    handler: kit.form(
      'discover',
      '/admin/discover',
      async (body, who, t) => {
        let data: unknown;
        try {
          data = JSON.parse(body['entries'] ?? '');
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new AppError('invalid_request', said`The entries are not JSON: ${reason}`, {
            entries: [said`is not JSON: ${reason}`],
          });
        }
        const result = await importDiscover(data, who.acting, kit.container.discover).catch(
          placeProblems({ rename: () => 'entries' }),
        );
        return t.admin.discoverSaved(result.entries, result.changed);
      },
      discoverPage,
    ),
  });
}
