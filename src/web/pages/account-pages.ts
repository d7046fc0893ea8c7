import type { SiteStrings } from '../strings.ts';
import { NOTIFICATION_KINDS } from '../../domain/notifications/notifications.ts';
import type { NotificationKind } from '../../domain/notifications/notifications.ts';
import type { LinkedIdentity } from '../../domain/accounts/external-identity.ts';
import type { User } from '../../domain/accounts/user.ts';
import { checkbox, field, notice, postForm, problemBox } from '../forms.ts';
import type { FormState } from '../forms.ts';
import type { Html, HtmlValue } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';

const NOTIFICATION_LABELS = {
  'publish-failed': 'notifyPublishFailed',
  'release-retired': 'notifyReleaseRetired',
  'certificate-expiring': 'notifyCertificateExpiring',
  'platform-major': 'notifyPlatformMajor',
  'token-expiring': 'notifyTokenExpiring',
} as const satisfies Record<NotificationKind, keyof SiteStrings>;

/** A narrow page with a heading: every account page. */
function accountLayout(title: string, body: HtmlValue, context: PageContext): Html {
  return layout({ title }, html`<div class="narrow"><h1>${title}</h1>${body}</div>`, context);
}

/** An external login offered on the store: its id (in its addresses) and the name on its button. */
export interface ProviderChoice {
  readonly id: string;
  readonly name: string;
}

/**
 * The "Sign in with …" buttons: links, as the page's forms may post only to the store (CSP
 * form-action) and a sign-in goes on at the provider. Beginning one changes nothing an attacker
 * could use: it is bound to this browser, and only this browser's callback ends it.
 */
function providerButtons(s: SiteStrings, providers: readonly ProviderChoice[], next: string): Html | '' {
  if (providers.length === 0) return '';
  const query = next === '/' ? '' : `?next=${encodeURIComponent(next)}`;
  return html`<ul class="external-logins">${providers.map((provider) => html`<li><a class="button secondary" href="/account/external/${provider.id}/start${query}">${s.signInWith(provider.name)}</a></li>`)}</ul>
<p class="hint">${s.orWithPassword}</p>`;
}

export function loginPage(
  next: string,
  token: string,
  state: FormState,
  context: PageContext,
  providers: readonly ProviderChoice[] = [],
): Html {
  const s = context.t.site;
  return accountLayout(
    s.signInTitle,
    html`<p>${s.signInLead}</p>${problemBox(state)}
${providerButtons(s, providers, next)}
${postForm(
  '/account/login',
  token,
  html`<input type="hidden" name="next" value="${next}">
${field({ name: 'username', label: s.username, autocomplete: 'username', maxLength: 150 }, state)}
${field({ name: 'password', label: s.password, type: 'password', autocomplete: 'current-password' }, state)}
<p><button type="submit">${s.signIn}</button></p>`,
)}
<p><a href="/account/reset">${s.forgotPassword}</a></p>
<p>${s.noAccount} <a href="/account/signup">${s.signUp}</a></p>`,
    context,
  );
}

export function signUpPage(
  open: boolean,
  token: string,
  state: FormState,
  context: PageContext,
  providers: readonly ProviderChoice[] = [],
): Html {
  const s = context.t.site;
  if (!open)
    return accountLayout(s.signUpTitle, html`<p>${s.signUpClosed}</p>${providerButtons(s, providers, '/')}`, context);
  return accountLayout(
    s.signUpTitle,
    html`<p>${s.signUpLead}</p>${problemBox(state)}
${providerButtons(s, providers, '/')}
${postForm(
  '/account/signup',
  token,
  html`${field({ name: 'username', label: s.username, autocomplete: 'username', hint: s.usernameHint, maxLength: 150 }, state)}
${field({ name: 'email', label: s.email, type: 'email', autocomplete: 'email', hint: s.emailHint, maxLength: 254 }, state)}
${field({ name: 'password', label: s.password, type: 'password', autocomplete: 'new-password', hint: s.passwordHint }, state)}
<p><button type="submit">${s.signUp}</button></p>`,
)}
<p>${s.haveAccount} <a href="/account/login">${s.signIn}</a></p>`,
    context,
  );
}

/** A page that only tells something (check your inbox, done, this link does not work). */
export function messagePage(
  title: string,
  text: HtmlValue,
  context: PageContext,
  next?: { href: string; label: string },
): Html {
  return accountLayout(
    title,
    html`${notice(text)}${next === undefined ? '' : html`<p><a href="${next.href}">${next.label}</a></p>`}`,
    context,
  );
}

export function verifyPage(secret: string, token: string, state: FormState, context: PageContext): Html {
  const s = context.t.site;
  return accountLayout(
    s.verifyTitle,
    html`${problemBox(state)}<p>${s.verifyLead}</p>${postForm(`/account/verify/${secret}`, token, html`<p><button type="submit">${s.verifyButton}</button></p>`)}`,
    context,
  );
}

