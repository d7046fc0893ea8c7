/** Two categories in two languages each, and three platform releases (one unsupported). */
export const CATEGORIES = [
  { id: 'tools', translations: { en: { name: 'Tools', description: '' }, fr: { name: 'Outils', description: '' } } },
  {
    id: 'games',
    translations: { en: { name: 'Games', description: 'Fun and games' }, de: { name: 'Spiele', description: 'Spaß' } },
  },
];

export const PLATFORMS = [
  { version: '30.0.1', hasRelease: true, isSupported: true },
  { version: '9.0.0', hasRelease: true, isSupported: false },
  { version: '31.0.0', hasRelease: false, isSupported: true },
];
