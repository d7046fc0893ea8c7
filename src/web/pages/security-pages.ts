import type { Passkey } from '../../domain/accounts/two-factor-store.ts';
import { field, notice, postForm, problemBox } from '../forms.ts';
import type { FormState } from '../forms.ts';
import { html } from '../html.ts';
import type { Html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { layout } from '../layout.ts';
import type { PageTexts } from '../page-texts.ts';

const PASSKEY_SCRIPT = '/static/passkeys.js';

/** Where the passkey script says how it goes, with its words in the page's language. */
function passkeyStatus(t: PageTexts): Html {
  const s = t.site;
  return html`<span class="hint" role="status" data-passkey-status data-say-unsupported="${s.passkeyUnsupported}" data-say-waiting="${s.passkeyWaiting}" data-say-refused="${s.passkeyRefused}" data-say-closed="${s.passkeyClosed}"></span>`;
}

/** The second step of a sign-in (issue 53): a code, or a passkey. */
export function secondFactorPage(
  pending: { readonly hasTotp: boolean; readonly hasPasskeys: boolean },
  formToken: string,
  state: FormState,
  context: PageContext,
): Html {
  const s = context.t.site;
  return layout(
    { title: s.secondFactorTitle, scripts: pending.hasPasskeys ? [PASSKEY_SCRIPT] : [] },
    html`<div class="narrow"><h1>${s.secondFactorTitle}</h1>
<p>${s.secondFactorLead}</p>${problemBox(state)}
${
  pending.hasPasskeys
    ? postForm(
        '/account/login/passkey',
        formToken,
        html`<input type="hidden" name="response" value=""><p><button type="submit" data-passkey="get" data-options="/account/login/passkey/options">${s.usePasskey}</button> ${passkeyStatus(context.t)}</p>`,
      )
    : ''
}
${postForm(
  '/account/login/second-factor',
  formToken,
  html`${field({ name: 'code', label: pending.hasTotp ? s.codeOrRecoveryLabel : s.recoveryCodeLabel, autocomplete: 'one-time-code', maxLength: 40, hint: pending.hasTotp ? s.codeHint : s.recoveryCodeHint, form: 'second' }, state)}
<p><button type="submit">${s.signIn}</button></p>`,
)}
<p><a href="/account/login">${s.startAgain}</a></p></div>`,
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
const strong = (inner: Html): Html => html`<strong>${inner}</strong>`;

function recoveryBox(t: PageTexts, codes: readonly string[]): Html {
  return html`<div class="notice" role="status"><p>${t.tagged('site.saveRecoveryCodes', { strong })}</p>
<ul class="recovery-codes">${codes.map((code) => html`<li><code>${code}</code></li>`)}</ul></div>`;
}

function passkeyLine(t: PageTexts, passkey: Passkey): Html {
  const s = t.site;
  const added = day(passkey.createdAt);
  return html`<li>${passkey.name} <span class="muted">${passkey.lastUsedAt === null ? s.passkeyAdded(added) : s.passkeyAddedUsed(added, day(passkey.lastUsedAt))}</span></li>`;
}

/** `/account/security`: the second factors of the account, and adding or removing them. */
export function securityPage(
  status: SecurityStatus,
  token: string,
  state: SecurityPageState,
  context: PageContext,
): Html {
  const { t } = context;
  const s = t.site;
  const formOf = (section: SecuritySection): FormState => (state.section === section ? (state.form ?? {}) : {});
  const around = (section: SecuritySection): Html =>
    html`${state.section === section && state.message !== undefined ? notice(state.message) : ''}${problemBox(formOf(section))}`;
  const any = status.totp || status.passkeys.length > 0;
  const password = (section: SecuritySection) =>
    field(
      {
        name: 'current_password',
        label: s.currentPassword,
        type: 'password',
        autocomplete: 'current-password',
        maxLength: 1024,
        form: section,
      },
      formOf(section),
    );
  return layout(
    { title: s.securityTitle, scripts: status.hasPassword ? [PASSKEY_SCRIPT] : [] },
    html`<div class="narrow"><h1>${s.securityTitle}</h1>
${status.required && !any ? notice(s.factorRequired) : ''}
${state.recoveryCodes === undefined || state.recoveryCodes.length === 0 ? '' : recoveryBox(t, state.recoveryCodes)}
${
  !status.hasPassword
    ? html`<p>${s.externalFactors}</p>`
    : html`<p>${t.tagged('site.securityLead', { tokens: (inner) => html`<a href="/account/tokens">${inner}</a>` })}</p>
<p>${t.tagged(any ? 'site.secondFactorIsOn' : 'site.secondFactorIsOff', { strong })}</p>

<section aria-labelledby="totp"><h2 id="totp">${s.authenticatorApp}</h2>${around('totp')}
${
  status.totp
    ? html`<p>${s.authenticatorSetUp}</p>${postForm('/account/security/totp/remove', token, html`${password('totp')}<p><button type="submit" class="secondary">${s.removeAuthenticator}</button></p>`)}`
    : status.pendingTotp !== null
      ? html`<p>${s.addKeyLead}</p>
<p><label for="totp-secret">${s.totpKey}</label> <input id="totp-secret" class="token" type="text" readonly value="${status.pendingTotp.secret}"></p>
<p><a href="${status.pendingTotp.uri}">${s.openInAuthenticator}</a></p>
${postForm('/account/security/totp/confirm', token, html`${field({ name: 'code', label: s.codeFromApp, autocomplete: 'one-time-code', maxLength: 10, form: 'totp' }, formOf('totp'))}${password('totp')}<p><button type="submit">${s.turnOn}</button></p>`)}`
      : postForm(
          '/account/security/totp/start',
          token,
          html`<p><button type="submit">${s.setUpAuthenticator}</button></p>`,
        )
}</section>

<section aria-labelledby="passkeys"><h2 id="passkeys">${s.passkeys}</h2>${around('passkeys')}
${
  status.passkeys.length === 0
    ? html`<p>${s.noPasskeys}</p>`
    : html`<ul class="plain">${status.passkeys.map((passkey) => passkeyLine(t, passkey))}</ul>
${postForm('/account/security/passkeys/remove', token, html`<p class="field"><label for="passkey-remove">${s.passkeyToRemove}</label> <select id="passkey-remove" name="passkey">${status.passkeys.map((passkey) => html`<option value="${String(passkey.id)}">${passkey.name}</option>`)}</select></p>${password('passkeys')}<p><button type="submit" class="secondary">${s.removePasskey}</button></p>`)}`
}
<h3>${s.addPasskey}</h3>
${postForm('/account/security/passkeys', token, html`<input type="hidden" name="response" value=""><input type="hidden" name="ticket" value="">${field({ name: 'name', label: s.passkeyName, hint: s.passkeyNameHint, required: false, maxLength: 100, form: 'passkey' }, formOf('passkeys'))}${field({ name: 'current_password', label: s.currentPassword, type: 'password', autocomplete: 'current-password', maxLength: 1024, form: 'passkey-add' }, formOf('passkeys'))}<p><button type="submit" data-passkey="create" data-options="/account/security/passkeys/options">${s.addPasskey}</button> ${passkeyStatus(t)}</p>`)}</section>

${
  any
    ? html`<section aria-labelledby="recovery"><h2 id="recovery">${s.recoveryCodes}</h2>${around('recovery')}
<p>${s.recoveryLeft(status.recoveryLeft)}</p>
${postForm('/account/security/recovery', token, html`${password('recovery')}<p><button type="submit" class="secondary">${s.renewRecoveryCodes}</button></p>`)}</section>`
    : ''
}`
}</div>`,
    context,
  );
}
