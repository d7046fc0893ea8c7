import { randomBytes } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { auditEntry, userActing, visitorActing } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import { RATE_LIMITS } from '../rate-limit.ts';
import type { SelfServiceDeps } from './account-links.ts';
import type {
  ExternalIdentityStore,
  ExternalProfile,
  LinkedIdentity,
  NewIdentity,
  StoredFlow,
} from './external-identity.ts';
import { ACCOUNT_DISABLED } from './authenticate.ts';
import { checkChosenUsername, USERNAME_PATTERN, usernameTaken } from './manage-users.ts';
import { openSession } from './sessions.ts';
import type { NewSession } from './sessions.ts';
import { hmacHex } from './token-codec.ts';
import { toUser } from './user.ts';
import type { User, UserRecord } from './user.ts';

/** What the three random values of a sign-in protect: the callback's origin, the ID token's freshness, the code's holder. */
export interface FlowChecks {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
}

/**
 * A configured provider: an OpenID Provider, or GitHub. The connector does the protocol (the
 * library's authorization URL, code exchange and ID token checks); the rules here decide what an
 * identity it vouches for may do on this store.
 */
export interface ExternalProvider {
  /** The id in the configuration and in the callback's path: lowercase letters, digits, '-'. */
  readonly id: string;
  /** "Sign in with {name}". */
  readonly name: string;
  /** False: only identities already linked to an account sign in (no new accounts). */
  readonly signUpOpen: boolean;
  /** Null: any address; else the person's verified address must be in one of these domains. */
  readonly emailDomains: readonly string[] | null;
  /** Where to send the browser (PKCE's challenge is made from the verifier here). */
  authorizationUrl(checks: FlowChecks, redirectUri: string): Promise<URL>;
  /**
   * The profile the callback proves, after the code exchange and every check of the answer;
   * `external_login_failed` when the answer cannot be trusted, `identity_provider_unavailable`
   * when the provider cannot be reached.
   */
  complete(callbackUrl: URL, checks: FlowChecks): Promise<ExternalProfile>;
}

export interface ExternalLoginDeps extends SelfServiceDeps {
  readonly identities: ExternalIdentityStore;
  /** By id, in the order of the sign-in page's buttons. */
  readonly providers: ReadonlyMap<string, ExternalProvider>;
}

/** A sign-in must come back within this: the provider's own pages included. */
export const FLOW_LIFETIME_MS = 10 * 60_000;

type FlowData = { nonce: string; codeVerifier: string; next: string };
type PendingData = { profile: ExternalProfile; next: string };

export type ExternalOutcome =
  /** `created`: a new account (its page welcomes it); `addressInUse`: the provider's address is another account's, so this one has none. */
  | {
      readonly kind: 'signed-in';
      readonly provider: string;
      readonly session: NewSession;
      readonly next: string;
      readonly created: boolean;
      readonly addressInUse: boolean;
    }
  /** A first sign-in whose name is taken or unusable here: the person picks one (`chooseUsername`). */
  | { readonly kind: 'choose-username'; readonly provider: ExternalProvider; readonly suggestion: string }
  | { readonly kind: 'linked'; readonly user: User; readonly provider: ExternalProvider; readonly already: boolean };

const random = (): string => randomBytes(32).toString('base64url');
const flowKey = (deps: Pick<ExternalLoginDeps, 'keys'>, state: string): string =>
  hmacHex(deps.keys.session, `external-flow ${state}`);
const pendingKey = (deps: Pick<ExternalLoginDeps, 'keys'>, browser: string): string =>
  hmacHex(deps.keys.session, `external-pending ${browser}`);
const bindingHash = (deps: Pick<ExternalLoginDeps, 'keys'>, browser: string): string =>
  hmacHex(deps.keys.session, `external-browser ${browser}`);

/** The callback every provider is registered with: `{public URL}/account/external/{id}/callback`. */
export function callbackUrl(deps: Pick<ExternalLoginDeps, 'publicUrl'>, providerId: string): string {
  return `${deps.publicUrl}/account/external/${providerId}/callback`;
}

export function findProvider(providerId: string, deps: Pick<ExternalLoginDeps, 'providers'>): ExternalProvider {
  const provider = deps.providers.get(providerId);
  if (provider === undefined)
    throw new AppError('not_found', `This store has no external login named '${providerId.slice(0, 60)}'.`);
  return provider;
}

