import type { User } from '../../domain/accounts/user.ts';
import { field, notice, postForm, problemBox } from '../forms.ts';
import type { FormState } from '../forms.ts';
import type { Html, HtmlValue } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import { STRINGS } from '../strings.ts';

/** A narrow page with a heading: every account page. */
function accountLayout(title: string, body: HtmlValue, context: PageContext): Html {
  return layout({ title }, html`<div class="narrow"><h1>${title}</h1>${body}</div>`, context);
}

export function loginPage(next: string, token: string, state: FormState, context: PageContext): Html {
  return accountLayout(
    STRINGS.signInTitle,
    html`<p>${STRINGS.signInLead}</p>${problemBox(state)}
${postForm(
  '/account/login',
  token,
  html`<input type="hidden" name="next" value="${next}">
${field({ name: 'username', label: STRINGS.username, autocomplete: 'username', maxLength: 150 }, state)}
${field({ name: 'password', label: STRINGS.password, type: 'password', autocomplete: 'current-password' }, state)}
<p><button type="submit">${STRINGS.signIn}</button></p>`,
)}
<p><a href="/account/reset">${STRINGS.forgotPassword}</a></p>
<p>${STRINGS.noAccount} <a href="/account/signup">${STRINGS.signUp}</a></p>`,
    context,
  );
}

export function signUpPage(open: boolean, token: string, state: FormState, context: PageContext): Html {
  if (!open) return accountLayout(STRINGS.signUpTitle, html`<p>${STRINGS.signUpClosed}</p>`, context);
  return accountLayout(
    STRINGS.signUpTitle,
    html`<p>${STRINGS.signUpLead}</p>${problemBox(state)}
${postForm(
  '/account/signup',
  token,
  html`${field({ name: 'username', label: STRINGS.username, autocomplete: 'username', hint: STRINGS.usernameHint, maxLength: 150 }, state)}
${field({ name: 'email', label: STRINGS.email, type: 'email', autocomplete: 'email', hint: STRINGS.emailHint, maxLength: 254 }, state)}
${field({ name: 'password', label: STRINGS.password, type: 'password', autocomplete: 'new-password', hint: STRINGS.passwordHint }, state)}
<p><button type="submit">${STRINGS.signUp}</button></p>`,
)}
<p>${STRINGS.haveAccount} <a href="/account/login">${STRINGS.signIn}</a></p>`,
    context,
  );
}

/** A page that only tells something (check your inbox, done, this link does not work). */
export function messagePage(title: string, text: HtmlValue, context: PageContext, next?: { href: string; label: string }): Html {
  return accountLayout(title, html`${notice(text)}${next === undefined ? '' : html`<p><a href="${next.href}">${next.label}</a></p>`}`, context);
}

export function verifyPage(secret: string, token: string, state: FormState, context: PageContext): Html {
  return accountLayout(
    STRINGS.verifyTitle,
    html`${problemBox(state)}<p>${STRINGS.verifyLead}</p>${postForm(`/account/verify/${secret}`, token, html`<p><button type="submit">${STRINGS.verifyButton}</button></p>`)}`,
    context,
  );
}

export function resetRequestPage(token: string, state: FormState, context: PageContext): Html {
  return accountLayout(
    STRINGS.resetTitle,
    html`<p>${STRINGS.resetLead}</p>${problemBox(state)}
${postForm('/account/reset', token, html`${field({ name: 'email', label: STRINGS.email, type: 'email', autocomplete: 'email', maxLength: 254 }, state)}<p><button type="submit">${STRINGS.resetButton}</button></p>`)}`,
    context,
  );
}

export function newPasswordPage(secret: string, user: Pick<User, 'username'>, token: string, state: FormState, context: PageContext): Html {
  return accountLayout(
    STRINGS.newPasswordTitle,
    html`<p>${STRINGS.newPasswordLead(user.username)}</p>${problemBox(state)}
${postForm(
  `/account/reset/${secret}`,
  token,
  html`<input type="hidden" name="username" value="${user.username}" autocomplete="username">
${field({ name: 'password', label: STRINGS.newPassword, type: 'password', autocomplete: 'new-password', hint: STRINGS.passwordHint }, state)}
<p><button type="submit">${STRINGS.setPassword}</button></p>`,
)}`,
    context,
  );
}