export function resetRequestPage(token: string, state: FormState, context: PageContext): Html {
  const s = context.t.site;
  return accountLayout(
    s.resetTitle,
    html`<p>${s.resetLead}</p>${problemBox(state)}
${postForm('/account/reset', token, html`${field({ name: 'email', label: s.email, type: 'email', autocomplete: 'email', maxLength: 254 }, state)}<p><button type="submit">${s.resetButton}</button></p>`)}`,
    context,
  );
}

export function newPasswordPage(
  secret: string,
  user: Pick<User, 'username'>,
  token: string,
  state: FormState,
  context: PageContext,
): Html {
  const s = context.t.site;
  return accountLayout(
    s.newPasswordTitle,
    html`<p>${s.newPasswordLead(user.username)}</p>${problemBox(state)}
${postForm(
  `/account/reset/${secret}`,
  token,
  html`<input type="hidden" name="username" value="${user.username}" autocomplete="username">
${field({ name: 'password', label: s.newPassword, type: 'password', autocomplete: 'new-password', hint: s.passwordHint }, state)}
<p><button type="submit">${s.setPassword}</button></p>`,
)}`,
    context,
  );
}

/** The current password of a form on the account page: none for an account without one (its session is the proof). */
function currentPassword(s: SiteStrings, user: User, form: string, state: FormState): Html | '' {
  if (!user.hasPassword) return '';
  return field(
    {
      name: 'current_password',
      label: s.currentPassword,
      type: 'password',
      autocomplete: 'current-password',
      form,
    },
    state,
  );
}

/** The page a first external sign-in shows when its name is taken here. */
export function chooseUsernamePage(
  provider: string,
  suggestion: string,
  token: string,
  state: FormState,
  context: PageContext,
): Html {
  const s = context.t.site;
  const values = state.values ?? { username: suggestion };
  return accountLayout(
    s.chooseUsernameTitle,
    html`<p>${s.chooseUsernameLead(provider, suggestion)}</p>${problemBox(state)}
${postForm(
  '/account/external/username',
  token,
  html`${field({ name: 'username', label: s.username, autocomplete: 'username', hint: s.usernameHint, maxLength: 150 }, { ...state, values })}
<p><button type="submit">${s.createAccount}</button></p>`,
)}`,
    context,
  );
}

/** Which of the account page's forms a refusal or a message belongs to. */
export type AccountSection = 'methods' | 'token' | 'password' | 'email' | 'notifications' | 'delete';

export interface AccountPageState {
  readonly section?: AccountSection;
  readonly form?: FormState;
  readonly message?: string;
  /** A token shown once, right after it was asked for. */
  readonly token?: { readonly value: string; readonly replaced: boolean };
  /** A welcome for an account an external login just created (and whether its address was another account's). */
  readonly welcome?: { readonly provider: string; readonly addressInUse: boolean };
}

/** The external logins of the store, and those connected to the account. */
export interface AccountMethods {
  readonly providers: readonly ProviderChoice[];
  readonly linked: readonly LinkedIdentity[];
  /** The notification kinds the user turned off (issue 52). */
  readonly notificationsOff?: ReadonlySet<string>;
}

/** The mails about the user's apps, each on unless turned off. */
function notificationsSection(s: SiteStrings, methods: AccountMethods, token: string, message: Html | ''): Html {
  const off = methods.notificationsOff ?? new Set<string>();
  return html`<section aria-labelledby="notifications"><h2 id="notifications">${s.notificationsTitle}</h2>
<p>${s.notificationsLead}</p><p class="hint">${s.mailLanguage}</p>${message}
${postForm(
  '/account/notifications',
  token,
  html`<fieldset><legend>${s.notificationsLegend}</legend>${NOTIFICATION_KINDS.map((kind) => checkbox({ name: `on-${kind}`, label: s[NOTIFICATION_LABELS[kind]], checked: !off.has(kind), form: 'notify' }))}</fieldset>
<input type="hidden" name="sent" value="1"><p><button type="submit">${s.save}</button></p>`,
)}</section>`;
}

function methodsSection(
  s: SiteStrings,
  user: User,
  methods: AccountMethods,
  token: string,
  state: AccountPageState,
): Html | '' {
  if (methods.providers.length === 0 && methods.linked.length === 0) return '';
  const form = state.section === 'methods' ? (state.form ?? {}) : {};
  const nameOf = (id: string): string => methods.providers.find((provider) => provider.id === id)?.name ?? id;
  const shown = [
    ...methods.providers.map((provider) => provider.id),
    ...methods.linked
      .map((identity) => identity.provider)
      .filter((id) => !methods.providers.some((provider) => provider.id === id)),
  ];
  const rows = shown.map((id) => {
    const identity = methods.linked.find((entry) => entry.provider === id);
    // Connecting goes on at the provider, so it is a link (CSP form-action), carrying the page's CSRF token.
    const action =
      identity === undefined
        ? html`<a class="button secondary" href="/account/external/${id}/link?csrf_token=${encodeURIComponent(token)}">${s.connect(nameOf(id))}</a>`
        : postForm(
            `/account/external/${id}/unlink`,
            token,
            html`<button type="submit" class="secondary">${s.disconnect(nameOf(id))}</button>`,
            'inline',
          );
    return html`<li><span><strong>${nameOf(id)}</strong>: ${identity === undefined ? s.notConnected : s.connectedAs(identity.label)}</span> ${action}</li>`;
  });
  return html`<section aria-labelledby="methods"><h2 id="methods">${s.signInMethods}</h2>
<p>${s.signInMethodsLead}</p>${state.section === 'methods' && state.message !== undefined ? notice(state.message) : ''}${problemBox(form)}
<ul class="methods"><li><span><strong>${s.passwordMethod}</strong>: ${user.hasPassword ? s.passwordSet : s.passwordNone}</span></li>${rows}</ul></section>`;
}

