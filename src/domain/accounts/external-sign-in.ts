import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { auditEntry, userActing } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { ExternalProfile, StoredFlow } from './external-identity.ts';
import { link } from './external-links.ts';
import {
  bindingHash,
  callbackUrl,
  cleanProfile,
  externalLoginFailed as failed,
  findProvider,
  FLOW_LIFETIME_MS,
  flowKey,
  random,
  refuseDisabled,
} from './external-login.ts';
import type { ExternalLoginDeps, ExternalOutcome, ExternalProvider, FlowChecks, FlowData } from './external-login.ts';
import { createExternalAccount, keepPending, proposedUsername } from './external-sign-up.ts';
import { USERNAME_PATTERN } from './manage-users.ts';
import { openSession } from './sessions.ts';
import { toUser } from './user.ts';
import type { User, UserRecord } from './user.ts';

/**
 * Begins a sign-in (or the linking of an identity to the signed-in `user`): keeps the state, nonce
 * and PKCE verifier server-side, bound to this browser's secret (an HttpOnly cookie), and returns
 * the provider's address to send the browser to.
 */
export async function beginExternalLogin(
  request: {
    providerId: string;
    purpose: 'sign-in' | 'link';
    user: User | null;
    next: string;
    browserSecret: string;
    address: string;
  },
  deps: ExternalLoginDeps,
): Promise<URL> {
  const provider = findProvider(request.providerId, deps);
  if (request.purpose === 'link' && request.user === null)
    throw new AppError('not_authenticated', said`Sign in first: an identity is connected from your account page.`);
  await deps.limiter.consume(RATE_LIMITS.externalLogin, request.address);
  const checks: FlowChecks = { state: random(), nonce: random(), codeVerifier: random() };
  const now = deps.now();
  const data: FlowData = { nonce: checks.nonce, codeVerifier: checks.codeVerifier, next: request.next };
  await deps.identities.insertFlow(
    flowKey(deps, checks.state),
    {
      provider: provider.id,
      purpose: request.purpose,
      userId: request.user?.id ?? null,
      bindingHash: bindingHash(deps, request.browserSecret),
      data: JSON.stringify(data),
      expiresAt: new Date(now.getTime() + FLOW_LIFETIME_MS),
    },
    now,
  );
  return provider.authorizationUrl(checks, callbackUrl(deps, provider.id));
}

/**
 * The flow the callback's `state` names, used up, after every check that it belongs to this
 * browser and provider. A callback opened in another browser (a link someone was sent, login
 * CSRF) is refused and leaves the flow alone: only the browser that began it can use it up.
 */
async function takeCallbackFlow(
  provider: ExternalProvider,
  state: string | null,
  browserSecret: string | undefined,
  deps: ExternalLoginDeps,
): Promise<StoredFlow> {
  if (state === null || state === '')
    throw failed(
      said`The answer from ${provider.name} carries no state, so it cannot be matched to a sign-in begun here.`,
    );
  const key = flowKey(deps, state);
  const bound =
    browserSecret === undefined || browserSecret === ''
      ? null
      : await deps.identities.takeFlow(key, bindingHash(deps, browserSecret));
  const flow = bound ?? (await deps.identities.findFlow(key));
  if (flow === null || flow.purpose === 'choose-username') {
    throw failed(
      said`The answer from ${provider.name} does not match a sign-in under way: its state is unknown, or was used already (each answer works once).`,
    );
  }
  if (bound === null)
    throw failed(
      said`The sign-in with ${provider.name} was begun in another browser (or this browser's cookies were cleared meanwhile).`,
    );
  if (flow.provider !== provider.id)
    throw failed(
      said`This answer came back to ${provider.name}'s address, but the sign-in was begun with another provider.`,
    );
  if (flow.expiresAt.getTime() <= deps.now().getTime())
    throw failed(said`The sign-in took longer than ${FLOW_LIFETIME_MS / 60_000} minutes.`);
  return flow;
}

/** The provider's own refusal (the person cancelled, or the provider would not sign them in). */
function refuseProviderError(provider: ExternalProvider, callback: URLSearchParams): void {
  const error = callback.get('error');
  if (error === null) return;
  const description = callback.get('error_description');
  const answer = `${error.slice(0, 100)}${description === null || description === '' ? '' : `: ${description.slice(0, 300)}`}`;
  throw failed(said`${provider.name} did not sign you in (it answered "${answer}").`);
}

/** The allowed e-mail domains of the provider, when it has them: a verified address in one of them. */
function refuseOutsideDomains(provider: ExternalProvider, profile: ExternalProfile): void {
  if (provider.emailDomains === null) return;
  const domain = profile.email?.slice(profile.email.lastIndexOf('@') + 1).toLowerCase() ?? null;
  if (domain === null || !provider.emailDomains.includes(domain)) {
    const allowed = provider.emailDomains.join(', ');
    throw new AppError(
      'forbidden',
      profile.email === null
        ? said`Signing in with ${provider.name} needs a verified e-mail address at ${allowed}, and ${provider.name} gave none.`
        : said`Signing in with ${provider.name} is open to addresses at ${allowed} only; ${provider.name} gave an address at ${domain}.`,
    );
  }
}

