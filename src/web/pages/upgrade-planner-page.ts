import type { PlannedApp, UpgradePlan } from '../../domain/apps/upgrade-plan.ts';
import { field, postForm, problemBox, textArea } from '../forms.ts';
import type { FormState } from '../forms.ts';
import { html } from '../html.ts';
import type { Html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { layout } from '../layout.ts';
import { renderMarkdown } from '../markdown.ts';
import { dataTable } from '../tables.ts';

const STATUS: Readonly<Record<PlannedApp['status'], string>> = {
  update: 'Update',
  'up-to-date': 'Up to date',
  'no-release': 'No release',
  'not-listed': 'Not in this store',
};

function row(app: PlannedApp): Html {
  const take = 'release' in app ? app.release.version : '–';
  const why =
    'reason' in app
      ? app.reason
      : app.status === 'update'
        ? `Supports ${app.release.platformVersionSpec}.`
        : 'The installed version is the newest for this Nextcloud.';
  return html`<tr><th scope="row">${app.id}${app.enabled ? '' : html` <span class="muted">(disabled)</span>`}</th><td data-label="Installed">${app.installed}</td><td data-label="Take">${take}</td><td data-label="Status"><strong>${STATUS[app.status]}</strong> ${why}</td></tr>`;
}

function changes(app: PlannedApp): Html | '' {
  if (!('changelogs' in app) || app.changelogs.length === 0) return '';
  const combined = app.changelogs.map((entry) => `### ${entry.version}\n\n${entry.changelog}`).join('\n\n');
  return html`<details><summary>${app.id}: ${app.installed} → ${app.release.version}</summary><div class="markdown">${renderMarkdown(combined)}</div></details>`;
}

/** `/upgrade` (issue 54 §4): paste `occ app:list --output=json`, pick the Nextcloud version, read the plan. */
export function upgradePlannerPage(
  majors: readonly string[],
  formToken: string,
  state: FormState,
  plan: UpgradePlan | null,
  context: PageContext,
): Html {
  const chosen = state.values?.['nextcloud'] ?? majors[0] ?? '';
  const order: Record<PlannedApp['status'], number> = { 'no-release': 0, update: 1, 'up-to-date': 2, 'not-listed': 3 };
  const apps =
    plan === null ? [] : [...plan.apps].sort((a, b) => order[a.status] - order[b.status] || a.id.localeCompare(b.id));
  return layout(
    { title: 'Plan a Nextcloud upgrade' },
    html`<h1>Plan a Nextcloud upgrade</h1>
<div class="narrow"><p>On your server, run <code>occ app:list --output=json</code> and paste what it prints. For each app you get the release to take on the Nextcloud version you upgrade to, or why there is none, and what changed since your version. Nothing you paste is kept.</p>
${problemBox(state)}
${postForm(
  '/upgrade#plan',
  formToken,
  html`${textArea({ name: 'apps', label: 'The output of occ app:list --output=json', rows: 8, maxLength: 200_000, form: 'upgrade' }, state)}
${
  majors.length === 0
    ? field(
        {
          name: 'nextcloud',
          label: 'Upgrade to Nextcloud',
          hint: 'A version such as 33 or 33.0.1',
          maxLength: 20,
          form: 'upgrade',
        },
        state,
      )
    : html`<p class="field"><label for="upgrade-nextcloud">Upgrade to Nextcloud</label> <select id="upgrade-nextcloud" name="nextcloud">${majors.map((major) => html`<option value="${major}"${major === chosen ? html` selected` : ''}>${major}</option>`)}</select></p>`
}
<p><button type="submit">Plan the upgrade</button></p>`,
)}</div>
${
  plan === null
    ? ''
    : html`<section aria-labelledby="plan"><h2 id="plan">Your apps on Nextcloud ${plan.nextcloud}</h2>
${dataTable({ caption: `Your apps on Nextcloud ${plan.nextcloud}`, headings: ['App', 'Installed', 'Take', 'Status'] }, apps.map(row))}
${apps.some((app) => 'changelogs' in app && app.changelogs.length > 0) ? html`<h3>What changes</h3>${apps.map(changes)}` : ''}</section>`
}`,
    context,
  );
}
