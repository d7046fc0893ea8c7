import type { AccessToken } from '../../domain/accounts/scoped-tokens.ts';
import { DEFAULT_TOKEN_DAYS, MAX_TOKEN_DAYS } from '../../domain/accounts/scoped-tokens.ts';
import { SCOPE_DESCRIPTIONS, TOKEN_SCOPES } from '../../domain/accounts/token-scopes.ts';
import type { PageContext } from '../layout.ts';
import { layout } from '../layout.ts';
import { checkbox, field, notice, postForm, problemBox } from '../forms.ts';
import type { FormState } from '../forms.ts';
import { html } from '../html.ts';
import type { Html } from '../html.ts';
import { ACTIONS_HEADING, dataTable } from '../tables.ts';

export interface TokensPageState {
  readonly form?: FormState;
  readonly message?: string;
  /** A token just made: its text, shown this once. */
  readonly made?: { readonly name: string; readonly token: string };
}

const day = (date: Date): string => date.toISOString().slice(0, 10);
const minute = (date: Date): string => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function tokenRow(token: AccessToken, now: Date, formToken: string, precise = false): Html {
  const when = precise ? minute : day;
  const expired = token.expiresAt <= now;
  return html`<tr><th scope="row">${token.name}</th><td data-label="Scopes">${token.scopes.map((scope, i) => html`${i > 0 ? ', ' : ''}<code>${scope}</code>`)}</td><td data-label="Apps">${token.apps === null ? 'all' : token.apps.join(', ')}</td><td data-label="Made">${when(token.createdAt)}</td><td data-label="Expires">${expired ? html`<strong>expired</strong> ${when(token.expiresAt)}` : when(token.expiresAt)}</td><td data-label="Last used">${token.lastUsedAt === null ? 'never' : minute(token.lastUsedAt)}</td><td>${postForm(`/account/tokens/${token.id}/revoke`, formToken, html`<button type="submit" class="secondary" aria-label="Revoke ${token.name}">Revoke</button>`, 'inline')}</td></tr>`;
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
  const form = state.form ?? {};
  const chosen = form.values;
  return layout(
    { title: 'Tokens' },
    html`<h1>Tokens</h1><div class="narrow">
<p>A token lets a script or a CI job act for you, with only the scopes you give it, on only the apps you name, until it expires (at most ${MAX_TOKEN_DAYS} days). Tokens start with <code>apst_</code>, which secret scanners recognise. For publishing from GitHub Actions or GitLab CI, <a href="/api/#trusted-publishing">trusted publishing</a> needs no stored token at all. Your account's unscoped token is on <a href="/account#token">the account page</a>.</p>
${state.message === undefined ? '' : notice(state.message)}
${state.made === undefined ? '' : html`<div class="notice" role="status"><p>Copy the token <strong>${state.made.name}</strong> now: it is shown only this once.</p><p><label for="made-token">Token</label><input id="made-token" class="token" type="text" readonly value="${state.made.token}"></p></div>`}
</div>
<section aria-labelledby="list"><h2 id="list">Your tokens</h2>
${
  tokens.length === 0
    ? html`<p>You have no scoped tokens.</p>`
    : html`${dataTable(
        {
          caption: 'Your tokens',
          headings: ['Name', 'Scopes', 'Apps', 'Made', 'Expires', 'Last used', ACTIONS_HEADING],
        },
        tokens.map((token) => tokenRow(token, now, formToken)),
      )}
${postForm('/account/tokens/revoke-all', formToken, html`<p><button type="submit" class="danger" aria-describedby="revoke-all-hint">Revoke every token</button></p><p class="hint" id="revoke-all-hint">Every scoped token and your unscoped one stop working at once: what to do when one may have leaked.</p>`)}`
}
</section>
${
  publishing.length === 0
    ? ''
    : html`<section aria-labelledby="ci"><h2 id="ci">CI jobs publishing now</h2>
<p>Tokens trusted publishing gave CI jobs for your apps (<code>aptp_</code>): each publishes one app and ends 15 minutes after it was made. Revoke one you do not expect.</p>
${dataTable(
  {
    caption: 'CI jobs publishing now',
    headings: ['Job', 'Scopes', 'Apps', 'Made', 'Expires', 'Last used', ACTIONS_HEADING],
  },
  publishing.map((token) => tokenRow(token, now, formToken, true)),
)}</section>`
}
<section aria-labelledby="new" class="narrow"><h2 id="new">Make a token</h2>${problemBox(form)}
${postForm(
  '/account/tokens',
  formToken,
  html`${field({ name: 'name', label: 'Name', hint: 'What uses it, to tell it apart later (such as "GitHub release workflow")', maxLength: 100, form: 'new' }, form)}
<fieldset><legend>Scopes</legend>${TOKEN_SCOPES.map((scope) =>
    checkbox(
      {
        name: `scope-${scope}`,
        label: `${scope}: ${SCOPE_DESCRIPTIONS[scope]}`,
        form: 'new',
        checked: scope === 'release:publish',
      },
      chosen === undefined ? {} : form,
    ),
  )}</fieldset>
${field({ name: 'apps', label: 'Only these apps', hint: 'App ids, separated by spaces or commas; empty: every app you may act on', required: false, maxLength: 2000, form: 'new' }, form)}
${field({ name: 'days', label: 'Expires in (days)', hint: `1 to ${MAX_TOKEN_DAYS}; empty: ${DEFAULT_TOKEN_DAYS}`, required: false, maxLength: 3, form: 'new' }, form)}
<p><button type="submit">Make the token</button></p>`,
)}</section>`,
    context,
  );
}
