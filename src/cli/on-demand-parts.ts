import { loadXmlParser } from '../domain/releases/xml-document.ts';

/**
 * Loads every part of the bundle that the store loads on first use (packages imported when first
 * needed, libxml2 from node_modules), as a build's check (`npm run build -- --verify`): a part
 * that cannot load as it was bundled fails there, not on a user's first upload, mail or login.
 * Returns how many parts loaded.
 */
export async function loadOnDemandParts(): Promise<number> {
  const parts = await Promise.all([
    loadXmlParser(),
    import('undici'),
    import('@simplewebauthn/server'),
    import('nodemailer'),
    import('@aws-sdk/client-s3'),
    import('@zxcvbn-ts/core'),
    import('@zxcvbn-ts/language-common'),
    import('@zxcvbn-ts/language-en'),
  ]);
  return parts.length;
}
