import type { DevStrings } from '../developer-strings.ts';
import { pageRefusal } from '../refusal-texts.ts';
import { translateSaid } from '../../i18n/refusals.ts';
import type { ErrorCode } from '../../errors.ts';
import type { PageTexts } from '../page-texts.ts';
import type { ScreenshotCopy } from '../../domain/screenshots/screenshot-copies.ts';
import { screenshotAddress } from '../../domain/screenshots/screenshot-copies.ts';
import type { AuditRecord } from '../../domain/audit/audit.ts';
import { ratingToStars } from '../../domain/ratings/rate-app.ts';
import type { ManagedApp } from '../../domain/apps/app-overview.ts';
import type { CertificateRequest } from '../../domain/identity/request-certificate.ts';
import type { ListedApp } from '../../domain/listings/app-listing.ts';
import type { PublishJob } from '../../domain/releases/publish-jobs.ts';
import { releaseDownloads } from '../../domain/archives/download-counts.ts';
import type { AppDownloadCounts } from '../../domain/archives/download-counts.ts';
import { downloadCharts } from '../download-chart.ts';
import { statusSections } from './app-status-section.ts';
import { provenanceCell, publishersSection } from './trusted-publishers-section.ts';
import type { TrustedPublisher } from '../../domain/trusted-publishing/publishers.ts';
import type { AppStatus } from '../../domain/apps/app-status.ts';
import type { DownloadChart } from '../../domain/archives/download-weeks.ts';
import {
  checkbox,
  field,
  fileField,
  notice,
  postForm,
  problemBox,
  problemParagraphs,
  textArea,
  uploadForm,
} from '../forms.ts';
import type { FormState } from '../forms.ts';
import type { Html, HtmlValue } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import { actionsHeading, dataTable } from '../tables.ts';
import { countText, rangeText, starRating } from '../catalog-display.ts';
import { newestRelease, releaseRange } from '../../domain/browse/browse-catalog.ts';

/** A moment as the pages show it (UTC, to the minute), machine-readable in its `<time>`. */
export const when = (date: Date): Html =>
  html`<time datetime="${date.toISOString()}">${date.toISOString().slice(0, 16).replace('T', ' ')}</time>`;

export type DeveloperSection = 'apps' | 'generate' | 'certificate' | 'register' | 'publish';

/** The developer pages' own navigation, under the site header. */
function developerNav(dev: DevStrings, active: DeveloperSection | null, isAdmin: boolean): Html {
  const links: Array<[DeveloperSection, string, string]> = [
    ['apps', '/developer', dev.myAppsTitle],
    ['generate', '/developer/apps/generate', dev.generateNav],
    ['certificate', '/developer/certificates', dev.stepCertificate],
    ['register', '/developer/register', dev.stepRegister],
    ['publish', '/developer/publish', dev.stepPublish],
  ];
  return html`<nav class="subnav" aria-label="${dev.sections}"><ul>${links.map(([key, href, label]) => html`<li><a href="${href}"${key === active ? html` aria-current="page"` : ''}>${label}</a></li>`)}${isAdmin ? html`<li><a href="/admin">${dev.navAdmin}</a></li>` : ''}</ul></nav>`;
}

export function developerLayout(
  title: string,
  active: DeveloperSection | null,
  isAdmin: boolean,
  body: HtmlValue,
  context: PageContext,
): Html {
  return layout({ title }, html`${developerNav(context.t.dev, active, isAdmin)}<h1>${title}</h1>${body}`, context);
}

/** A shell command to copy: selectable text, not an input. */
function command(text: string, label: string): Html {
  return html`<pre class="command" aria-label="${label}"><code>${text}</code></pre>`;
}

/** An app id for the commands: the one given, else a placeholder. */
const idOr = (appId: string): string => (appId === '' ? 'APP' : appId);

export interface MyAppRow {
  readonly app: ManagedApp;
  /** The app as the listings show it (null: no release yet). */
  readonly listed: ListedApp | null;
  /** All downloads of its releases, when this store serves its archives (mirror mode); else null. */
  readonly downloads: number | null;
}

