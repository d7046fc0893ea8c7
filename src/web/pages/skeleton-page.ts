import { field, postForm, problemBox } from '../forms.ts';
import type { FormState } from '../forms.ts';
import type { Html } from '../html.ts';
import { html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { developerLayout } from './developer-pages.ts';

/** The skeleton generator's form (issue 52); its answer is the .tar.gz itself. */
export function skeletonPage(
  categories: ReadonlyArray<{ readonly id: string; readonly name: string }>,
  majors: { readonly min: string; readonly max: string },
  isAdmin: boolean,
  token: string,
  state: FormState,
  context: PageContext,
): Html {
  const dev = context.t.dev;
  const value = (name: string, fallback: string): string => state.values?.[name] ?? fallback;
  const withDefaults: FormState = {
    ...state,
    values: { min: value('min', majors.min), max: value('max', majors.max), ...(state.values ?? {}) },
  };
  const chosen = value('category', categories[0]?.id ?? '');
  return developerLayout(
    dev.generateTitle,
    'generate',
    isAdmin,
    html`<p>${dev.generateLead}</p>${problemBox(state)}
${postForm(
  '/developer/apps/generate',
  token,
  html`${field({ name: 'id', label: dev.idLabel, hint: dev.idHint, maxLength: 32, autocomplete: 'off', form: 'generate' }, withDefaults)}
${field({ name: 'name', label: dev.nameLabel, maxLength: 80, autocomplete: 'off', form: 'generate' }, withDefaults)}
${field({ name: 'summary', label: dev.summaryLabel, hint: dev.summaryHint, maxLength: 200, required: false, form: 'generate' }, withDefaults)}
${field({ name: 'author', label: dev.authorLabel, maxLength: 100, autocomplete: 'name', form: 'generate' }, withDefaults)}
${field({ name: 'email', label: dev.authorEmailLabel, type: 'email', maxLength: 254, required: false, autocomplete: 'email', form: 'generate' }, withDefaults)}
<p class="field"><label for="generate-category">${dev.categoryLabel}</label> <select id="generate-category" name="category">${categories.map((c) => html`<option value="${c.id}"${c.id === chosen ? html` selected` : ''}>${c.name}</option>`)}</select></p>
${field({ name: 'min', label: dev.minLabel, maxLength: 2, form: 'generate' }, withDefaults)}
${field({ name: 'max', label: dev.maxLabel, maxLength: 2, form: 'generate' }, withDefaults)}
${field({ name: 'bugs', label: dev.bugsLabel, hint: dev.bugsHint, maxLength: 500, required: false, form: 'generate' }, withDefaults)}
<p><button type="submit">${dev.generateButton}</button></p>`,
)}`,
    context,
  );
}
