import type { Passkey } from '../../domain/accounts/two-factor-store.ts';
import { field, notice, postForm, problemBox } from '../forms.ts';
import type { FormState } from '../forms.ts';
import { html } from '../html.ts';
import type { Html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { layout } from '../layout.ts';

const PASSKEY_SCRIPT = '/static/passkeys.js';

/** The second step of a sign-in (issue 53): a code, or a passkey. */
export function secondFactorPage(
  pending: { readonly hasTotp: boolean; readonly hasPasskeys: boolean },
  formToken: string,
  state: FormState,
  context: PageContext,
): Html {
  return layout(
    { title: 'Second factor', scripts: pending.hasPasskeys ? [PASSKEY_SCRIPT] : [] },
    html`<div class="narrow"><h1>Second factor</h1>
<p>Your password was right. Your account also needs its second factor.</p>${problemBox(state)}
${
  pending.hasPasskeys
    ? postForm(
        '/account/login/passkey',
        formToken,
        html`<input type="hidden" name="response" value=""><p><button type="submit" data-passkey="get" data-options="/account/login/passkey/options">Use a passkey</button> <span class="hint" role="status" data-passkey-status></span></p>`,
      )
    : ''
}
${postForm(
  '/account/login/second-factor',
  formToken,
  html`${field({ name: 'code', label: pending.hasTotp ? 'Code from the authenticator app, or a recovery code' : 'Recovery code', autocomplete: 'one-time-code', maxLength: 40, hint: pending.hasTotp ? 'The 6 digits the app shows now' : 'One of the codes you saved when you set up the second factor', form: 'second' }, state)}
<p><button type="submit">Sign in</button></p>`,
)}
<p><a href="/account/login">Start again</a></p></div>`,
    context,
  );
}

export interface SecurityStatus {
  readonly hasPassword: boolean;
  readonly totp: boolean;
  /** An authenticator app being set up: its secret and otpauth URI. */
  readonly pendingTotp: { readonly secret: string; readonly uri: string } | null;
  readonly passkeys: readonly Passkey[];
  readonly recoveryLeft: number;
  /** An administrator requires a second factor of this account. */
  readonly required: boolean;
}

export type SecuritySection = 'totp' | 'passkeys' | 'recovery';

export interface SecurityPageState {
  readonly section?: SecuritySection;
  readonly form?: FormState;
  readonly message?: string;
  /** Recovery codes just made: shown this once. */
  readonly recoveryCodes?: readonly string[];
}

const day = (date: Date): string => date.toISOString().slice(0, 10);

function recoveryBox(codes: readonly string[]): Html {
  return html`<div class="notice" role="status"><p><strong>Save these recovery codes now</strong>: they are shown only this once. Each signs you in once if you lose your second factor.</p>
<ul class="recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul></div>`;
}

/** `/account/security`: the second factors of the account, and adding or removing them. */
export function securityPage(
  status: SecurityStatus,
  token: string,
  state: SecurityPageState,
  context: PageContext,
): Html {
  const formOf = (section: SecuritySection): FormState => (state.section === section ? (state.form ?? {}) : {});
  const around = (section: SecuritySection): Html =>
    html`${state.section === section && state.message !== undefined ? notice(state.message) : ''}${problemBox(formOf(section))}`;
  const any = status.totp || status.passkeys.length > 0;
  const password = (section: SecuritySection) =>
    field(
      {
        name: 'current_password',
        label: 'Current password',
        type: 'password',
        autocomplete: 'current-password',
        maxLength: 1024,
        form: section,
      },
      formOf(section),
    );
  return layout(
    { title: 'Sign-in security', scripts: status.hasPassword ? [PASSKEY_SCRIPT] : [] },
    html`<div class="narrow"><h1>Sign-in security</h1>
${status.required && !any ? notice('An administrator of this store requires a second factor for your account: add an authenticator app or a passkey below. Until then, Basic authentication cannot change anything.') : ''}
${state.recoveryCodes === undefined || state.recoveryCodes.length === 0 ? '' : recoveryBox(state.recoveryCodes)}
${
  !status.hasPassword
    ? html`<p>Your account signs in through an external login, which has its own second factors: nothing to set up here.</p>`
    : html`<p>With a second factor, signing in needs your password and a code from an authenticator app, or a passkey. Scripts and CI then use <a href="/account/tokens">tokens</a>: Basic authentication cannot carry the second factor, so it may only read.</p>
<p>Second factor: <strong>${any ? 'on' : 'off'}</strong>.</p>

<section aria-labelledby="totp"><h2 id="totp">Authenticator app</h2>${around('totp')}
${
  status.totp
    ? html`<p>An authenticator app is set up.</p>${postForm('/account/security/totp/remove', token, html`${password('totp')}<p><button type="submit" class="secondary">Remove the authenticator app</button></p>`)}`
    : status.pendingTotp !== null
      ? html`<p>Add this key to your authenticator app (or open the link on the phone), then type the code it shows.</p>
<p><label for="totp-secret">Key</label> <input id="totp-secret" class="token" type="text" readonly value="${status.pendingTotp.secret}"></p>
<p><a href="${status.pendingTotp.uri}">Open in the authenticator app</a></p>
${postForm('/account/security/totp/confirm', token, html`${field({ name: 'code', label: 'Code from the app', autocomplete: 'one-time-code', maxLength: 10, form: 'totp' }, formOf('totp'))}${password('totp')}<p><button type="submit">Turn it on</button></p>`)}`
      : postForm(
          '/account/security/totp/start',
          token,
          html`<p><button type="submit">Set up an authenticator app</button></p>`,
        )
}</section>

<section aria-labelledby="passkeys"><h2 id="passkeys">Passkeys</h2>${around('passkeys')}
${
  status.passkeys.length === 0
    ? html`<p>No passkeys.</p>`
    : html`<ul class="plain">${status.passkeys.map((passkey) => html`<li>${passkey.name} <span class="muted">added ${day(passkey.createdAt)}${passkey.lastUsedAt === null ? '' : `, last used ${day(passkey.lastUsedAt)}`}</span></li>`)}</ul>
${postForm('/account/security/passkeys/remove', token, html`<p class="field"><label for="passkey-remove">Passkey to remove</label> <select id="passkey-remove" name="passkey">${status.passkeys.map((passkey) => html`<option value="${String(passkey.id)}">${passkey.name}</option>`)}</select></p>${password('passkeys')}<p><button type="submit" class="secondary">Remove the passkey</button></p>`)}`
}
<h3>Add a passkey</h3>
${postForm('/account/security/passkeys', token, html`<input type="hidden" name="response" value=""><input type="hidden" name="ticket" value="">${field({ name: 'name', label: 'Name of the new passkey', hint: 'Such as the device it is on', required: false, maxLength: 100, form: 'passkey' }, formOf('passkeys'))}${field({ name: 'current_password', label: 'Current password', type: 'password', autocomplete: 'current-password', maxLength: 1024, form: 'passkey-add' }, formOf('passkeys'))}<p><button type="submit" data-passkey="create" data-options="/account/security/passkeys/options">Add a passkey</button> <span class="hint" role="status" data-passkey-status></span></p>`)}</section>

${
  any
    ? html`<section aria-labelledby="recovery"><h2 id="recovery">Recovery codes</h2>${around('recovery')}
<p>${status.recoveryLeft} of 10 unused. Making new ones ends the old ones.</p>
${postForm('/account/security/recovery', token, html`${password('recovery')}<p><button type="submit" class="secondary">Make new recovery codes</button></p>`)}</section>`
    : ''
}`
}</div>`,
    context,
  );
}
