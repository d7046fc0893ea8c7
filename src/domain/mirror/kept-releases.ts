import { releaseKey } from './mirror-policy.ts';
import { parseUpstreamListing, UnusableDocument } from './upstream-listing.ts';
import type { UpstreamApp, UpstreamListing, UpstreamRelease } from './upstream-listing.ts';

/**
 * Releases a mirror keeps after they left the upstream (docs/mirror.md, issue 49). When one leaves,
 * the upstream's own entry for it is taken from the document that last had it and kept with its
 * record; an export writes those entries as kept.json (`{apps, appapi_apps}`, the upstream's
 * format), and an import takes them as they are, so an air-gapped store lists them too.
 */

/** The upstream's entry of a kept release: its document, and the app's entry there with this one release. */
export interface KeptEntry {
  readonly document: 'apps' | 'appapi_apps';
  readonly app: Readonly<Record<string, unknown>>;
}

type Entry = Record<string, unknown>;

/** The app's certificate as a kept entry (JSON of a `KeptEntry`) has it; null without one. */
export function certificateOfEntry(entry: string | null): string | null {
  if (entry === null) return null;
  const certificate = (JSON.parse(entry) as KeptEntry).app['certificate'];
  return typeof certificate === 'string' ? certificate : null;
}
const entriesOf = (value: unknown): Entry[] =>
  Array.isArray(value) ? value.filter((e): e is Entry => typeof e === 'object' && e !== null) : [];

/**
 * The entry of each release in the upstream documents a sync read last (JSON of a `KeptEntry`),
 * by app, version and nightly; the documents are parsed only when first asked.
 */
export function entriesOfDocuments(
  documents: ReadonlyMap<string, { readonly body: string }>,
): (appId: string, version: string, nightly: boolean) => string | null {
  let index: Map<string, string> | null = null;
  const build = (): Map<string, string> => {
    const built = new Map<string, string>();
    for (const document of ['apps', 'appapi_apps'] as const) {
      let data: unknown;
      try {
        data = JSON.parse(documents.get(document)?.body ?? '[]');
      } catch {
        continue;
      }
      for (const app of entriesOf(data)) {
        for (const release of entriesOf(app['releases'])) {
          if (typeof app['id'] !== 'string' || typeof release['version'] !== 'string') continue;
          const entry: KeptEntry = { document, app: { ...app, releases: [release] } };
          built.set(releaseKey(app['id'], release['version'], release['isNightly'] === true), JSON.stringify(entry));
        }
      }
    }
    return built;
  };
  return (appId, version, nightly) => (index ??= build()).get(releaseKey(appId, version, nightly)) ?? null;
}

/** An app a sync takes, with the releases it takes (this module adds to them). */
export interface ChosenApp {
  readonly app: UpstreamApp;
  releases: readonly UpstreamRelease[];
}

/**
 * Adds the releases of a kept.json `body` to `chosen`: each as the source lists it, whatever the
 * policy (the exporting store applied it), unless the documents (`listing`) hold it or `known`
 * says this store knows it. An app the documents still have keeps their app data. Returns each
 * added release's entry by key. Throws `UnusableDocument` for a body that is not kept releases.
 */
export function takeKeptReleases(
  body: string,
  listing: UpstreamListing,
  chosen: ChosenApp[],
  known: (key: string) => boolean,
): Map<string, string> {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    throw new UnusableDocument('not JSON');
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new UnusableDocument('expected {"apps": [...], "appapi_apps": [...]}');
  const inDocuments = new Set(
    listing.apps.flatMap((app) =>
      app.releases.map((r) => releaseKey(app.app.id, r.release.version, r.release.isNightly)),
    ),
  );
  const entries = new Map<string, string>();
  for (const document of ['apps', 'appapi_apps'] as const) {
    const raw = entriesOf((data as Entry)[document]);
    for (const app of parseUpstreamListing(raw, document === 'appapi_apps').apps) {
      const id = app.app.id;
      const rawApp = raw.find((entry) => entry['id'] === id) ?? {};
      const adding = app.releases.filter((r) => {
        const key = releaseKey(id, r.release.version, r.release.isNightly);
        return !inDocuments.has(key) && !known(key);
      });
      if (adding.length === 0) continue;
      for (const r of adding) {
        const release = entriesOf(rawApp['releases']).find(
          (entry) => entry['version'] === r.release.version && (entry['isNightly'] === true) === r.release.isNightly,
        );
        const entry: KeptEntry = { document, app: { ...rawApp, releases: [release] } };
        entries.set(releaseKey(id, r.release.version, r.release.isNightly), JSON.stringify(entry));
      }
      const taken = chosen.find((c) => c.app.app.id === id);
      // The app as the documents have it now, when they still do; else as the source kept it.
      const current = listing.apps.find((a) => a.app.id === id) ?? { ...app, releases: [] };
      if (taken !== undefined) taken.releases = [...taken.releases, ...adding];
      else chosen.push({ app: { ...current, releases: [...current.releases, ...adding] }, releases: adding });
    }
  }
  return entries;
}