export function myAppsPage(rows: readonly MyAppRow[], isAdmin: boolean, context: PageContext): Html {
  const s = context.t.site;
  const dev = context.t.dev;
  // Downloads are counted only for archives this store serves: the column appears when one is.
  const counted = rows.some((row) => row.downloads !== null);
  const table = html`<table class="data"><caption class="visually-hidden">${dev.myAppsTitle}</caption>
<thead><tr><th scope="col">${dev.auditApp}</th><th scope="col">${dev.roleHeading}</th><th scope="col">${dev.latest}</th><th scope="col">${dev.rating}</th>${counted ? html`<th scope="col">${s.downloadCount}</th>` : ''}</tr></thead>
<tbody>${rows.map(({ app, listed, downloads }) => {
    const latest = listed === null ? undefined : newestRelease(listed);
    return html`<tr><th scope="row"><a href="/developer/apps/${app.appId}">${listed?.translations['en']?.name ?? app.appId}</a> <span class="muted">${app.appId}</span></th>
<td data-label="${dev.roleHeading}">${dev.role[app.role] ?? ''}</td><td data-label="${dev.latest}">${latest === undefined ? dev.noRelease : html`${latest.version}${latest.isNightly ? html` <span class="mark">${s.nightly}</span>` : ''}`}</td>
<td data-label="${dev.rating}">${listed === null ? '–' : starRating(s, ratingToStars(listed.ratingOverall), listed.ratingNumOverall)}</td>${counted ? html`<td data-label="${s.downloadCount}">${downloads === null ? '–' : countText(downloads, context.t.language)}</td>` : ''}</tr>`;
  })}</tbody></table>`;
  return developerLayout(
    dev.myAppsTitle,
    'apps',
    isAdmin,
    html`<p>${dev.myAppsLead}</p>${rows.length === 0 ? notice(dev.noAppsYet) : table}
<h2>${dev.steps}</h2><ol class="steps"><li><a href="/developer/certificates">${dev.stepCertificate}</a></li><li><a href="/developer/register">${dev.stepRegister}</a></li><li><a href="/developer/publish">${dev.stepPublish}</a></li></ol>`,
    context,
  );
}

export interface CertificatePageModel {
  readonly appId: string;
  readonly ownAuthority: boolean;
  readonly approvalRequired: boolean;
  readonly requests: readonly CertificateRequest[];
  /** Right after a request: the certificate issued, or the request queued. */
  readonly outcome?:
    | { readonly status: 'issued'; readonly id: number; readonly appId: string; readonly certificate: string }
    | { readonly status: 'pending'; readonly appId: string };
}

function requestList(t: PageTexts, requests: readonly CertificateRequest[]): Html | '' {
  const { dev, site: s } = t;
  if (requests.length === 0) return '';
  return html`<h2>${dev.yourRequests}</h2><table class="data"><thead><tr><th scope="col">${dev.auditApp}</th><th scope="col">${dev.requested}</th><th scope="col">${dev.status}</th><th scope="col">${actionsHeading(s)}</th></tr></thead>
<tbody>${requests.map(
    (
      r,
    ) => html`<tr><th scope="row">${r.appId}</th><td data-label="${dev.requested}">${when(r.createdAt)}</td><td data-label="${dev.status}">${dev.requestStatus[r.status] ?? r.status}${r.status === 'rejected' && r.reason !== '' ? html`: ${r.reason}` : ''}</td>
<td>${r.status === 'issued' ? html`<a href="/developer/certificates/${r.id}/${r.appId}.crt" download>${dev.downloadCertificate}</a> · <a href="/developer/register?app=${r.appId}">${dev.registerWithIt}</a>` : ''}</td></tr>`,
  )}</tbody></table>`;
}

