import type { MirrorPolicy } from '../../src/domain/mirror/mirror-policy.ts';

/** The policy of an unconfigured mirror (config-mirror.ts' defaults). */
export const DEFAULT_MIRROR_POLICY_FOR_TESTS: MirrorPolicy = {
  releases: 'latest',
  onlyApps: null,
  excludedApps: null,
  minPlatform: null,
  nightlies: false,
  exApps: true,
  keep: [],
  dropRemoved: false,
};
