import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { auditEntry, visitorActing } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import type { ExternalProfile, NewIdentity, StoredFlow } from './external-identity.ts';
import {
  bindingHash,
  externalLoginFailed as failed,
  findProvider,
  FLOW_LIFETIME_MS,
  pendingKey,
} from './external-login.ts';
import type { ExternalLoginDeps, ExternalOutcome, ExternalProvider, PendingData } from './external-login.ts';
import { checkChosenUsername, USERNAME_PATTERN, usernameTaken } from './manage-users.ts';
import { openSession } from './sessions.ts';
import type { User } from './user.ts';

/**
 * The username a first sign-in proposes: the provider's name for the person, else the address's
 * local part. Usernames are public, so an address-like name (Entra ID's UPN) gives its local part only.
 */
export function proposedUsername(profile: ExternalProfile): string {
  const local = (name: string | null | undefined): string | null =>
    name === null || name === undefined ? null : name.includes('@') ? name.slice(0, name.indexOf('@')) : name;
  for (const candidate of [local(profile.username), local(profile.email)]) {
    if (candidate !== null && USERNAME_PATTERN.test(candidate)) return candidate;
  }
  return (local(profile.username) ?? '').replace(/[^A-Za-z0-9_.+-]/g, '').slice(0, 150);
}

/** Keeps a first sign-in whose name was taken until the person chooses another (within the flow's lifetime). */
export async function keepPending(
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
export async function createExternalAccount(
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
    throw failed(said`This sign-in is over: it took longer than 10 minutes, or was finished already.`);
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
      said`This ${name} identity got an account meanwhile (another sign-in finished first, or it was connected to an account). Sign in with ${name} again to use it.`,
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