/** Which of the account page's forms a refusal or a message belongs to. */
export type AccountSection = 'token' | 'password' | 'email' | 'delete';

export interface AccountPageState {
  readonly section?: AccountSection;
  readonly form?: FormState;
  readonly message?: string;
  /** A token shown once, right after it was asked for. */
  readonly token?: { readonly value: string; readonly replaced: boolean };
}

export function accountPage(user: User, token: string, state: AccountPageState, context: PageContext): Html {
  const formOf = (section: AccountSection): FormState => (state.section === section ? (state.form ?? {}) : {});
  const messageOf = (section: AccountSection): Html | '' => (state.section === section && state.message !== undefined ? notice(state.message) : '');
  const shown = state.token;
  return accountLayout(
    STRINGS.accountTitle,
    html`<p>${STRINGS.signedInAs(user.username)}</p>
<dl class="facts"><dt>${STRINGS.username}</dt><dd>${user.username}</dd><dt>${STRINGS.email}</dt><dd>${user.email ?? STRINGS.noEmail}${user.email !== null && !user.emailVerified ? html` (${STRINGS.unconfirmed})` : ''}</dd></dl>

<section aria-labelledby="token"><h2 id="token">${STRINGS.apiToken}</h2>
<p>${STRINGS.apiTokenLead}</p>
${shown === undefined ? '' : html`<div class="notice" role="status"><p>${shown.replaced ? STRINGS.tokenReplacedText : STRINGS.tokenShownText}</p><p><label for="token-value">${STRINGS.tokenShownTitle}</label><input id="token-value" class="token" type="text" readonly value="${shown.value}"></p></div>`}
${problemBox(formOf('token'))}
<div class="actions">${postForm('/account/token', token, html`<button type="submit">${STRINGS.showToken}</button>`, 'inline')}
${postForm('/account/token/new', token, html`<button type="submit" class="secondary" aria-describedby="replace-hint">${STRINGS.replaceToken}</button>`, 'inline')}</div>
<p class="hint" id="replace-hint">${STRINGS.replaceTokenHint}</p></section>

<section aria-labelledby="password"><h2 id="password">${STRINGS.changePasswordTitle}</h2>
<p>${STRINGS.changePasswordHint}</p>${messageOf('password')}${problemBox(formOf('password'))}
${postForm(
  '/account/password',
  token,
  html`<input type="hidden" name="username" value="${user.username}" autocomplete="username">
${field({ name: 'current_password', label: STRINGS.currentPassword, type: 'password', autocomplete: 'current-password', form: 'password' }, formOf('password'))}
${field({ name: 'password', label: STRINGS.newPassword, type: 'password', autocomplete: 'new-password', hint: STRINGS.passwordHint, form: 'password' }, formOf('password'))}
<p><button type="submit">${STRINGS.save}</button></p>`,
)}</section>

<section aria-labelledby="email"><h2 id="email">${STRINGS.changeEmailTitle}</h2>
<p>${STRINGS.changeEmailHint}</p>${messageOf('email')}${problemBox(formOf('email'))}
${postForm(
  '/account/email',
  token,
  html`${field({ name: 'email', label: STRINGS.email, type: 'email', autocomplete: 'email', maxLength: 254, form: 'email' }, formOf('email'))}
${field({ name: 'current_password', label: STRINGS.currentPassword, type: 'password', autocomplete: 'current-password', form: 'email' }, formOf('email'))}
<p><button type="submit">${STRINGS.send}</button></p>`,
)}</section>

<section aria-labelledby="delete"><h2 id="delete">${STRINGS.deleteAccountTitle}</h2>
<p>${STRINGS.deleteAccountHint}</p>${problemBox(formOf('delete'))}
${postForm(
  '/account/delete',
  token,
  html`${field({ name: 'current_password', label: STRINGS.currentPassword, type: 'password', autocomplete: 'current-password', form: 'delete' }, formOf('delete'))}
<p><button type="submit" class="danger">${STRINGS.deleteAccount}</button></p>`,
)}</section>`,
    context,
  );
}