export function accountPage(
  user: User,
  token: string,
  state: AccountPageState,
  context: PageContext,
  methods: AccountMethods = { providers: [], linked: [] },
): Html {
  const s = context.t.site;
  const formOf = (section: AccountSection): FormState => (state.section === section ? (state.form ?? {}) : {});
  const messageOf = (section: AccountSection): Html | '' =>
    state.section === section && state.message !== undefined ? notice(state.message) : '';
  const shown = state.token;
  return accountLayout(
    s.accountTitle,
    html`<p>${s.signedInAs(user.username)}</p>
${state.welcome === undefined ? '' : notice(html`${s.welcome(state.welcome.provider)}${state.welcome.addressInUse ? html` ${s.welcomeAddressInUse}` : ''}`)}
<dl class="facts"><dt>${s.username}</dt><dd>${user.username}</dd><dt>${s.email}</dt><dd>${user.email ?? s.noEmail}${user.email !== null && !user.emailVerified ? html` (${s.unconfirmed})` : ''}</dd></dl>
${methodsSection(s, user, methods, token, state)}
<p><a href="/account/security">${s.securityLink}</a>: ${user.twoFactor === true ? s.secondFactorOn : s.secondFactorOff}</p>

<section aria-labelledby="token"><h2 id="token">${s.apiToken}</h2>
<p>${s.apiTokenLead}</p>
${shown === undefined ? '' : html`<div class="notice" role="status"><p>${shown.replaced ? s.tokenReplacedText : s.tokenShownText}</p><p><label for="token-value">${s.tokenShownTitle}</label><input id="token-value" class="token" type="text" readonly value="${shown.value}"></p></div>`}
${problemBox(formOf('token'))}
<div class="actions">${postForm('/account/token', token, html`<button type="submit">${s.showToken}</button>`, 'inline')}
${postForm('/account/token/new', token, html`<button type="submit" class="secondary" aria-describedby="replace-hint">${s.replaceToken}</button>`, 'inline')}</div>
<p class="hint" id="replace-hint">${s.replaceTokenHint}</p>
<p>${s.scopedTokensLead} <a href="/account/tokens">${s.scopedTokensLink}</a></p></section>

<section aria-labelledby="password"><h2 id="password">${user.hasPassword ? s.changePasswordTitle : s.setPasswordTitle}</h2>
<p>${user.hasPassword ? s.changePasswordHint : s.setPasswordHint}</p>${messageOf('password')}${problemBox(formOf('password'))}
${postForm(
  '/account/password',
  token,
  html`<input type="hidden" name="username" value="${user.username}" autocomplete="username">
${currentPassword(s, user, 'password', formOf('password'))}
${field({ name: 'password', label: s.newPassword, type: 'password', autocomplete: 'new-password', hint: s.passwordHint, form: 'password' }, formOf('password'))}
<p><button type="submit">${s.save}</button></p>`,
)}</section>

${notificationsSection(s, methods, token, messageOf('notifications'))}

<section aria-labelledby="email"><h2 id="email">${s.changeEmailTitle}</h2>
<p>${s.changeEmailHint}</p>${messageOf('email')}${problemBox(formOf('email'))}
${postForm(
  '/account/email',
  token,
  html`${field({ name: 'email', label: s.email, type: 'email', autocomplete: 'email', maxLength: 254, form: 'email' }, formOf('email'))}
${currentPassword(s, user, 'email', formOf('email'))}
<p><button type="submit">${s.send}</button></p>`,
)}</section>

<section aria-labelledby="delete"><h2 id="delete">${s.deleteAccountTitle}</h2>
<p>${s.deleteAccountHint}</p>${problemBox(formOf('delete'))}
${postForm(
  '/account/delete',
  token,
  html`${user.hasPassword ? currentPassword(s, user, 'delete', formOf('delete')) : field({ name: 'confirm_username', label: s.confirmUsername, autocomplete: 'off', maxLength: 150, form: 'delete' }, formOf('delete'))}
<p><button type="submit" class="danger">${s.deleteAccount}</button></p>`,
)}</section>`,
    context,
  );
}