/** Control and direction-override characters, which no name needs (and PostgreSQL's text refuses NUL). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const clean = (value: string, max: number): string => value.replace(UNPRINTABLE, '').trim().slice(0, max);

/**
 * The profile as the store keeps it, whatever the provider sent: printable text within the
 * columns' sizes, and an address only when it is one (one `@`, no spaces).
 */
export function cleanProfile(profile: ExternalProfile): ExternalProfile {
  const email = profile.email === null ? null : clean(profile.email, 254);
  const username = profile.username === null ? null : clean(profile.username, 254);
  return {
    ...profile,
    subject: clean(profile.subject, 255),
    username: username === '' ? null : username,
    email: email !== null && /^[^\s@]+@[^\s@]+$/.test(email) ? email : null,
    firstName: clean(profile.firstName, 150),
    lastName: clean(profile.lastName, 150),
    label: clean(profile.label, 200) || clean(profile.subject, 200),
  };
}

/** An external login that cannot go on: what happened, and that nothing changed. */
export const externalLoginFailed = (detail: string): AppError =>
  new AppError('external_login_failed', `${detail} Nothing was created or changed: start again from the sign-in page.`);
const failed = externalLoginFailed;

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
    throw new AppError('not_authenticated', 'Sign in first: an identity is connected from your account page.');
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
    throw failed(`The answer from ${provider.name} carries no state, so it cannot be matched to a sign-in begun here.`);
  const key = flowKey(deps, state);
  const bound =
    browserSecret === undefined || browserSecret === ''
      ? null
      : await deps.identities.takeFlow(key, bindingHash(deps, browserSecret));
  const flow = bound ?? (await deps.identities.findFlow(key));
  if (flow === null || flow.purpose === 'choose-username') {
    throw failed(
      `The answer from ${provider.name} does not match a sign-in under way: its state is unknown, or was used already (each answer works once).`,
    );
  }
  if (bound === null)
    throw failed(
      `The sign-in with ${provider.name} was begun in another browser (or this browser's cookies were cleared meanwhile).`,
    );
  if (flow.provider !== provider.id)
    throw failed(
      `This answer came back to ${provider.name}'s address, but the sign-in was begun with another provider.`,
    );
  if (flow.expiresAt.getTime() <= deps.now().getTime())
    throw failed(`The sign-in took longer than ${FLOW_LIFETIME_MS / 60_000} minutes.`);
  return flow;
}

/** The provider's own refusal (the person cancelled, or the provider would not sign them in). */
function refuseProviderError(provider: ExternalProvider, callback: URLSearchParams): void {
  const error = callback.get('error');
  if (error === null) return;
  const description = callback.get('error_description');
  const said = `${error.slice(0, 100)}${description === null || description === '' ? '' : `: ${description.slice(0, 300)}`}`;
  throw failed(`${provider.name} did not sign you in (it answered "${said}").`);
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
        ? `Signing in with ${provider.name} needs a verified e-mail address at ${allowed}, and ${provider.name} gave none.`
        : `Signing in with ${provider.name} is open to addresses at ${allowed} only; ${provider.name} gave an address at ${domain}.`,
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
    throw failed(`This browser is no longer signed in to the account that asked to connect ${provider.name}.`);
  }
  const data = JSON.parse(flow.data) as FlowData;
  const profile = cleanProfile(
    await provider.complete(new URL(`${callbackUrl(deps, provider.id)}?${callback.toString()}`), {
      state: state ?? '',
      nonce: data.nonce,
      codeVerifier: data.codeVerifier,
    }),
  );
  if (profile.subject === '') throw failed(`${provider.name} did not say who signed in (no subject).`);
  refuseOutsideDomains(provider, profile);
  if (flow.purpose === 'link') return link(flow.userId, provider, profile, origin, deps);
  return signInWith(provider, profile, data.next, browserSecret ?? '', origin, deps);
}

