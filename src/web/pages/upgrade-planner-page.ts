import type { PlannedApp, UpgradePlan } from '../../domain/apps/upgrade-plan.ts';
import { field, postForm, problemBox, textArea } from '../forms.ts';
import type { FormState } from '../forms.ts';
import { html } from '../html.ts';
import type { Html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { layout } from '../layout.ts';
import { renderMarkdown } from '../markdown.ts';
import type { SiteStrings } from '../strings.ts';
import { dataTable } from '../tables.ts';
import { textLanguage } from '../page-texts.ts';
import { rangeText } from '../catalog-display.ts';
import { specBounds } from '../../domain/browse/browse-catalog.ts';

const STATUS = {
  update: 'planUpdate',
  'up-to-date': 'planUpToDate',
  'no-release': 'planNoRelease',
  'not-listed': 'planNotListed',
} as const satisfies Record<PlannedApp['status'], keyof SiteStrings>;

/** Why an app gets what it gets, in the page's language (the API's `reason` is English). */
function why(s: SiteStrings, app: PlannedApp, nextcloud: string): string {
  switch (app.status) {
    case 'not-listed':
      return s.planNotListedWhy;
    case 'no-release':
      return app.why.kind === 'no-stable'
        ? s.planNoStable
        : app.why.kind === 'none-fits'
          ? s.planNoneFits(nextcloud, app.why.newest, app.why.needs)
          : s.planInstalledNewer(app.installed, nextcloud, app.why.best);
    case 'update': {
      const range = specBounds(app.release.platformVersionSpec);
      return s.planSupports(rangeText(s, range));
    }
    case 'up-to-date':
      return s.planNewestInstalled;
  }
}

function row(s: SiteStrings, app: PlannedApp, nextcloud: string): Html {
  const take = 'release' in app ? app.release.version : '–';
  const exApp = 'isExApp' in app && app.isExApp;
  return html`<tr><th scope="row">${app.id}${exApp ? html` <span class="mark">ExApp</span>` : ''}${app.enabled ? '' : html` <span class="muted">${s.planDisabled}</span>`}</th><td data-label="${s.planInstalled}">${app.installed === '' ? '–' : app.installed}</td><td data-label="${s.planTake}">${take}</td><td data-label="${s.planStatus}"><strong>${s[STATUS[app.status]]}</strong> ${why(s, app, nextcloud)}</td></tr>`;
}

function changes(app: PlannedApp): Html | '' {
  if (!('changelogs' in app) || app.changelogs.length === 0) return '';
  return html`<details><summary><bdi>${app.id}: ${app.installed} → ${app.release.version}</bdi></summary>${app.changelogs.map(
    (entry) =>
      html`<h4><bdi>${entry.version}</bdi></h4><div class="markdown"${textLanguage(entry.language)}>${renderMarkdown(entry.changelog)}</div>`,
  )}</details>`;
}

/** `/upgrade` (issue 54 §4): paste `occ app:list --output=json`, pick the Nextcloud version, read the plan. */
export function upgradePlannerPage(
  majors: readonly string[],
  formToken: string,
  state: FormState,
  plan: UpgradePlan | null,
  context: PageContext,
): Html {
  const { t } = context;
  const s = t.site;
  const chosen = state.values?.['nextcloud'] ?? majors[0] ?? '';
  const order: Record<PlannedApp['status'], number> = { 'no-release': 0, update: 1, 'up-to-date': 2, 'not-listed': 3 };
  const apps =
    plan === null ? [] : [...plan.apps].sort((a, b) => order[a.status] - order[b.status] || a.id.localeCompare(b.id));
  return layout(
    { title: s.planTitle },
    html`<h1>${s.planTitle}</h1>
<div class="narrow"><p>${t.tagged('site.planLead', { code: (inner) => html`<code>${inner}</code>` })}</p>
${problemBox(state)}
${postForm(
  '/upgrade#plan',
  formToken,
  html`${textArea({ name: 'apps', label: s.planPasteLabel, rows: 8, maxLength: 200_000, form: 'upgrade' }, state)}
${
  majors.length === 0
    ? field(
        {
          name: 'nextcloud',
          label: s.planTarget,
          hint: s.planTargetHint,
          maxLength: 20,
          form: 'upgrade',
        },
        state,
      )
    : html`<p class="field"><label for="upgrade-nextcloud">${s.planTarget}</label> <select id="upgrade-nextcloud" name="nextcloud">${majors.map((major) => html`<option value="${major}"${major === chosen ? html` selected` : ''}>${major}</option>`)}</select></p>`
}
<p><button type="submit">${s.planButton}</button></p>`,
)}</div>
${
  plan === null
    ? ''
    : html`<section aria-labelledby="plan"><h2 id="plan">${s.planResult(plan.nextcloud)}</h2>
${dataTable(
  s,
  { caption: s.planResult(plan.nextcloud), headings: [s.planApp, s.planInstalled, s.planTake, s.planStatus] },
  apps.map((app) => row(s, app, plan.nextcloud)),
)}
${apps.some((app) => 'changelogs' in app && app.changelogs.length > 0) ? html`<h3>${s.planChanges}</h3>${apps.map(changes)}` : ''}</section>`
}`,
    context,
  );
}
