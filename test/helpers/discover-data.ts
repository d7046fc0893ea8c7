/** Every shape of discover.json: a post with one media, one with media per language, a showcase, a carousel (apps news and mail must exist). */
export const FULL_DOCUMENT: unknown[] = [
  {
    type: 'post',
    id: 'welcome-2026',
    order: 1,
    headline: { en: 'Welcome', de: 'Willkommen' },
    text: { en: 'What is new in the store.', pt_br: 'O que há de novo.' },
    link: 'https://example.org/news',
    date: '2026-11-01T00:00:00Z',
    expiryDate: '2026-12-31T23:59:59+01:00',
    media: {
      content: { src: 'https://example.org/welcome.png', alt: 'A welcome banner', link: 'https://example.org/' },
      alignment: 'start',
    },
  },
  {
    type: 'post',
    id: 'video',
    media: [
      { language: 'en', content: { src: 'https://example.org/intro-en.mp4', alt: 'Introduction' } },
      { language: 'de', content: { src: 'https://example.org/intro-de.mp4', alt: 'Einführung' }, alignment: 'center' },
    ],
  },
  {
    type: 'showcase',
    id: 'mail-apps',
    headline: { en: 'Mail and news' },
    link: 'app://mail',
    content: [
      { type: 'app', appId: 'mail' },
      { type: 'app', appId: 'news' },
      { type: 'post', headline: { en: 'And more' } },
    ],
  },
  {
    type: 'carousel',
    id: 'tips',
    content: [
      { type: 'post', text: { en: 'Tip one' } },
      { type: 'post', text: { en: 'Tip two' }, media: { content: { src: 'https://example.org/tip.png', alt: 'Tip' } } },
    ],
  },
];
