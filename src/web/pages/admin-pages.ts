import type { User } from '../../domain/accounts/user.ts';
import type { ManagedApp } from '../../domain/apps/app-overview.ts';
import type { AuditRecord } from '../../domain/audit/audit.ts';
import type { Category, PlatformRelease } from '../../domain/catalog/catalog.ts';
import type { RevokedCertificate } from '../../domain/certificates/revoke-certificate.ts';
import type { CertificateRequest } from '../../domain/identity/request-certificate.ts';
import { checkbox, codeSpans, field, notice, postForm, problemBox, textArea } from '../forms.ts';
import { languageName } from '../catalog-display.ts';
import type { FormState } from '../forms.ts';
import type { Html, HtmlValue } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import { auditTable, when } from './developer-pages.ts';
import { actionsHeading, dataTable } from '../tables.ts';

export type AdminSection =
  'overview' | 'users' | 'apps' | 'reports' | 'categories' | 'platforms' | 'discover' | 'certificates' | 'audit';

const LINKS: ReadonlyArray<
  readonly [
    AdminSection,
    string,
    'overview' | 'users' | 'apps' | 'reports' | 'categories' | 'platforms' | 'discover' | 'certificates' | 'audit',
  ]
> = [
  ['overview', '/admin', 'overview'],
  ['users', '/admin/users', 'users'],
  ['apps', '/admin/apps', 'apps'],
  ['reports', '/admin/reports', 'reports'],
  ['categories', '/admin/categories', 'categories'],
  ['platforms', '/admin/platforms', 'platforms'],
  ['discover', '/admin/discover', 'discover'],
  ['certificates', '/admin/certificates', 'certificates'],
  ['audit', '/admin/audit', 'audit'],
];

/** What a form of an admin page shows after it was sent: a message, or the refusal (and which form it belongs to). */
export interface AdminState {
  readonly form?: string;
  readonly state?: FormState;
  readonly message?: string;
}

