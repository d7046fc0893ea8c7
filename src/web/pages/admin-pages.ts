import type { User } from '../../domain/accounts/user.ts';
import type { ManagedApp } from '../../domain/apps/app-overview.ts';
import type { AuditRecord } from '../../domain/audit/audit.ts';
import type { Category, PlatformRelease } from '../../domain/catalog/catalog.ts';
import type { RevokedCertificate } from '../../domain/certificates/revoke-certificate.ts';
import type { CertificateRequest } from '../../domain/identity/request-certificate.ts';
import { ADMIN } from '../developer-strings.ts';
import { checkbox, codeSpans, field, notice, postForm, problemBox, textArea } from '../forms.ts';
import { languageName } from '../catalog-display.ts';
import type { FormState } from '../forms.ts';
import type { Html, HtmlValue } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import { auditTable, when } from './developer-pages.ts';
import { ACTIONS_HEADING, dataTable } from '../tables.ts';

export type AdminSection =
  'overview' | 'users' | 'apps' | 'categories' | 'platforms' | 'discover' | 'certificates' | 'audit';

const LINKS: ReadonlyArray<readonly [AdminSection, string, string]> = [
  ['overview', '/admin', ADMIN.overview],
  ['users', '/admin/users', ADMIN.users],
  ['apps', '/admin/apps', ADMIN.apps],
  ['categories', '/admin/categories', ADMIN.categories],
  ['platforms', '/admin/platforms', ADMIN.platforms],
  ['discover', '/admin/discover', ADMIN.discover],
  ['certificates', '/admin/certificates', ADMIN.certificates],
  ['audit', '/admin/audit', ADMIN.audit],
];

/** What a form of an admin page shows after it was sent: a message, or the refusal (and which form it belongs to). */
export interface AdminState {
  readonly form?: string;
  readonly state?: FormState;
  readonly message?: string;
}

function adminLayout(section: AdminSection, title: string, body: HtmlValue, context: PageContext): Html {
  return layout(
    { title },
    html`<nav class="subnav" aria-label="${ADMIN.sections}"><ul>${LINKS.map(([key, href, label]) => html`<li><a href="${href}"${key === section ? html` aria-current="page"` : ''}>${label}</a></li>`)}</ul></nav><h1>${title}</h1>${body}`,
    context,
  );
}

const stateOf = (admin: AdminState, form: string): FormState => (admin.form === form ? (admin.state ?? {}) : {});
const top = (admin: AdminState, form: string): Html =>
  html`${admin.form === form && admin.message !== undefined ? notice(admin.message) : ''}${problemBox(stateOf(admin, form))}`;

/** What the overview shows an administrator: what waits for them, the store at a glance, the latest changes. */
export interface AdminOverview {
  readonly users: number;
  readonly disabledUsers: number;
  readonly admins: number;
  readonly apps: number;
  readonly categories: number;
  readonly platforms: number;
  /** Certificate requests waiting for approval; null when the store issues none (an external authority). */
  readonly pendingRequests: number | null;
  /** The newest entries of the audit log, newest first. */
  readonly recent: readonly AuditRecord[];
}

export function adminOverviewPage(overview: AdminOverview, context: PageContext): Html {
  const waiting: Html[] = [];
  if (overview.pendingRequests !== null && overview.pendingRequests > 0)
    waiting.push(html`<li><a href="/admin/certificates">${ADMIN.pendingRequests(overview.pendingRequests)}</a></li>`);
  if (overview.platforms === 0) waiting.push(html`<li><a href="/admin/platforms">${ADMIN.noPlatforms}</a></li>`);
  if (overview.categories === 0) waiting.push(html`<li><a href="/admin/categories">${ADMIN.noCategories}</a></li>`);
  const glance: ReadonlyArray<readonly [string, string, string]> = [
    [ADMIN.users, '/admin/users', ADMIN.usersAtGlance(overview.users, overview.admins, overview.disabledUsers)],
    [ADMIN.apps, '/admin/apps', String(overview.apps)],
    [ADMIN.categories, '/admin/categories', String(overview.categories)],
    [ADMIN.platforms, '/admin/platforms', String(overview.platforms)],
  ];
  return adminLayout(
    'overview',
    ADMIN.title,
    html`<p>${ADMIN.lead}</p>
<section aria-labelledby="waiting"><h2 id="waiting">${ADMIN.waitingTitle}</h2>${waiting.length === 0 ? html`<p>${ADMIN.nothingWaiting}</p>` : html`<ul>${waiting}</ul>`}</section>
<section aria-labelledby="glance"><h2 id="glance">${ADMIN.glanceTitle}</h2><dl class="facts">${glance.map(([label, href, value]) => html`<dt><a href="${href}">${label}</a></dt><dd>${value}</dd>`)}</dl></section>
<section aria-labelledby="recent"><h2 id="recent">${ADMIN.recentTitle}</h2>${auditTable(overview.recent, ADMIN.recentTitle, true)}<p><a href="/admin/audit">${ADMIN.wholeAuditLog}</a></p></section>`,
    context,
  );
}

