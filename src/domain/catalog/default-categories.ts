/** The category ids of the Nextcloud app store, for tools that run without a store's own list. */
export const DEFAULT_CATEGORY_IDS: readonly string[] = [
  'ai',
  'customization',
  'dashboard',
  'files',
  'games',
  'integration',
  'monitoring',
  'multimedia',
  'office',
  'organization',
  'search',
  'security',
  'social',
  'tools',
  'workflow',
];