export function adminLayout(section: AdminSection, title: string, body: HtmlValue, context: PageContext): Html {
  const A = context.t.admin;
  return layout(
    { title },
    html`<nav class="subnav" aria-label="${A.sections}"><ul>${LINKS.map(([key, href, label]) => html`<li><a href="${href}"${key === section ? html` aria-current="page"` : ''}>${A[label]}</a></li>`)}</ul></nav><h1>${title}</h1>${body}`,
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
  /** Reported comments waiting for a decision (issue 54). */
  readonly reportsWaiting?: number;
  /** The newest entries of the audit log, newest first. */
  readonly recent: readonly AuditRecord[];
}

export function adminOverviewPage(overview: AdminOverview, context: PageContext): Html {
  const A = context.t.admin;
  const waiting: Html[] = [];
  if (overview.pendingRequests !== null && overview.pendingRequests > 0)
    waiting.push(html`<li><a href="/admin/certificates">${A.pendingRequests(overview.pendingRequests)}</a></li>`);
  if ((overview.reportsWaiting ?? 0) > 0)
    waiting.push(html`<li><a href="/admin/reports">${A.reportsWaiting(overview.reportsWaiting ?? 0)}</a></li>`);
  if (overview.platforms === 0) waiting.push(html`<li><a href="/admin/platforms">${A.noPlatforms}</a></li>`);
  if (overview.categories === 0) waiting.push(html`<li><a href="/admin/categories">${A.noCategories}</a></li>`);
  const glance: ReadonlyArray<readonly [string, string, string]> = [
    [A.users, '/admin/users', A.usersAtGlance(overview.users, overview.admins, overview.disabledUsers)],
    [A.apps, '/admin/apps', String(overview.apps)],
    [A.categories, '/admin/categories', String(overview.categories)],
    [A.platforms, '/admin/platforms', String(overview.platforms)],
  ];
  return adminLayout(
    'overview',
    A.title,
    html`<p>${A.lead}</p>
<section aria-labelledby="waiting"><h2 id="waiting">${A.waitingTitle}</h2>${waiting.length === 0 ? html`<p>${A.nothingWaiting}</p>` : html`<ul>${waiting}</ul>`}</section>
<section aria-labelledby="glance"><h2 id="glance">${A.glanceTitle}</h2><dl class="facts">${glance.map(([label, href, value]) => html`<dt><a href="${href}">${label}</a></dt><dd>${value}</dd>`)}</dl></section>
<section aria-labelledby="recent"><h2 id="recent">${A.recentTitle}</h2>${auditTable(context.t, overview.recent, A.recentTitle, true)}<p><a href="/admin/audit">${A.wholeAuditLog}</a></p></section>`,
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
  const s = context.t.site;
  const A = context.t.admin;
  const row = (
    user: User,
  ): Html => html`<tr><th scope="row">${user.username}</th><td class="wrap" data-label="${A.email}">${user.email ?? ''}</td>
<td data-label="${A.state}">${user.isActive ? A.active : html`<strong>${A.disabled}</strong>`}${user.isAdmin ? html`${s.listSeparator}${A.administrator}` : ''}</td>
<td class="actions">${
    user.username === context.account?.username
      ? ''
      : html`${postForm('/admin/users/active', token, html`<input type="hidden" name="username" value="${user.username}"><input type="hidden" name="active" value="${user.isActive ? '' : 'on'}"><input type="hidden" name="q" value="${query}"><button type="submit" class="secondary">${user.isActive ? A.disable(user.username) : A.enable(user.username)}</button>`, 'inline')}
${postForm('/admin/users/admin', token, html`<input type="hidden" name="username" value="${user.username}"><input type="hidden" name="admin" value="${user.isAdmin ? '' : 'on'}"><input type="hidden" name="q" value="${query}"><button type="submit" class="secondary">${user.isAdmin ? A.revokeAdmin(user.username) : A.makeAdmin(user.username)}</button>`, 'inline')}`
  }</td></tr>`;
  return adminLayout(
    'users',
    A.users,
    html`<form class="form inline-form" action="/admin/users" method="get" role="search">${field({ name: 'q', label: A.searchLabel, type: 'search', required: false, maxLength: 100, form: 'search' }, { values: { q: query } })}<p><button type="submit">${A.search}</button></p></form>
${top(admin, 'users')}
<p class="muted">${A.userCount(users.length)}</p>
${dataTable(s, { caption: A.users, headings: [A.username, A.email, A.state, actionsHeading(s)] }, users.map(row))}
<section aria-labelledby="invite"><h2 id="invite">${A.inviteTitle}</h2><p>${A.inviteLead}</p>${top(admin, 'invite')}
${postForm('/admin/users/invite', token, html`${field({ name: 'username', label: A.username, maxLength: 150, autocomplete: 'off', form: 'invite' }, stateOf(admin, 'invite'))}${field({ name: 'email', label: A.email, type: 'email', maxLength: 254, autocomplete: 'off', form: 'invite' }, stateOf(admin, 'invite'))}${checkbox({ name: 'admin', label: A.inviteAdmin, form: 'invite' }, stateOf(admin, 'invite'))}<p><button type="submit">${A.invite}</button></p>`)}</section>`,
    context,
  );
}

export function adminAppsPage(apps: readonly ManagedApp[], context: PageContext): Html {
  const s = context.t.site;
  const A = context.t.admin;
  return adminLayout(
    'apps',
    A.apps,
    html`<p>${A.appsLead}</p>${dataTable(
      s,
      { caption: A.apps, headings: [context.t.dev.auditApp, A.owner, A.coMaintainers, A.flags] },
      apps.map(
        (
          app,
        ) => html`<tr><th scope="row"><a href="/developer/apps/${app.appId}">${app.appId}</a></th><td data-label="${A.owner}">${app.ownerName}</td><td data-label="${A.coMaintainers}">${s.list(app.coMaintainers.map((m) => m.username))}</td>
<td data-label="${A.flags}">${s.list([app.isFeatured ? A.featured : '', app.isEnterpriseOnly ? A.enterprise : '', app.transferUnlocked ? A.unlocked : ''].filter((f) => f !== ''))}</td></tr>`,
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
  const s = context.t.site;
  const A = context.t.admin;
  const values = stateOf(admin, 'category');
  return adminLayout(
    'categories',
    A.categories,
    html`<p>${A.categoriesLead}</p>${dataTable(
      s,
      { headings: [A.categoryId, A.language, A.name, A.description] },
      categories.flatMap((category) =>
        Object.entries(category.translations).map(
          ([language, text]) =>
            html`<tr><th scope="row">${category.id}</th><td data-label="${A.language}">${languageName(language)} <span class="muted">${language}</span></td><td>${text.name}</td><td class="wrap">${text.description}</td></tr>`,
        ),
      ),
    )}
<section aria-labelledby="edit"><h2 id="edit">${A.saveCategory}</h2>${top(admin, 'category')}
${postForm('/admin/categories', token, html`${field({ name: 'id', label: A.categoryId, maxLength: 64, form: 'category' }, values)}${field({ name: 'language', label: A.language, maxLength: 20, form: 'category', hint: A.languageCodeHint }, values.values === undefined ? { values: { language: 'en' } } : values)}${field({ name: 'name', label: A.name, maxLength: 256, form: 'category' }, values)}${textArea({ name: 'description', label: A.description, rows: 3, maxLength: 2048, required: false, form: 'category' }, values)}<p><button type="submit">${A.saveCategory}</button></p>`)}</section>`,
    context,
  );
}

export function adminPlatformsPage(
  platforms: readonly PlatformRelease[],
  token: string,
  admin: AdminState,
  context: PageContext,
): Html {
  const s = context.t.site;
  const A = context.t.admin;
  const values = stateOf(admin, 'platform');
  return adminLayout(
    'platforms',
    A.platforms,
    html`<p>${A.platformsLead}</p>${dataTable(
      s,
      { headings: [A.version, A.hasRelease, A.isSupported] },
      platforms.map(
        (p) =>
          html`<tr><th scope="row">${p.version}</th><td data-label="${A.hasRelease}">${p.hasRelease ? s.yes : s.no}</td><td data-label="${A.isSupported}">${p.isSupported ? s.yes : s.no}</td></tr>`,
      ),
    )}
<section aria-labelledby="edit"><h2 id="edit">${A.savePlatform}</h2>${top(admin, 'platform')}
${postForm('/admin/platforms', token, html`${field({ name: 'version', label: A.version, maxLength: 20, form: 'platform', hint: A.versionHint }, values)}${checkbox({ name: 'hasRelease', label: A.hasRelease, form: 'platform', checked: true }, values)}${checkbox({ name: 'isSupported', label: A.isSupported, form: 'platform', checked: true }, values)}<p><button type="submit">${A.savePlatform}</button></p>`)}</section>`,
    context,
  );
}

export function adminDiscoverPage(json: string, token: string, admin: AdminState, context: PageContext): Html {
  const A = context.t.admin;
  const state = stateOf(admin, 'discover');
  return adminLayout(
    'discover',
    A.discover,
    html`<p>${codeSpans(A.discoverLead)}</p>${top(admin, 'discover')}
${postForm('/admin/discover', token, html`${textArea({ name: 'entries', label: A.entries, rows: 20, maxLength: 500_000, form: 'discover' }, state.values === undefined ? { values: { entries: json } } : state)}<p><button type="submit">${A.saveDiscover}</button></p>`)}`,
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
  const s = context.t.site;
  const A = context.t.admin;
  const revokeState = stateOf(admin, 'revoke');
  return adminLayout(
    'certificates',
    A.certificates,
    html`${
      model.ownAuthority
        ? html`<section aria-labelledby="approval"><h2 id="approval">${A.approvalTitle}</h2>${top(admin, 'approval')}
${postForm('/admin/certificates/approval', token, html`${checkbox({ name: 'required', label: A.approvalLabel, hint: A.approvalHint, checked: model.approvalRequired, form: 'approval' })}<p><button type="submit">${context.t.site.save}</button></p>`)}</section>
<section aria-labelledby="queue"><h2 id="queue">${A.queueTitle}</h2>${top(admin, 'queue')}
${
  model.pending.length === 0
    ? html`<p>${A.queueEmpty}</p>`
    : html`<ul class="plain">${model.pending.map(
        (
          r,
        ) => html`<li class="card"><p><strong>${r.appId}</strong> · ${A.requestedBy} ${r.username} · ${when(r.createdAt)}</p>
${postForm('/admin/certificates/approve', token, html`<input type="hidden" name="id" value="${r.id}"><button type="submit">${A.approve(r.appId)}</button>`, 'inline')}
${postForm('/admin/certificates/reject', token, html`<input type="hidden" name="id" value="${r.id}">${field({ name: 'reason', label: A.reason, required: false, maxLength: 1000, form: `reject-${r.id}` })}<p><button type="submit" class="secondary">${A.reject(r.appId)}</button></p>`)}</li>`,
      )}</ul>`
}</section>`
        : ''
    }
<section aria-labelledby="revoke"><h2 id="revoke">${A.revokeTitle}</h2><p>${A.revokeLead}</p>${top(admin, 'revoke')}
${postForm('/admin/certificates/revoke', token, html`${field({ name: 'serial', label: A.serial, hint: A.serialHint, required: false, maxLength: 200, autocomplete: 'off', form: 'revoke' }, revokeState)}${textArea({ name: 'certificate', label: A.orCertificate, rows: 6, required: false, maxLength: 16384, form: 'revoke' }, revokeState)}${field({ name: 'reason', label: A.revokeReason, required: false, maxLength: 500, form: 'revoke' }, revokeState)}<p><button type="submit" class="danger">${A.revoke}</button></p>`)}</section>
<section aria-labelledby="revoked"><h2 id="revoked">${A.revokedList}</h2>
${
  model.revoked.length === 0
    ? html`<p>${A.noneRevoked}</p>`
    : dataTable(
        s,
        { headings: [A.serial, A.issuer, A.revokedAt, A.revokeReason] },
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
  const A = context.t.admin;
  const values = { values: { ...filter }, ...(state.problem === undefined ? {} : { problem: state.problem }) };
  return adminLayout(
    'audit',
    A.audit,
    html`<p>${A.auditLead}</p><form class="form inline-form" action="/admin/audit" method="get">${field({ name: 'app', label: A.filterApp, required: false, maxLength: 64, form: 'audit' }, values)}${field({ name: 'user', label: A.filterUser, required: false, maxLength: 150, form: 'audit' }, values)}${field({ name: 'event', label: A.filterEvent, required: false, maxLength: 64, form: 'audit' }, values)}${field({ name: 'since', label: A.filterSince, required: false, maxLength: 30, form: 'audit', hint: A.dateHint }, values)}<p><button type="submit">${A.filter}</button></p></form>
${problemBox(state)}${auditTable(context.t, records, A.audit, true)}`,
    context,
  );
}
