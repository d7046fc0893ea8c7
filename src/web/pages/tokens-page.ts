import type { AccessToken } from '../../domain/accounts/scoped-tokens.ts';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS } from '../../domain/accounts/scoped-tokens.ts';
import { TOKEN_SCOPES } from '../../domain/accounts/token-scopes.ts';
import type { TokenScope } from '../../domain/accounts/token-scopes.ts';
import type { SiteStrings } from '../strings.ts';
import type { PageContext } from '../layout.ts';
import { layout } from '../layout.ts';
import { checkbox, field, notice, postForm, problemBox } from '../forms.ts';
import type { FormState } from '../forms.ts';
import { html } from '../html.ts';
import type { Html } from '../html.ts';
import { actionsHeading, dataTable } from '../tables.ts';

export interface TokensPageState {
  readonly form?: FormState;
  readonly message?: string;
  /** A token just made: its text, shown this once. */
  readonly made?: { readonly name: string; readonly token: string };
}

const SCOPE_LABELS = {
  'release:publish': 'scopeReleasePublish',
  'release:delete': 'scopeReleaseDelete',
  'app:register': 'scopeAppRegister',
  'app:delete': 'scopeAppDelete',
  'app:downloads': 'scopeAppDownloads',
  'rating:write': 'scopeRatingWrite',
  'token:manage': 'scopeTokenManage',
} as const satisfies Record<TokenScope, keyof SiteStrings>;

const strong = (inner: Html): Html => html`<strong>${inner}</strong>`;
const code = (inner: Html): Html => html`<code>${inner}</code>`;

const day = (date: Date): string => date.toISOString().slice(0, 10);
const minute = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function tokenRow(s: SiteStrings, token: AccessToken, now: Date, formToken: string, precise = false): Html {
  const when = precise ? minute : day;
  const expired = token.expiresAt <= now;
  return html`<tr><th scope="row">${token.name}</th><td data-label="${s.tokenScopes}">${token.scopes.map((scope, i) => html`${i > 0 ? ', ' : ''}<code>${scope}</code>`)}</td><td data-label="${s.tokenApps}">${token.apps === null ? s.tokenAllApps : token.apps.join(', ')}</td><td data-label="${s.tokenMade}">${when(token.createdAt)}</td><td data-label="${s.tokenExpires}">${expired ? html`<strong>${s.tokenExpired}</strong> ${when(token.expiresAt)}` : when(token.expiresAt)}</td><td data-label="${s.tokenLastUsed}">${token.lastUsedAt === null ? s.tokenNeverUsed : minute(token.lastUsedAt)}</td><td>${postForm(`/account/tokens/${token.id}/revoke`, formToken, html`<button type="submit" class="secondary" aria-label="${s.revokeToken(token.name)}">${s.revoke}</button>`, 'inline')}</td></tr>`;
}

/** `/account/tokens`: the account's scoped tokens, a form to make one, and revoking one or all. */
export function tokensPage(
  tokens: readonly AccessToken[],
  publishing: readonly AccessToken[],
  now: Date,
  formToken: string,
  state: TokensPageState,
  context: PageContext,
): Html {
  const { t } = context;
  const s = t.site;
  const form = state.form ?? {};
  const chosen = form.values;
  const headings = (first: string) => [
    first,
    s.tokenScopes,
    s.tokenApps,
    s.tokenMade,
    s.tokenExpires,
    s.tokenLastUsed,
    actionsHeading(s),
  ];
  return layout(
    { title: s.tokensTitle },
    html`<h1>${s.tokensTitle}</h1><div class="narrow">
<p>${t.tagged('site.tokensLead', { code, trusted: (inner) => html`<a href="/api/#trusted-publishing">${inner}</a>`, account: (inner) => html`<a href="/account#token">${inner}</a>` }, { maxDays: MAX_TOKEN_DAYS })}</p>
${state.message === undefined ? '' : notice(state.message)}
${state.made === undefined ? '' : html`<div class="notice" role="status"><p>${t.tagged('site.tokenCopyNow', { strong }, { name: state.made.name })}</p><p><label for="made-token">${s.tokenLabel}</label><input id="made-token" class="token" type="text" readonly value="${state.made.token}"></p></div>`}
</div>
<section aria-labelledby="list"><h2 id="list">${s.yourTokens}</h2>
${
  tokens.length === 0
    ? html`<p>${s.noScopedTokens}</p>`
    : html`${dataTable(
        s,
        {
          caption: s.yourTokens,
          headings: headings(s.tokenName),
        },
        tokens.map((token) => tokenRow(s, token, now, formToken)),
      )}
${postForm('/account/tokens/revoke-all', formToken, html`<p><button type="submit" class="danger" aria-describedby="revoke-all-hint">${s.revokeAll}</button></p><p class="hint" id="revoke-all-hint">${s.revokeAllHint}</p>`)}`
}
</section>
${
  publishing.length === 0
    ? ''
    : html`<section aria-labelledby="ci"><h2 id="ci">${s.ciJobsTitle}</h2>
<p>${t.tagged('site.ciJobsLead', { code })}</p>
${dataTable(
  s,
  {
    caption: s.ciJobsTitle,
    headings: headings(s.tokenJob),
  },
  publishing.map((token) => tokenRow(s, token, now, formToken, true)),
)}</section>`
}
<section aria-labelledby="new" class="narrow"><h2 id="new">${s.makeTokenTitle}</h2>${problemBox(form)}
${postForm(
  '/account/tokens',
  formToken,
  html`${field({ name: 'name', label: s.tokenName, hint: s.tokenNameHint, maxLength: 100, form: 'new' }, form)}
<fieldset><legend>${s.tokenScopes}</legend>${TOKEN_SCOPES.map((scope) =>
    checkbox(
      {
        name: `scope-${scope}`,
        label: `${scope}: ${s[SCOPE_LABELS[scope]]}`,
        form: 'new',
        checked: scope === 'release:publish',
      },
      chosen === undefined ? {} : form,
    ),
  )}</fieldset>
${field({ name: 'apps', label: s.tokenOnlyApps, hint: s.tokenOnlyAppsHint, required: false, maxLength: 2000, form: 'new' }, form)}
${field({ name: 'days', label: s.tokenDays, hint: s.tokenDaysHint(MAX_TOKEN_DAYS, DEFAULT_TOKEN_DAYS), required: false, maxLength: 3, form: 'new' }, form)}
<p><button type="submit">${s.makeToken}</button></p>`,
)}</section>`,
    context,
  );
}
