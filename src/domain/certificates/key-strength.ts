import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import type { KeyObject } from 'node:crypto';

/**
 * How strong an app's signing key must be (issue 49): RSA of at least 2,048 bits with the public
 * exponent 65537, at issuance (the store's authority) and at registration. A 1,024-bit modulus
 * is within reach of a well-funded attacker, and exponent 3 invites the signature forgeries of
 * careless verifiers. RSA-PSS keys are refused at issuance: release signatures are RSA PKCS #1
 * v1.5 with SHA-512 (what Nextcloud's servers verify), which a PSS-only key must not make.
 */
export const MIN_RSA_BITS = 2048;
export const RSA_EXPONENT = 65537n;

/** What makes a key by the store's recipe: shown with every refusal. */
export const STRONG_KEY_COMMAND =
  'openssl req -new -newkey rsa:4096 -nodes -keyout APP_ID.key -out APP_ID.csr -subj "/CN=APP_ID"';

/** Why this public key may not sign apps, or null when it may. `use` says what the key came in. */
export function weakKeyProblem(key: KeyObject, usedIn: 'request' | 'certificate'): Said | null {
  const use = usedIn === 'request' ? said`request` : said`certificate`;
  const type = key.asymmetricKeyType;
  if (type === 'rsa-pss') {
    return said`The ${use}'s key is an RSA-PSS key; app signatures are RSA PKCS #1 v1.5 with SHA-512, which it cannot make. Make an ordinary RSA key: ${STRONG_KEY_COMMAND}`;
  }
  if (type !== 'rsa')
    return type === undefined
      ? said`The ${use}'s key is not RSA; app signatures need an RSA key: ${STRONG_KEY_COMMAND}`
      : said`The ${use}'s key is ${type}; app signatures need an RSA key: ${STRONG_KEY_COMMAND}`;
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < MIN_RSA_BITS)
    return said`The ${use}'s RSA key has ${bits} bits; at least ${MIN_RSA_BITS} are required (4,096 recommended): ${STRONG_KEY_COMMAND}`;
  const exponent = key.asymmetricKeyDetails?.publicExponent;
  if (exponent !== RSA_EXPONENT) {
    return said`The ${use}'s RSA key has the public exponent ${String(exponent ?? '?')}; only 65537 is accepted: ${STRONG_KEY_COMMAND}`;
  }
  return null;
}
