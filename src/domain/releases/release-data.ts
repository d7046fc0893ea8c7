import type { AppIcon } from './app-icon.ts';
import type { ExternalApp } from './external-app.ts';

/** What a release archive says about its app and itself, as the listings will show it. */

export interface AppTranslation {
  readonly name: string;
  readonly summary: string;
  readonly description: string;
}

export interface Author {
  readonly name: string;
  readonly mail: string;
  readonly homepage: string;
}

export interface Screenshot {
  readonly url: string;
  readonly smallThumbnail: string;
}

/** App-level data: replaced only when the release is the app's latest (contract §6 step 6). */
export interface AppData {
  readonly id: string;
  readonly categories: readonly string[];
  readonly authors: readonly Author[];
  readonly userDocs: string;
  readonly adminDocs: string;
  readonly developerDocs: string;
  readonly issueTracker: string;
  readonly website: string;
  readonly discussion: string;
  readonly screenshots: readonly Screenshot[];
  readonly translations: Readonly<Record<string, AppTranslation>>;
}

export interface Dependency {
  readonly id: string;
  readonly versionSpec: string;
  readonly rawVersionSpec: string;
}

export interface ReleaseData {
  readonly version: string;
  readonly phpExtensions: readonly Dependency[];
  readonly databases: readonly Dependency[];
  readonly shellCommands: readonly string[];
  readonly phpVersionSpec: string;
  readonly rawPhpVersionSpec: string;
  readonly platformVersionSpec: string;
  readonly rawPlatformVersionSpec: string;
  readonly minIntSize: number;
  readonly isNightly: boolean;
  readonly licenses: readonly string[];
  readonly translations: Readonly<Record<string, { readonly changelog: string }>>;
  /** An ExApp's container and AppAPI data (`<external-app>`); null for an ordinary app's release. */
  readonly externalApp: ExternalApp | null;
}

export interface ReleaseCandidate {
  readonly app: AppData;
  readonly release: ReleaseData;
  /** The icon from the archive, rebuilt safe (app-icon.ts); shown when this release is the app's latest. */
  readonly icon: AppIcon | null;
  /** Why an icon in the archive was left out (the release is published all the same). */
  readonly iconProblem?: string;
  /** `<donation>` links (issue 52), shown on the app page when this release is the app's latest. */
  readonly donations?: readonly Donation[];
}

/** A donation link of info.xml: `<donation type="paypal|stripe|other" title="…">https://…</donation>`. */
export interface Donation {
  readonly url: string;
  readonly type: 'paypal' | 'stripe' | 'other';
  readonly title: string;
}

/** The manifest part: everything info.xml says (the changelog and nightly flag come from elsewhere). */
export interface Manifest {
  readonly app: AppData;
  readonly donations: readonly Donation[];
  readonly release: Omit<ReleaseData, 'isNightly' | 'translations'>;
}
