import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type * as WebAuthn from '@simplewebauthn/server';
import type { PasskeyCeremonies } from '../domain/accounts/two-factor.ts';
import { AppError } from '../errors.ts';

let library: Promise<typeof WebAuthn> | undefined;
/** @simplewebauthn/server, loaded with the first passkey ceremony, not before the port opens (issue 55). */
const webauthn = () => (library ??= import('@simplewebauthn/server'));

/** The library's verification, its failure (a throw or `verified: false`) as a 401 that says what did not work. */
async function verifying<T extends { verified: boolean }>(
  what: Said,
  work: () => Promise<T>,
): Promise<T & { verified: true }> {
  let result: T;
  try {
    result = await work();
  } catch (error) {
    throw new AppError(
      'not_authenticated',
      said`${what}: ${error instanceof Error ? error.message : 'it did not verify'}.`,
    );
  }
  if (!result.verified) throw new AppError('not_authenticated', said`${what}: it did not verify.`);
  return result as T & { verified: true };
}

/**
 * Passkeys through @simplewebauthn/server (issue 53): the relying party is the store's public
 * address (its host name is the RP ID, its origin the expected origin). No attestation is asked
 * for: the store trusts the passkey's public key, not a vendor's certificate. `siteName` is asked
 * for when a passkey is registered.
 */
export function webauthnCeremonies(publicUrl: string, siteName: () => string): PasskeyCeremonies {
  const url = new URL(publicUrl);
  const rpID = url.hostname;
  const origin = url.origin;
  const transports = (list: readonly string[]) => list as AuthenticatorTransportFuture[];
  return {
    async registrationOptions(user, existing) {
      const { generateRegistrationOptions } = await webauthn();
      const options = await generateRegistrationOptions({
        rpName: siteName(),
        rpID,
        userName: user.username,
        userID: new TextEncoder().encode(`user:${user.id}`),
        attestationType: 'none',
        excludeCredentials: existing.map((passkey) => ({
          id: passkey.credentialId,
          transports: transports(passkey.transports),
        })),
        authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
      });
      return { options, challenge: options.challenge };
    },

    async verifyRegistration(response, challenge) {
      const { verifyRegistrationResponse } = await webauthn();
      const verified = await verifying(said`The passkey could not be added`, () =>
        verifyRegistrationResponse({
          response: response as RegistrationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: false,
        }),
      );
      const { credential } = verified.registrationInfo;
      return {
        credentialId: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? [],
      };
    },

    async authenticationOptions(credentials) {
      const { generateAuthenticationOptions } = await webauthn();
      const options = await generateAuthenticationOptions({
        rpID,
        allowCredentials: credentials.map((passkey) => ({
          id: passkey.credentialId,
          transports: transports(passkey.transports),
        })),
        userVerification: 'preferred',
      });
      return { options, challenge: options.challenge };
    },

    credentialIdOf(response) {
      const id = (response as { id?: unknown } | null)?.id;
      return typeof id === 'string' ? id : null;
    },

    async verifyAuthentication(response, challenge, passkey) {
      const { verifyAuthenticationResponse } = await webauthn();
      const verified = await verifying(said`The passkey did not sign in`, () =>
        verifyAuthenticationResponse({
          response: response as AuthenticationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          credential: {
            id: passkey.credentialId,
            publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
            counter: passkey.counter,
            transports: transports(passkey.transports),
          },
          requireUserVerification: false,
        }),
      );
      return { counter: verified.authenticationInfo.newCounter };
    },
  };
}