export function certificatePage(
  model: CertificatePageModel,
  isAdmin: boolean,
  token: string,
  state: FormState,
  context: PageContext,
): Html {
  const dev = context.t.dev;
  const id = idOr(model.appId);
  const { outcome } = model;
  const shown =
    outcome === undefined
      ? ''
      : outcome.status === 'pending'
        ? notice(dev.pendingText(outcome.appId))
        : html`<div class="notice" role="status"><h2>${dev.issuedTitle(outcome.appId)}</h2><p>${dev.issuedText.replace(/APP/g, outcome.appId)}</p>
<pre class="pem"><code>${outcome.certificate}</code></pre>
<p class="actions"><a class="button" href="/developer/certificates/${outcome.id}/${outcome.appId}.crt" download>${dev.downloadCertificate}</a> <a href="/developer/register?app=${outcome.appId}">${dev.registerWithIt}</a></p></div>`;
  if (!model.ownAuthority)
    return developerLayout(
      dev.certificateTitle,
      'certificate',
      isAdmin,
      html`<p>${dev.certificateLead}</p>${notice(dev.certificateExternal)}`,
      context,
    );
  return developerLayout(
    dev.certificateTitle,
    'certificate',
    isAdmin,
    html`<p>${dev.certificateLead}</p><p>${model.approvalRequired ? dev.certificateApproval : dev.certificateAutomatic}</p>${shown}
<form class="form inline-form" action="/developer/certificates" method="get">${field({ name: 'app', label: dev.appIdLabel, hint: dev.appIdHint, maxLength: 64, required: false, form: 'commands' }, { values: { app: model.appId } })}<p><button type="submit" class="secondary">${dev.showCommands}</button></p></form>
<h2>${dev.makeCsr}</h2>
${command(`openssl req -new -newkey rsa:4096 -nodes -keyout ${id}.key -subj /CN=${id} -out ${id}.csr`, dev.makeCsr)}
<p class="hint">${dev.makeCsrHint.replace(/APP/g, id)}</p>
<h2>${dev.pasteCsr}</h2>${problemBox(state)}
${postForm('/developer/certificates', token, html`${textArea({ name: 'csr', label: dev.csrLabel, hint: dev.csrHint, rows: 10, maxLength: 16384 }, state)}<p><button type="submit">${dev.requestCertificate}</button></p>`)}
${requestList(context.t, model.requests)}`,
    context,
  );
}

export function registerPage(
  appId: string,
  isAdmin: boolean,
  token: string,
  state: FormState,
  context: PageContext,
  done?: { appId: string; created: boolean; releasesDeleted: boolean },
): Html {
  const dev = context.t.dev;
  const id = idOr(appId);
  return developerLayout(
    dev.registerTitle,
    'register',
    isAdmin,
    html`<p>${dev.registerLead}</p>
${done === undefined ? '' : html`<div class="notice" role="status"><p>${done.created ? dev.registered(done.appId) : dev.updated(done.appId)}${done.releasesDeleted ? html` ${dev.releasesDeleted}` : ''}</p><p><a href="/developer/publish">${dev.stepPublish}</a> · <a href="/developer/apps/${done.appId}">${dev.manage(done.appId)}</a></p></div>`}
<form class="form inline-form" action="/developer/register" method="get">${field({ name: 'app', label: dev.appIdLabel, hint: dev.appIdHint, maxLength: 64, required: false, form: 'commands' }, { values: { app: appId } })}<p><button type="submit" class="secondary">${dev.showCommands}</button></p></form>
<h2>${dev.signId}</h2>
${command(`printf '%s' ${id} | openssl dgst -sha512 -sign ${id}.key | openssl base64`, dev.signId)}
<h2>2. ${dev.registerTitle}</h2>${problemBox(state)}
${postForm(
  '/developer/register',
  token,
  html`<input type="hidden" name="app" value="${appId}">${textArea({ name: 'certificate', label: dev.certificateLabel, hint: dev.certificateHint, rows: 10, maxLength: 16384 }, state)}
${textArea({ name: 'signature', label: dev.signatureLabel, hint: dev.signatureHint, rows: 5, maxLength: 8192 }, state)}
<p><button type="submit">${dev.registerButton}</button></p>`,
)}`,
    context,
  );
}

