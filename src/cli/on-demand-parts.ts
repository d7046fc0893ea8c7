import { loadXmlParser } from '../domain/releases/xml-document.ts';

/**
 * Loads every part of the bundle that the store loads on first use: libxml2, and `packages`, the
 * packages left out of the bundle (scripts/build.mjs, LOADED_LATER), each required as the bundle
 * requires it. A build's check (`npm run build -- --verify`): a part that cannot load fails
 * there, not on a user's first upload, mail or login. Returns how many parts loaded.
 */
export async function loadOnDemandParts(packages: readonly string[]): Promise<number> {
  const parts = await Promise.all([loadXmlParser(), ...packages.map((name) => import(name) as Promise<unknown>)]);
  return parts.length;
}