export function adminUsersPage(
  query: string,
  users: readonly User[],
  token: string,
  admin: AdminState,
  context: PageContext,
): Html {
  const row = (
    user: User,
  ): Html => html`<tr><th scope="row">${user.username}</th><td class="wrap" data-label="${ADMIN.email}">${user.email ?? ''}</td>
<td data-label="${ADMIN.state}">${user.isActive ? ADMIN.active : html`<strong>${ADMIN.disabled}</strong>`}${user.isAdmin ? html`, ${ADMIN.administrator}` : ''}</td>
<td class="actions">${
    user.username === context.account?.username
      ? ''
      : html`${postForm('/admin/users/active', token, html`<input type="hidden" name="username" value="${user.username}"><input type="hidden" name="active" value="${user.isActive ? '' : 'on'}"><input type="hidden" name="q" value="${query}"><button type="submit" class="secondary">${user.isActive ? ADMIN.disable(user.username) : ADMIN.enable(user.username)}</button>`, 'inline')}
${postForm('/admin/users/admin', token, html`<input type="hidden" name="username" value="${user.username}"><input type="hidden" name="admin" value="${user.isAdmin ? '' : 'on'}"><input type="hidden" name="q" value="${query}"><button type="submit" class="secondary">${user.isAdmin ? ADMIN.revokeAdmin(user.username) : ADMIN.makeAdmin(user.username)}</button>`, 'inline')}`
  }</td></tr>`;
  return adminLayout(
    'users',
    ADMIN.users,
    html`<form class="form inline-form" action="/admin/users" method="get" role="search">${field({ name: 'q', label: ADMIN.searchLabel, type: 'search', required: false, maxLength: 100, form: 'search' }, { values: { q: query } })}<p><button type="submit">${ADMIN.search}</button></p></form>
${top(admin, 'users')}
<p class="muted">${ADMIN.userCount(users.length)}</p>
${dataTable({ caption: ADMIN.users, headings: [ADMIN.username, ADMIN.email, ADMIN.state, ACTIONS_HEADING] }, users.map(row))}
<section aria-labelledby="invite"><h2 id="invite">${ADMIN.inviteTitle}</h2><p>${ADMIN.inviteLead}</p>${top(admin, 'invite')}
${postForm('/admin/users/invite', token, html`${field({ name: 'username', label: ADMIN.username, maxLength: 150, autocomplete: 'off', form: 'invite' }, stateOf(admin, 'invite'))}${field({ name: 'email', label: ADMIN.email, type: 'email', maxLength: 254, autocomplete: 'off', form: 'invite' }, stateOf(admin, 'invite'))}${checkbox({ name: 'admin', label: ADMIN.inviteAdmin, form: 'invite' }, stateOf(admin, 'invite'))}<p><button type="submit">${ADMIN.invite}</button></p>`)}</section>`,
    context,
  );
}

export function adminAppsPage(apps: readonly ManagedApp[], context: PageContext): Html {
  return adminLayout(
    'apps',
    ADMIN.apps,
    html`<p>${ADMIN.appsLead}</p>${dataTable(
      { caption: ADMIN.apps, headings: ['App', ADMIN.owner, ADMIN.coMaintainers, ADMIN.flags] },
      apps.map(
        (
          app,
        ) => html`<tr><th scope="row"><a href="/developer/apps/${app.appId}">${app.appId}</a></th><td data-label="${ADMIN.owner}">${app.ownerName}</td><td data-label="${ADMIN.coMaintainers}">${app.coMaintainers.map((m) => m.username).join(', ')}</td>
<td data-label="${ADMIN.flags}">${[app.isFeatured ? ADMIN.featured : '', app.isEnterpriseOnly ? ADMIN.enterprise : '', app.transferUnlocked ? ADMIN.unlocked : ''].filter((f) => f !== '').join(', ')}</td></tr>`,
      ),
    )}`,
    context,
  );
}