/** The publish form; `appId` (from ?app=, or kept through a refusal) fills in the commands' file names. */
/** Which of the publish page's two forms a refusal belongs to. */
export type PublishForm = 'upload' | 'address';

export function publishPage(
  appId: string,
  isAdmin: boolean,
  token: string,
  state: FormState,
  context: PageContext,
  options: { readonly kept: boolean; readonly refusedForm?: PublishForm },
): Html {
  const dev = context.t.dev;
  const app = appId === '' ? 'APP' : appId;
  const refused = options.refusedForm ?? 'address';
  const upload: FormState = refused === 'upload' ? state : {};
  const address: FormState = refused === 'address' ? state : {};
  const hiddenApp = appId === '' ? '' : html`<input type="hidden" name="app" value="${appId}">`;
  return developerLayout(
    dev.publishTitle,
    'publish',
    isAdmin,
    html`<p>${dev.publishLead(options.kept)}</p>
<h2>${dev.signArchive}</h2>
${command(`openssl dgst -sha512 -sign ${app}.key ${app}.tar.gz | openssl base64`, dev.signArchive)}
<h2>2. ${dev.publishTitle}</h2>
<h3>${dev.uploadTitle}</h3>${problemBox(upload)}
${uploadForm(
  '/developer/publish/upload',
  token,
  html`${fileField({ name: 'archive', form: 'upload', label: dev.archiveFileLabel, hint: dev.archiveFileHint, accept: '.gz,.tgz,application/gzip' }, upload)}
${textArea({ name: 'signature', form: 'upload', label: dev.archiveSignatureLabel, hint: dev.signatureHint, rows: 5, maxLength: 65536 }, upload)}
${checkbox({ name: 'nightly', form: 'upload', label: dev.nightlyLabel, hint: dev.nightlyHint }, upload)}
<p><button type="submit">${dev.uploadButton}</button></p>`,
)}
<h3>${dev.addressTitle}</h3>${problemBox(address)}
${postForm(
  '/developer/publish',
  token,
  html`${hiddenApp}${field({ name: 'download', label: dev.downloadLabel, hint: dev.downloadHint(options.kept), type: 'text', maxLength: 2048, autocomplete: 'off' }, address)}
${textArea({ name: 'signature', label: dev.archiveSignatureLabel, hint: dev.signatureHint, rows: 5, maxLength: 65536 }, address)}
${checkbox({ name: 'nightly', label: dev.nightlyLabel, hint: dev.nightlyHint }, address)}
<p><button type="submit">${dev.publishButton}</button></p>`,
)}`,
    context,
  );
}

/** The problems of a refusal, one per info.xml element or field. */
function fieldList(
  fields: Readonly<Record<string, readonly string[]>> | undefined,
  english: readonly string[] = [],
): Html | '' {
  if (fields === undefined || Object.keys(fields).length === 0) return '';
  return html`<ul class="problems">${Object.entries(fields).map(([where, messages]) => html`<li><code>${where}</code>: <span${english.includes(where) ? html` lang="en" dir="ltr"` : ''}>${messages.join('; ')}</span></li>`)}</ul>`;
}

/**
 * "Publish again" after a refusal: the form with what was sent (the signature is pasted again: it
 * is not kept), and the app's commands when the archive's name gives the app id (`myapp.tar.gz`,
 * `myapp-1.2.0.tar.gz`, as releases are usually named); the form keeps only what looks like one.
 */
