import { said } from '../../i18n/said.ts';
import { AppError } from '../../errors.ts';
import { auditEntry, userActing } from '../audit/audit.ts';
import type { Acting } from '../audit/audit.ts';
import type { ExternalProfile, LinkedIdentity, NewIdentity } from './external-identity.ts';
import { externalLoginFailed as failed, refuseDisabled } from './external-login.ts';
import type { ExternalLoginDeps, ExternalOutcome, ExternalProvider } from './external-login.ts';
import { toUser } from './user.ts';
import type { User } from './user.ts';

/** Connects the identity to the account that asked, never to one that merely has the same address. */
export async function link(
  userId: number | null,
  provider: ExternalProvider,
  profile: ExternalProfile,
  origin: Pick<Acting, 'address' | 'requestId'>,
  deps: ExternalLoginDeps,
): Promise<ExternalOutcome> {
  const record = userId === null ? null : await deps.store.findUserById(userId);
  if (record === null) throw failed(said`The account that asked to connect this identity no longer exists.`);
  refuseDisabled(record);
  const user = toUser(record);
  const found = await deps.identities.findUserByIdentity(profile.provider, profile.subject);
  if (found !== null && found.user.id === user.id) return { kind: 'linked', user, provider, already: true };
  if (found !== null) {
    throw new AppError(
      'conflict',
      said`This ${provider.name} identity (${profile.label}) is connected to another account of this store already. Sign in with ${provider.name} to use that account, or disconnect it there first.`,
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
      said`Your account has another ${provider.name} identity connected: disconnect it first, then connect this one.`,
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
  if (outcome === 'not-linked') throw new AppError('conflict', said`No ${name} identity is connected to your account.`);
  if (outcome === 'last-way-in') {
    throw new AppError(
      'conflict',
      said`${name} is the only way into your account: set a password (or connect another provider) first, then disconnect ${name}.`,
    );
  }
}
