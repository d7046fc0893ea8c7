import { Type } from 'typebox';
import type { Container } from '../../../container.ts';
import { generateSkeleton } from '../../../domain/apps/app-skeleton.ts';
import { skeletonPage } from '../../../web/pages/skeleton-page.ts';
import { PAGE_RESPONSE } from '../../html-reply.ts';
import { errorResponses } from '../../schemas.ts';
import { Form, text } from './developer-page-kit.ts';
import { REDIRECT as Redirect, SIGNED_IN_FORM_ERRORS as FORM_ERRORS } from './signed-in-forms.ts';
import type { SignedInPages } from './signed-in-forms.ts';
import type { AppServer } from '../../types.ts';

const FIELDS = ['id', 'name', 'summary', 'author', 'email', 'category', 'min', 'max', 'bugs'] as const;

/** The app skeleton generator (issue 52): a form, answered with the .tar.gz. */
export async function developerGenerateRoutes(
  app: AppServer,
  container: Container,
  pages: SignedInPages,
): Promise<void> {
  const choices = async () => {
    const categories = (await container.catalog.store.categories()).map((c) => ({
      id: c.id,
      name: c.translations['en']?.name ?? c.id,
    }));
    const majors = (await container.catalog.store.platformReleases())
      .filter((r) => r.isSupported)
      .map((r) => Number(r.version.split('.')[0]));
    const majorsOr = majors.length === 0 ? [30, 32] : majors;
    return {
      categories,
      majors: { min: String(Math.min(...majorsOr)), max: String(Math.max(...majorsOr)) },
    };
  };

  app.get('/developer/apps/generate', {
    schema: { hide: true, response: { ...PAGE_RESPONSE, ...Redirect, ...errorResponses('invalid_request') } },
    handler: async (request, reply) =>
      pages.page(request, reply, async (who, setting) => {
        const { categories, majors } = await choices();
        return skeletonPage(categories, majors, who.user.isAdmin, setting.formToken(), {}, setting.context);
      }),
  });

  app.post('/developer/apps/generate', {
    schema: {
      hide: true,
      body: Form(Object.fromEntries(FIELDS.map((f) => [f, Type.Optional(text(500))]))),
      response: {
        ...PAGE_RESPONSE,
        ...Redirect,
        200: Type.Any({ description: 'The skeleton (application/gzip), or the form again with what was wrong' }),
        ...errorResponses(FORM_ERRORS),
      },
    },
    handler: async (request, reply) => {
      const body = request.body as Partial<Record<(typeof FIELDS)[number], string>>;
      return pages.form(
        request,
        reply,
        '/developer/apps/generate',
        async () => {
          const { categories } = await choices();
          const skeleton = await generateSkeleton(
            {
              id: body.id ?? '',
              name: body.name ?? '',
              summary: body.summary ?? '',
              author: body.author ?? '',
              email: body.email ?? '',
              category: body.category ?? '',
              min: (body.min ?? '').trim(),
              max: (body.max ?? '').trim(),
              bugs: body.bugs ?? '',
            },
            categories.map((c) => c.id),
            (id) => `${container.publicUrl}/apps/${id}`,
            container.now(),
            container.publicUrl,
          );
          return reply
            .type('application/gzip')
            .header('content-disposition', `attachment; filename="${skeleton.fileName}"`)
            .send(skeleton.bytes);
        },
        async (state, who, setting) => {
          const { categories, majors } = await choices();
          return skeletonPage(categories, majors, who.user.isAdmin, setting.formToken(), state, setting.context);
        },
      );
    },
  });
}
