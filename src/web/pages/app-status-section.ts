import type { DevStrings } from '../developer-strings.ts';
import type { AppStatus } from '../../domain/apps/app-status.ts';
import { RETIREMENT_REASONS } from '../../domain/apps/app-status.ts';
import type { ListedApp } from '../../domain/listings/app-listing.ts';
import { field, postForm, textArea } from '../forms.ts';
import type { FormState } from '../forms.ts';
import type { Html } from '../html.ts';
import { html } from '../html.ts';

/**
 * The manage page's sections on an app that is over (issue 52): deprecation and "looking for
 * maintainers" (the owner's and administrators'), and retiring releases (whoever may delete them).
 */
export interface StatusSectionInput {
  readonly base: string;
  readonly token: string;
  readonly owns: boolean;
  readonly status: AppStatus;
  readonly listed: ListedApp | null;
  readonly formOf: (section: 'status' | 'retired') => FormState;
  readonly around: (section: 'status' | 'retired') => Html;
  readonly dev: DevStrings;
}

const REASON_LABELS = {
  security: 'retireSecurity',
  broken: 'retireBroken',
  other: 'retireOther',
} as const satisfies Record<(typeof RETIREMENT_REASONS)[number], keyof DevStrings>;

function deprecationSection(dev: DevStrings, input: StatusSectionInput): Html {
  const { base, token, status } = input;
  const form = input.formOf('status');
  const deprecated = status.deprecated;
  return html`<section aria-labelledby="status"><h2 id="status">${dev.statusTitle}</h2>${input.around('status')}
${
  deprecated === null
    ? html`<p>${dev.deprecateLead}</p>${postForm(
        `${base}/status/deprecate`,
        token,
        html`${textArea({ name: 'reason', label: dev.deprecationReasonLabel, hint: dev.deprecationReasonHint, rows: 3, maxLength: 500, form: 'deprecate' }, form)}
${field({ name: 'successor', label: dev.successorLabel, hint: dev.successorHint, required: false, maxLength: 32, autocomplete: 'off', form: 'deprecate' }, form)}
<p><button type="submit" class="secondary">${dev.deprecateButton}</button></p>`,
      )}`
    : html`<div class="notice warning"><p>${dev.deprecatedSince(deprecated.at.slice(0, 10))} ${deprecated.reason}</p>${deprecated.successor === '' ? '' : html`<p>${dev.successorLabel}: <a href="/apps/${deprecated.successor}">${deprecated.successor}</a></p>`}</div>${postForm(`${base}/status/deprecate`, token, html`<input type="hidden" name="undo" value="on"><p><button type="submit" class="secondary">${dev.undeprecateButton}</button></p>`)}`
}
<h3>${dev.maintainersWanted}</h3>
<p>${status.orphanedSince === null ? dev.orphanLead : dev.orphanSince(status.orphanedSince.slice(0, 10))}</p>
${postForm(`${base}/status/orphan`, token, html`<input type="hidden" name="orphan" value="${status.orphanedSince === null ? 'on' : ''}"><p><button type="submit" class="secondary">${status.orphanedSince === null ? dev.orphanButton : dev.adoptButton}</button></p>`)}</section>`;
}

function retiredSection(dev: DevStrings, input: StatusSectionInput): Html {
  const { base, token, status, listed } = input;
  const form = input.formOf('retired');
  const choices = (listed?.releases ?? []).map((r) => `${r.version}${r.isNightly ? ' nightly' : ''}`);
  const chosen = form.values?.['release'] ?? '';
  return html`<section aria-labelledby="retired"><h2 id="retired">${dev.retiredTitle}</h2>${input.around('retired')}
<p>${dev.retireLead}</p>
${
  choices.length === 0
    ? ''
    : postForm(
        `${base}/releases/retire`,
        token,
        html`<p class="field"><label for="retire-release">${dev.releaseLabel}</label> <select id="retire-release" name="release">${choices.map((c) => html`<option value="${c}"${c === chosen ? html` selected` : ''}>${c}</option>`)}</select></p>
<p class="field"><label for="retire-reason">${dev.retireReasonLabel}</label> <select id="retire-reason" name="reason">${RETIREMENT_REASONS.map((r) => html`<option value="${r}"${form.values?.['reason'] === r ? html` selected` : ''}>${dev[REASON_LABELS[r]]}</option>`)}</select></p>
${textArea({ name: 'note', label: dev.retireNoteLabel, hint: dev.retireNoteHint, rows: 2, maxLength: 500, required: false, form: 'retire' }, form)}
<p><button type="submit" class="secondary">${dev.retireButton}</button></p>`,
      )
}
${
  status.retired.length === 0
    ? ''
    : html`<ul class="plain">${status.retired.map(
        (r) =>
          html`<li><strong>${r.version}${r.nightly ? ' (nightly)' : ''}</strong>: ${dev[REASON_LABELS[r.reason]]}${r.note === '' ? '' : html` — ${r.note}`} <span class="muted">(${r.at.slice(0, 10)})</span> ${postForm(`${base}/releases/retire`, token, html`<input type="hidden" name="release" value="${r.version}${r.nightly ? ' nightly' : ''}"><input type="hidden" name="undo" value="on"><button type="submit" class="secondary">${dev.restoreButton(r.version)}</button>`, 'inline')}</li>`,
      )}</ul>`
}</section>`;
}

export function statusSections(input: StatusSectionInput): Html {
  const { dev } = input;
  return html`${input.owns ? deprecationSection(dev, input) : ''}
${retiredSection(dev, input)}`;
}
