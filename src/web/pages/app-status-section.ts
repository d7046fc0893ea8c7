import type { AppStatus } from '../../domain/apps/app-status.ts';
import { RETIREMENT_REASONS } from '../../domain/apps/app-status.ts';
import type { ListedApp } from '../../domain/listings/app-listing.ts';
import { DEV } from '../developer-strings.ts';
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
}

const REASON_LABELS: Record<(typeof RETIREMENT_REASONS)[number], string> = {
  security: DEV.retireSecurity,
  broken: DEV.retireBroken,
  other: DEV.retireOther,
};

function deprecationSection(input: StatusSectionInput): Html {
  const { base, token, status } = input;
  const form = input.formOf('status');
  const deprecated = status.deprecated;
  return html`<section aria-labelledby="status"><h2 id="status">${DEV.statusTitle}</h2>${input.around('status')}
${
  deprecated === null
    ? html`<p>${DEV.deprecateLead}</p>${postForm(
        `${base}/status/deprecate`,
        token,
        html`${textArea({ name: 'reason', label: DEV.deprecationReasonLabel, hint: DEV.deprecationReasonHint, rows: 3, maxLength: 500, form: 'deprecate' }, form)}
${field({ name: 'successor', label: DEV.successorLabel, hint: DEV.successorHint, required: false, maxLength: 32, autocomplete: 'off', form: 'deprecate' }, form)}
<p><button type="submit" class="secondary">${DEV.deprecateButton}</button></p>`,
      )}`
    : html`<div class="notice warning"><p>${DEV.deprecatedSince(deprecated.at.slice(0, 10))} ${deprecated.reason}</p>${deprecated.successor === '' ? '' : html`<p>${DEV.successorLabel}: <a href="/apps/${deprecated.successor}">${deprecated.successor}</a></p>`}</div>${postForm(`${base}/status/deprecate`, token, html`<input type="hidden" name="undo" value="on"><p><button type="submit" class="secondary">${DEV.undeprecateButton}</button></p>`)}`
}
<h3>${DEV.maintainersWanted}</h3>
<p>${status.orphanedSince === null ? DEV.orphanLead : DEV.orphanSince(status.orphanedSince.slice(0, 10))}</p>
${postForm(`${base}/status/orphan`, token, html`<input type="hidden" name="orphan" value="${status.orphanedSince === null ? 'on' : ''}"><p><button type="submit" class="secondary">${status.orphanedSince === null ? DEV.orphanButton : DEV.adoptButton}</button></p>`)}</section>`;
}

function retiredSection(input: StatusSectionInput): Html {
  const { base, token, status, listed } = input;
  const form = input.formOf('retired');
  const choices = (listed?.releases ?? []).map((r) => `${r.version}${r.isNightly ? ' nightly' : ''}`);
  const chosen = form.values?.['release'] ?? '';
  return html`<section aria-labelledby="retired"><h2 id="retired">${DEV.retiredTitle}</h2>${input.around('retired')}
<p>${DEV.retireLead}</p>
${
  choices.length === 0
    ? ''
    : postForm(
        `${base}/releases/retire`,
        token,
        html`<p class="field"><label for="retire-release">${DEV.releaseLabel}</label> <select id="retire-release" name="release">${choices.map((c) => html`<option value="${c}"${c === chosen ? html` selected` : ''}>${c}</option>`)}</select></p>
<p class="field"><label for="retire-reason">${DEV.retireReasonLabel}</label> <select id="retire-reason" name="reason">${RETIREMENT_REASONS.map((r) => html`<option value="${r}"${form.values?.['reason'] === r ? html` selected` : ''}>${REASON_LABELS[r]}</option>`)}</select></p>
${textArea({ name: 'note', label: DEV.retireNoteLabel, hint: DEV.retireNoteHint, rows: 2, maxLength: 500, required: false, form: 'retire' }, form)}
<p><button type="submit" class="secondary">${DEV.retireButton}</button></p>`,
      )
}
${
  status.retired.length === 0
    ? ''
    : html`<ul class="plain">${status.retired.map(
        (r) =>
          html`<li><strong>${r.version}${r.nightly ? ' (nightly)' : ''}</strong>: ${REASON_LABELS[r.reason]}${r.note === '' ? '' : html` — ${r.note}`} <span class="muted">(${r.at.slice(0, 10)})</span> ${postForm(`${base}/releases/retire`, token, html`<input type="hidden" name="release" value="${r.version}${r.nightly ? ' nightly' : ''}"><input type="hidden" name="undo" value="on"><button type="submit" class="secondary">${DEV.restoreButton(r.version)}</button>`, 'inline')}</li>`,
      )}</ul>`
}</section>`;
}

export function statusSections(input: StatusSectionInput): Html {
  return html`${input.owns ? deprecationSection(input) : ''}
${retiredSection(input)}`;
}