/**
 * Ends a sign-in at the provider's callback: the flow is taken (it works once), then the provider's
 * answer is checked and exchanged (the connector), then the identity signs in, signs up, or is
 * linked to the account that asked. Any failure leaves everything as it was.
 */
export async function finishExternalLogin(
  providerId: string,
  callback: URLSearchParams,
  browser: { secret: string | undefined; signedInAs: number | null },
  origin: Pick<Acting, 'address' | 'requestId'>,
  deps: ExternalLoginDeps,
): Promise<ExternalOutcome> {
  const browserSecret = browser.secret;
  const provider = findProvider(providerId, deps);
  const state = callback.get('state');
  const flow = await takeCallbackFlow(provider, state, browserSecret, deps);
  refuseProviderError(provider, callback);
  if (flow.purpose === 'link' && flow.userId !== browser.signedInAs) {
    throw failed(said`This browser is no longer signed in to the account that asked to connect ${provider.name}.`);
  }
  const data = JSON.parse(flow.data) as FlowData;
  const profile = cleanProfile(
    await provider.complete(new URL(`${callbackUrl(deps, provider.id)}?${callback.toString()}`), {
      state: state ?? '',
      nonce: data.nonce,
      codeVerifier: data.codeVerifier,
    }),
  );
  if (profile.subject === '') throw failed(said`${provider.name} did not say who signed in (no subject).`);
  refuseOutsideDomains(provider, profile);
  if (flow.purpose === 'link') return link(flow.userId, provider, profile, origin, deps);
  return signInWith(provider, profile, data.next, browserSecret ?? '', origin, deps);
}

/**
 * The provider's admin claim, when configured, grants administrator rights at each sign-in, and
 * takes back the rights it granted when it no longer says so. Rights an administrator gave stay.
 */
async function followAdminClaim(
  found: { user: UserRecord; adminFromClaim: boolean },
  profile: ExternalProfile,
  origin: Pick<Acting, 'address' | 'requestId'>,
  deps: ExternalLoginDeps,
): Promise<{ user: UserRecord; adminFromClaim: boolean }> {
  const { user, adminFromClaim } = found;
  if (profile.admin === null) return found;
  const acting = userActing(user, origin.address, origin.requestId);
  const details = { provider: profile.provider, by: 'admin claim' };
  if (profile.admin && !user.isAdmin) {
    await deps.store.setAdmin(
      user.id,
      true,
      deps.now(),
      auditEntry(acting, 'user.admin_granted', { subjectUser: user.username, details }),
    );
    return { user: { ...user, isAdmin: true }, adminFromClaim: true };
  }
  if (!profile.admin && user.isAdmin && adminFromClaim) {
    await deps.store.setAdmin(
      user.id,
      false,
      deps.now(),
      auditEntry(acting, 'user.admin_revoked', { subjectUser: user.username, details }),
    );
    return { user: { ...user, isAdmin: false }, adminFromClaim: false };
  }
  return found;
}

async function signInWith(
  provider: ExternalProvider,
  profile: ExternalProfile,
  next: string,
  browserSecret: string,
  origin: Pick<Acting, 'address' | 'requestId'>,
  deps: ExternalLoginDeps,
  retried = false,
): Promise<ExternalOutcome> {
  const found = await deps.identities.findUserByIdentity(profile.provider, profile.subject);
  if (found !== null) {
    refuseDisabled(found.user);
    const { user, adminFromClaim } = await followAdminClaim(found, profile, origin, deps);
    await deps.identities.recordSignIn(profile.provider, profile.subject, profile.label, adminFromClaim, deps.now());
    return {
      kind: 'signed-in',
      provider: provider.id,
      session: await openSession(toUser(user), deps),
      next,
      created: false,
      addressInUse: false,
    };
  }
  if (!provider.signUpOpen) {
    throw new AppError(
      'signup_closed',
      said`No account on this store is connected to this ${provider.name} identity, and new accounts through ${provider.name} are by invitation only. If you have an account, sign in with its password and connect ${provider.name} from your account page; otherwise ask an administrator.`,
    );
  }
  const username = proposedUsername(profile);
  if (USERNAME_PATTERN.test(username)) {
    const created = await createExternalAccount(profile, username, origin, deps);
    // The same person's first sign-in, finished at the same moment elsewhere, made the account: sign in to it.
    if (created === 'identity-taken' && !retried)
      return signInWith(provider, profile, next, browserSecret, origin, deps, true);
    if (typeof created === 'object')
      return {
        kind: 'signed-in',
        provider: provider.id,
        session: await openSession(created.user, deps),
        next,
        created: true,
        addressInUse: created.addressInUse,
      };
  }
  await keepPending(profile, next, browserSecret, deps);
  return { kind: 'choose-username', provider, suggestion: username };
}