function refuseDisabled(user: UserRecord): void {
  if (!user.isActive) throw new AppError('forbidden', ACCOUNT_DISABLED);
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

/**
 * The username a first sign-in proposes: the provider's name for the person, else the address's
 * local part. Usernames are public, so an address-like name (Entra ID's UPN) gives its local part only.
 */
function proposedUsername(profile: ExternalProfile): string {
  const local = (name: string | null | undefined): string | null =>
    name === null || name === undefined ? null : name.includes('@') ? name.slice(0, name.indexOf('@')) : name;
  for (const candidate of [local(profile.username), local(profile.email)]) {
    if (candidate !== null && USERNAME_PATTERN.test(candidate)) return candidate;
  }
  return (local(profile.username) ?? '').replace(/[^A-Za-z0-9_.+-]/g, '').slice(0, 150);
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
      `No account on this store is connected to this ${provider.name} identity, and new accounts through ${provider.name} are by invitation only. If you have an account, sign in with its password and connect ${provider.name} from your account page; otherwise ask an administrator.`,
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

/** Keeps a first sign-in whose name was taken until the person chooses another (within the flow's lifetime). */
async function keepPending(
  profile: ExternalProfile,
  next: string,
  browserSecret: string,
  deps: ExternalLoginDeps,
  expiresAt?: Date,
): Promise<void> {
  const now = deps.now();
  const data: PendingData = { profile, next };
  await deps.identities.insertFlow(
    pendingKey(deps, browserSecret),
    {
      provider: profile.provider,
      purpose: 'choose-username',
      userId: null,
      bindingHash: bindingHash(deps, browserSecret),
      data: JSON.stringify(data),
      expiresAt: expiresAt ?? new Date(now.getTime() + FLOW_LIFETIME_MS),
    },
    now,
  );
}

/**
 * A password-less account for the identity (rule 1: it signs in through the provider, and uses a
 * token on the API). It takes the provider's verified address unless another account confirmed
 * that address already: the address is then left out (never used to join the two accounts).
 */
async function createExternalAccount(
  profile: ExternalProfile,
  username: string,
  origin: Pick<Acting, 'address' | 'requestId'>,
  deps: ExternalLoginDeps,
): Promise<{ user: User; addressInUse: boolean } | 'name-taken' | 'identity-taken'> {
  const owners = profile.email === null ? [] : await deps.store.findUsersByEmail(profile.email);
  const addressInUse = owners.some((owner) => owner.emailVerified);
  const email = addressInUse ? null : profile.email;
  const admin = profile.admin === true;
  const identity: NewIdentity = {
    provider: profile.provider,
    subject: profile.subject,
    label: profile.label,
    adminFromClaim: admin,
  };
  const user = await deps.identities.createUserWithIdentity(
    {
      username,
      email,
      firstName: profile.firstName,
      lastName: profile.lastName,
      isAdmin: admin,
      passwordHash: null,
      emailVerified: email !== null,
    },
    identity,
    deps.now(),
    auditEntry(visitorActing(origin.address, origin.requestId), 'user.created', {
      subjectUser: username,
      details: { admin, password: false, provider: profile.provider },
    }),
  );
  return typeof user === 'string' ? user : { user, addressInUse };
}

/** What the page that asks for a username shows: the pending sign-in of this browser, or null when there is none (any more). */
export async function pendingSignUp(
  browserSecret: string | undefined,
  deps: ExternalLoginDeps,
): Promise<{ provider: ExternalProvider; suggestion: string } | null> {
  if (browserSecret === undefined || browserSecret === '') return null;
  const flow = await readPending(browserSecret, deps, false);
  if (flow === null) return null;
  const { profile } = JSON.parse(flow.data) as PendingData;
  return { provider: findProvider(profile.provider, deps), suggestion: proposedUsername(profile) };
}

async function readPending(browserSecret: string, deps: ExternalLoginDeps, take: boolean): Promise<StoredFlow | null> {
  const key = pendingKey(deps, browserSecret);
  const flow = take ? await deps.identities.takeFlow(key) : await deps.identities.findFlow(key);
  if (flow === null || flow.purpose !== 'choose-username' || flow.expiresAt.getTime() <= deps.now().getTime())
    return null;
  return flow;
}

/** Ends a first sign-in with the username the person chose; a taken or invalid one keeps it waiting. */
export async function chooseUsername(
  browserSecret: string | undefined,
  chosen: string,
  origin: Pick<Acting, 'address' | 'requestId'>,
  deps: ExternalLoginDeps,
): Promise<Extract<ExternalOutcome, { kind: 'signed-in' }>> {
  const flow =
    browserSecret === undefined || browserSecret === '' ? null : await readPending(browserSecret, deps, true);
  if (flow === null || browserSecret === undefined)
    throw failed('This sign-in is over: it took longer than 10 minutes, or was finished already.');
  const { profile, next } = JSON.parse(flow.data) as PendingData;
  const username = chosen.trim();
  const keep = () => keepPending(profile, next, browserSecret, deps, flow.expiresAt);
  try {
    checkChosenUsername(username);
  } catch (error) {
    await keep();
    throw error;
  }
  const created = await createExternalAccount(profile, username, origin, deps);
  if (created === 'identity-taken') {
    const name = deps.providers.get(profile.provider)?.name ?? profile.provider;
    throw new AppError(
      'conflict',
      `This ${name} identity got an account meanwhile (another sign-in finished first, or it was connected to an account). Sign in with ${name} again to use it.`,
    );
  }
  if (created === 'name-taken') {
    await keep();
    throw usernameTaken(username);
  }
  return {
    kind: 'signed-in',
    provider: profile.provider,
    session: await openSession(created.user, deps),
    next,
    created: true,
    addressInUse: created.addressInUse,
  };
}

/** Connects the identity to the account that asked, never to one that merely has the same address. */
async function link(
  userId: number | null,
  provider: ExternalProvider,
  profile: ExternalProfile,
  origin: Pick<Acting, 'address' | 'requestId'>,
  deps: ExternalLoginDeps,
): Promise<ExternalOutcome> {
  const record = userId === null ? null : await deps.store.findUserById(userId);
  if (record === null) throw failed('The account that asked to connect this identity no longer exists.');
  refuseDisabled(record);
  const user = toUser(record);
  const found = await deps.identities.findUserByIdentity(profile.provider, profile.subject);
  if (found !== null && found.user.id === user.id) return { kind: 'linked', user, provider, already: true };
  if (found !== null) {
    throw new AppError(
      'conflict',
      `This ${provider.name} identity (${profile.label}) is connected to another account of this store already. Sign in with ${provider.name} to use that account, or disconnect it there first.`,
    );
  }
  const identity: NewIdentity = {
    provider: profile.provider,
    subject: profile.subject,
    label: profile.label,
    adminFromClaim: false,
  };
  const acting = userActing(user, origin.address, origin.requestId);
  const outcome = await deps.identities.linkIdentity(
    user.id,
    identity,
    deps.now(),
    auditEntry(acting, 'user.external_linked', {
      subjectUser: user.username,
      details: { provider: profile.provider, as: profile.label },
    }),
  );
  if (outcome === 'taken')
    throw new AppError(
      'conflict',
      `Your account has another ${provider.name} identity connected: disconnect it first, then connect this one.`,
    );
  return { kind: 'linked', user, provider, already: false };
}

/** The identities connected to the account, for its page. */
export function linkedIdentities(
  user: Pick<User, 'id'>,
  deps: Pick<ExternalLoginDeps, 'identities'>,
): Promise<LinkedIdentity[]> {
  return deps.identities.identitiesOf(user.id);
}

/** Disconnects the provider's identity from the account; refused when it is the account's last way to sign in. */
export async function unlinkExternal(
  user: User,
  providerId: string,
  acting: Acting,
  deps: ExternalLoginDeps,
): Promise<void> {
  const name = deps.providers.get(providerId)?.name ?? providerId;
  const usable = [...deps.providers.keys()];
  const { outcome, adminFromClaim } = await deps.identities.unlinkIdentity(
    user.id,
    providerId,
    usable,
    deps.now(),
    auditEntry(acting, 'user.external_unlinked', { subjectUser: user.username, details: { provider: providerId } }),
  );
  // Rights the identity's claim granted go with it: nothing else would ever take them back.
  if (outcome === 'unlinked' && adminFromClaim && user.isAdmin) {
    await deps.store.setAdmin(
      user.id,
      false,
      deps.now(),
      auditEntry(acting, 'user.admin_revoked', {
        subjectUser: user.username,
        details: { provider: providerId, by: 'admin claim', reason: 'disconnected' },
      }),
    );
  }
  if (outcome === 'not-linked') throw new AppError('conflict', `No ${name} identity is connected to your account.`);
  if (outcome === 'last-way-in') {
    throw new AppError(
      'conflict',
      `${name} is the only way into your account: set a password (or connect another provider) first, then disconnect ${name}.`,
    );
  }
}