export function adminCategoriesPage(
  categories: readonly Category[],
  token: string,
  admin: AdminState,
  context: PageContext,
): Html {
  const values = stateOf(admin, 'category');
  return adminLayout(
    'categories',
    ADMIN.categories,
    html`<p>${ADMIN.categoriesLead}</p>${dataTable(
      { headings: [ADMIN.categoryId, ADMIN.language, ADMIN.name, ADMIN.description] },
      categories.flatMap((category) =>
        Object.entries(category.translations).map(
          ([language, text]) =>
            html`<tr><th scope="row">${category.id}</th><td data-label="${ADMIN.language}">${languageName(language)} <span class="muted">${language}</span></td><td>${text.name}</td><td class="wrap">${text.description}</td></tr>`,
        ),
      ),
    )}
<section aria-labelledby="edit"><h2 id="edit">${ADMIN.saveCategory}</h2>${top(admin, 'category')}
${postForm('/admin/categories', token, html`${field({ name: 'id', label: ADMIN.categoryId, maxLength: 64, form: 'category' }, values)}${field({ name: 'language', label: ADMIN.language, maxLength: 20, form: 'category', hint: 'Its code, such as en, de or fr_FR' }, values.values === undefined ? { values: { language: 'en' } } : values)}${field({ name: 'name', label: ADMIN.name, maxLength: 256, form: 'category' }, values)}${textArea({ name: 'description', label: ADMIN.description, rows: 3, maxLength: 2048, required: false, form: 'category' }, values)}<p><button type="submit">${ADMIN.saveCategory}</button></p>`)}</section>`,
    context,
  );
}

export function adminPlatformsPage(
  platforms: readonly PlatformRelease[],
  token: string,
  admin: AdminState,
  context: PageContext,
): Html {
  const values = stateOf(admin, 'platform');
  return adminLayout(
    'platforms',
    ADMIN.platforms,
    html`<p>${ADMIN.platformsLead}</p>${dataTable(
      { headings: [ADMIN.version, ADMIN.hasRelease, ADMIN.isSupported] },
      platforms.map(
        (p) =>
          html`<tr><th scope="row">${p.version}</th><td>${p.hasRelease ? 'yes' : 'no'}</td><td>${p.isSupported ? 'yes' : 'no'}</td></tr>`,
      ),
    )}
<section aria-labelledby="edit"><h2 id="edit">${ADMIN.savePlatform}</h2>${top(admin, 'platform')}
${postForm('/admin/platforms', token, html`${field({ name: 'version', label: ADMIN.version, maxLength: 20, form: 'platform', hint: 'X.Y.Z, such as 32.0.1' }, values)}${checkbox({ name: 'hasRelease', label: ADMIN.hasRelease, form: 'platform', checked: true }, values)}${checkbox({ name: 'isSupported', label: ADMIN.isSupported, form: 'platform', checked: true }, values)}<p><button type="submit">${ADMIN.savePlatform}</button></p>`)}</section>`,
    context,
  );
}

export function adminDiscoverPage(json: string, token: string, admin: AdminState, context: PageContext): Html {
  const state = stateOf(admin, 'discover');
  return adminLayout(
    'discover',
    ADMIN.discover,
    html`<p>${codeSpans(ADMIN.discoverLead)}</p>${top(admin, 'discover')}
${postForm('/admin/discover', token, html`${textArea({ name: 'entries', label: ADMIN.entries, rows: 20, maxLength: 500_000, form: 'discover' }, state.values === undefined ? { values: { entries: json } } : state)}<p><button type="submit">${ADMIN.saveDiscover}</button></p>`)}`,
    context,
  );
}

export interface CertificatesModel {
  readonly approvalRequired: boolean;
  readonly ownAuthority: boolean;
  readonly pending: readonly CertificateRequest[];
  readonly revoked: readonly RevokedCertificate[];
}