function againAddress(job: PublishJob): string {
  if (job.download === '') return '/developer/publish';
  const file = job.download.split(/[?#]/)[0]?.split('/').pop() ?? '';
  const app = /^([a-z][a-z0-9_]*?)(-v?\d[^/]*)?\.tar\.gz$/.exec(file)?.[1];
  const query = new URLSearchParams({
    ...(app === undefined ? {} : { app }),
    download: job.download,
    ...(job.nightly ? { nightly: 'on' } : {}),
  });
  return `/developer/publish?${query.toString()}`;
}

export function publishJobPage(job: PublishJob, isAdmin: boolean, context: PageContext): Html {
  const dev = context.t.dev;
  const { state } = job;
  const source = html`<dl class="facts">${job.download === '' ? html`<dt>${dev.archiveFileLabel}</dt><dd>${dev.uploadedArchive}</dd>` : html`<dt>${dev.downloadLabel}</dt><dd class="wrap">${job.download}</dd>`}<dt>${dev.nightlyLabel}</dt><dd>${job.nightly ? context.t.site.yes : context.t.site.no}</dd></dl>`;
  let body: Html;
  switch (state.status) {
    case 'running':
      body = html`<div class="notice working" role="status"><p><span class="spinner" aria-hidden="true"></span> ${dev.jobRunning}</p><p><a href="/developer/publish/${job.id}">${dev.jobRefresh}</a></p></div>`;
      break;
    case 'done':
      body = html`<div class="notice" role="status"><p>${dev.jobDone(state.result.appId, state.result.version, state.result.created)}</p>${state.result.iconProblem === undefined ? '' : html`<p>${dev.iconLeftOut(state.result.iconProblem)}</p>`}<p><a href="/apps/${state.result.appId}">${dev.seeAppPage}</a> · <a href="/developer/apps/${state.result.appId}">${dev.manageApp}</a></p></div>`;
      break;
    case 'refused': {
      const problem = pageRefusal(
        state.code as ErrorCode,
        { ...state, ...(state.fields === undefined ? {} : { errors: state.fields }) },
        context.t,
      );
      body = html`<div class="notice error" role="alert"><p><strong>${dev.jobRefused}</strong></p>${problemParagraphs(problem)}${fieldList(problem.fields, problem.englishFields)}</div><p><a href="${againAddress(job)}">${dev.jobAgain}</a></p>`;
      break;
    }
    case 'failed': {
      const translated = state.said === undefined ? undefined : translateSaid(state.said, context.t.language);
      body = html`<div class="notice error" role="alert"><p><strong>${dev.jobFailed}</strong></p><p${translated === undefined && context.t.language !== 'en' ? html` lang="en" dir="ltr"` : ''}>${translated ?? state.detail}</p></div><p><a href="/developer/publish">${dev.jobAgain}</a></p>`;
      break;
    }
  }
  return developerLayout(dev.jobTitle, 'publish', isAdmin, html`${body}${source}`, {
    ...context,
    refreshSeconds: state.status === 'running' ? 2 : undefined,
  });
}

/** Which form of the management page a refusal or a message belongs to. */
export type ManageSection =
  'releases' | 'status' | 'retired' | 'publishers' | 'maintainers' | 'transfer' | 'flags' | 'delete';

export interface ManagePageState {
  readonly section?: ManageSection;
  readonly form?: FormState;
  readonly message?: string;
}

function detailsOf(record: AuditRecord): string {
  return Object.entries(record.details)
    .filter(([key]) => key !== 'fingerprint')
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`)
    .join('; ');
}

/** `showAddresses`: only administrators see where changes came from (an app's owner sees who rated, not from where). */
export function auditTable(
  t: PageTexts,
  records: readonly AuditRecord[],
  caption: string,
  showApp: boolean,
  showAddresses = true,
): Html {
  const { dev, site: s } = t;
  if (records.length === 0) return html`<p>${dev.noTrail}</p>`;
  return dataTable(
    s,
    {
      caption,
      className: 'audit',
      headings: [dev.when, dev.who, dev.what, ...(showApp ? [dev.auditApp] : []), dev.details],
    },
    records.map(
      (r) =>
        html`<tr><td>${when(r.at)}</td><td>${r.actor.name}${r.actor.kind === 'cli' ? html` ${dev.viaCommandLine}` : ''}${r.address === null || !showAddresses ? '' : html` <span class="muted">${r.address}</span>`}</td><td><code>${r.event}</code>${r.subjectUser === null ? '' : html` ${r.subjectUser}`}</td>${showApp ? html`<td>${r.appId ?? ''}</td>` : ''}<td class="wrap">${detailsOf(r)}</td></tr>`,
    ),
  );
}

/** The app's screenshots and what became of each: copied (its thumbnail), waiting, or refused and why (issue 54). */
function screenshotsSection(
  t: PageTexts,
  screenshots: ReadonlyArray<{ readonly url: string; readonly copy: ScreenshotCopy | null }>,
): Html | '' {
  if (screenshots.length === 0) return '';
  const { dev } = t;
  return html`<section aria-labelledby="screenshots"><h2 id="screenshots">${dev.screenshotsTitle}</h2><p>${dev.screenshotsLead}</p>
<ul class="plain">${screenshots.map(({ url, copy }) => {
    const state =
      copy === null
        ? html`<span class="muted">${dev.screenshotWaiting}</span>`
        : copy.problem !== null
          ? html`<strong>${dev.screenshotRefused}</strong> <span lang="en" dir="ltr">${copy.problem}</span>`
          : copy.thumbnailSha256 === null
            ? ''
            : html`<img class="icon" src="${screenshotAddress(copy.thumbnailSha256, 'webp')}" alt="" width="48" height="30"> ${dev.screenshotCopied}`;
    return html`<li><code class="wrap">${url}</code>: ${state}</li>`;
  })}</ul></section>`;
}

/** A release's downloads, or why there is no number (its archive is downloaded from the developer's host). */
const countOrUnknown = (dev: DevStrings, count: number | null, language: string): string =>
  count === null ? dev.notCounted : countText(count, language);

export function manageAppPage(
  app: ManagedApp,
  listed: ListedApp | null,
  downloads: AppDownloadCounts | null,
  chart: DownloadChart,
  status: AppStatus,
  publishers: readonly TrustedPublisher[],
  screenshots: ReadonlyArray<{ readonly url: string; readonly copy: ScreenshotCopy | null }>,
  trail: readonly AuditRecord[],
  isAdmin: boolean,
  token: string,
  state: ManagePageState,
  context: PageContext,
): Html {
  const s = context.t.site;
  const dev = context.t.dev;
  const formOf = (section: ManageSection): FormState => (state.section === section ? (state.form ?? {}) : {});
  const around = (section: ManageSection): Html =>
    html`${state.section === section && state.message !== undefined ? notice(state.message) : ''}${problemBox(formOf(section))}`;
  const base = `/developer/apps/${app.appId}`;
  const owns = app.role === 'owner' || app.role === 'admin';
  const releases = listed?.releases ?? [];
  const releaseRows = releases.map(
    (
      r,
    ) => html`<tr><th scope="row">${r.version}${r.isNightly ? html` <span class="mark">${s.nightly}</span>` : ''}</th><td data-label="${dev.nextcloud}">${rangeText(s, releaseRange(r))}</td><td data-label="${dev.published}">${when(new Date(r.created))}</td>
${downloads === null ? '' : html`<td data-label="${s.downloadCount}">${countOrUnknown(dev, releaseDownloads(downloads, r), context.t.language)}</td>`}<td data-label="${dev.publishedFrom}">${provenanceCell(r.provenance, dev.notTrusted)}</td><td>${postForm(`${base}/releases/delete`, token, html`<input type="hidden" name="version" value="${r.version}"><input type="hidden" name="nightly" value="${r.isNightly ? 'on' : ''}"><button type="submit" class="secondary">${dev.deleteRelease(r.version)}</button>`, 'inline')}</td></tr>`,
  );
  const self = context.account?.username;
  return developerLayout(
    listed?.translations['en']?.name ?? app.appId,
    null,
    isAdmin,
    html`<p>${app.appId} · ${dev.manageLead(dev.role[app.role] ?? app.role)} <a href="/apps/${app.appId}">${dev.appPage}</a></p>
<dl class="facts"><dt>${dev.owner}</dt><dd>${app.ownerName}</dd><dt>${dev.coMaintainers}</dt><dd>${app.coMaintainers.length === 0 ? dev.none : s.list(app.coMaintainers.map((m) => m.username))}</dd></dl>

<section aria-labelledby="releases"><h2 id="releases">${dev.releases}</h2>${around('releases')}
${releases.length === 0 ? html`<p>${dev.noReleases} <a href="/developer/publish">${dev.stepPublish}</a></p>` : dataTable(s, { headings: [dev.version, dev.nextcloud, dev.published, ...(downloads === null ? [] : [s.downloadCount]), dev.publishedFrom, actionsHeading(s)] }, releaseRows)}</section>

${releases.length === 0 ? '' : html`<section aria-labelledby="downloads"><h2 id="downloads">${s.downloadCount}</h2>${downloadCharts(context.t, chart, app.appId)}</section>`}

${screenshotsSection(context.t, screenshots)}

${statusSections({ base, token, owns, status, listed, formOf, around, dev })}

${publishersSection({ base, token, owns, publishers, form: formOf('publishers'), around: around('publishers'), t: context.t })}

<section aria-labelledby="maintainers"><h2 id="maintainers">${dev.coMaintainers}</h2><p>${dev.maintainersLead}</p>${around('maintainers')}
<ul class="plain">${app.coMaintainers.map((m) =>
      owns || m.username === self
        ? html`<li>${m.username} ${postForm(`${base}/maintainers/remove`, token, html`<input type="hidden" name="username" value="${m.username}"><button type="submit" class="secondary">${m.username === self ? dev.leave : dev.remove(m.username)}</button>`, 'inline')}</li>`
        : html`<li>${m.username}</li>`,
    )}</ul>
${owns ? postForm(`${base}/maintainers/add`, token, html`${field({ name: 'username', label: dev.usernameLabel, maxLength: 150, autocomplete: 'off', form: 'maintainer' }, formOf('maintainers'))}<p><button type="submit">${dev.add}</button></p>`) : ''}</section>

${
  owns
    ? html`<section aria-labelledby="transfer"><h2 id="transfer">${dev.transferTitle}</h2>${around('transfer')}
<p>${app.transferUnlocked ? dev.transferUnlocked : dev.transferLocked}</p>
${postForm(`${base}/transfer`, token, html`<input type="hidden" name="unlock" value="${app.transferUnlocked ? '' : 'on'}"><p><button type="submit" class="secondary">${app.transferUnlocked ? dev.lock : dev.unlock}</button></p>`)}</section>`
    : ''
}

${
  isAdmin
    ? html`<section aria-labelledby="flags"><h2 id="flags">${dev.flagsTitle}</h2>${around('flags')}
${postForm(`${base}/flags`, token, html`${checkbox({ name: 'featured', label: dev.featuredLabel, hint: dev.featuredHint, checked: app.isFeatured, form: 'flags' })}${checkbox({ name: 'enterprise', label: dev.enterpriseLabel, hint: dev.enterpriseHint, checked: app.isEnterpriseOnly, form: 'flags' })}<input type="hidden" name="sent" value="1"><p><button type="submit">${dev.save}</button></p>`)}</section>`
    : ''
}

${
  owns
    ? html`<section aria-labelledby="delete"><h2 id="delete">${dev.deleteTitle}</h2><p>${dev.deleteLead}</p>${around('delete')}
${postForm(`${base}/delete`, token, html`${field({ name: 'confirm', label: dev.confirmLabel(app.appId), maxLength: 64, autocomplete: 'off', form: 'delete' }, formOf('delete'))}<p><button type="submit" class="danger">${dev.deleteApp}</button></p>`)}</section>`
    : ''
}

<section aria-labelledby="trail"><h2 id="trail">${dev.trailTitle}</h2><p>${dev.trailLead}</p>${auditTable(context.t, trail, dev.trailTitle, false, isAdmin)}</section>`,
    context,
  );
}