export function adminCertificatesPage(
  model: CertificatesModel,
  token: string,
  admin: AdminState,
  context: PageContext,
): Html {
  const revokeState = stateOf(admin, 'revoke');
  return adminLayout(
    'certificates',
    ADMIN.certificates,
    html`${
      model.ownAuthority
        ? html`<section aria-labelledby="approval"><h2 id="approval">${ADMIN.approvalTitle}</h2>${top(admin, 'approval')}
${postForm('/admin/certificates/approval', token, html`${checkbox({ name: 'required', label: ADMIN.approvalLabel, hint: ADMIN.approvalHint, checked: model.approvalRequired, form: 'approval' })}<p><button type="submit">Save</button></p>`)}</section>
<section aria-labelledby="queue"><h2 id="queue">${ADMIN.queueTitle}</h2>${top(admin, 'queue')}
${
  model.pending.length === 0
    ? html`<p>${ADMIN.queueEmpty}</p>`
    : html`<ul class="plain">${model.pending.map(
        (
          r,
        ) => html`<li class="card"><p><strong>${r.appId}</strong> · ${ADMIN.requestedBy} ${r.username} · ${when(r.createdAt)}</p>
${postForm('/admin/certificates/approve', token, html`<input type="hidden" name="id" value="${r.id}"><button type="submit">${ADMIN.approve(r.appId)}</button>`, 'inline')}
${postForm('/admin/certificates/reject', token, html`<input type="hidden" name="id" value="${r.id}">${field({ name: 'reason', label: ADMIN.reason, required: false, maxLength: 1000, form: `reject-${r.id}` })}<p><button type="submit" class="secondary">${ADMIN.reject(r.appId)}</button></p>`)}</li>`,
      )}</ul>`
}</section>`
        : ''
    }
<section aria-labelledby="revoke"><h2 id="revoke">${ADMIN.revokeTitle}</h2><p>${ADMIN.revokeLead}</p>${top(admin, 'revoke')}
${postForm('/admin/certificates/revoke', token, html`${field({ name: 'serial', label: ADMIN.serial, hint: ADMIN.serialHint, required: false, maxLength: 200, autocomplete: 'off', form: 'revoke' }, revokeState)}${textArea({ name: 'certificate', label: ADMIN.orCertificate, rows: 6, required: false, maxLength: 16384, form: 'revoke' }, revokeState)}${field({ name: 'reason', label: ADMIN.revokeReason, required: false, maxLength: 500, form: 'revoke' }, revokeState)}<p><button type="submit" class="danger">${ADMIN.revoke}</button></p>`)}</section>
<section aria-labelledby="revoked"><h2 id="revoked">${ADMIN.revokedList}</h2>
${
  model.revoked.length === 0
    ? html`<p>${ADMIN.noneRevoked}</p>`
    : dataTable(
        { headings: [ADMIN.serial, ADMIN.issuer, ADMIN.revokedAt, ADMIN.revokeReason] },
        model.revoked.map(
          (r) =>
            html`<tr><th scope="row" class="wrap"><code>${r.serial}</code></th><td class="wrap">${r.issuer}</td><td>${when(r.revokedAt)}</td><td>${r.reason}</td></tr>`,
        ),
      )
}</section>`,
    context,
  );
}

export interface AuditFilter {
  readonly app: string;
  readonly user: string;
  readonly event: string;
  readonly since: string;
}

export function adminAuditPage(
  filter: AuditFilter,
  records: readonly AuditRecord[],
  state: FormState,
  context: PageContext,
): Html {
  const values = { values: { ...filter }, ...(state.problem === undefined ? {} : { problem: state.problem }) };
  return adminLayout(
    'audit',
    ADMIN.audit,
    html`<p>${ADMIN.auditLead}</p><form class="form inline-form" action="/admin/audit" method="get">${field({ name: 'app', label: ADMIN.filterApp, required: false, maxLength: 64, form: 'audit' }, values)}${field({ name: 'user', label: ADMIN.filterUser, required: false, maxLength: 150, form: 'audit' }, values)}${field({ name: 'event', label: ADMIN.filterEvent, required: false, maxLength: 64, form: 'audit' }, values)}${field({ name: 'since', label: ADMIN.filterSince, required: false, maxLength: 30, form: 'audit', hint: 'YYYY-MM-DD' }, values)}<p><button type="submit">${ADMIN.filter}</button></p></form>
${problemBox(state)}${auditTable(records, ADMIN.audit, true)}`,
    context,
  );
}
