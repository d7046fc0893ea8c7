import type { FeedRelease } from '../domain/feeds/release-feed.ts';
import { renderMarkdown } from './markdown.ts';

/**
 * The release feeds as Atom (RFC 4287) and RSS 2.0 documents. Every text comes from app archives
 * and is hostile: it is escaped for XML, and characters XML 1.0 forbids (control characters, lone
 * surrogates) are dropped; a changelog is rendered by the pages' Markdown renderer (no raw HTML,
 * safe links only) and then escaped as the entry's HTML content.
 */

export interface FeedChannel {
  readonly title: string;
  readonly description: string;
  /** The site's home page (absolute). */
  readonly siteUrl: string;
  /** This feed's own URL (absolute). */
  readonly selfUrl: string;
  readonly language: string;
}

/** What XML 1.0 does not allow in a document, whatever the escaping (tab, LF and CR it does). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function xmlText(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

const appUrl = (channel: FeedChannel, release: FeedRelease): string =>
  `${channel.siteUrl}apps/${encodeURIComponent(release.appId)}`;
const entryId = (channel: FeedChannel, release: FeedRelease): string =>
  `${appUrl(channel, release)}#release-${release.version}${release.nightly ? '-nightly' : ''}`;
const entryTitle = (release: FeedRelease): string =>
  `${release.appName} ${release.version}${release.nightly ? ' (nightly)' : ''}`;
const changelogHtml = (release: FeedRelease): string =>
  release.changelog.trim() === '' ? '<p>No changelog.</p>' : renderMarkdown(release.changelog).text;
/** The feed's last change: its newest entry's, or the epoch for an empty feed (a fixed value: ETags stay). */
const lastUpdated = (releases: readonly FeedRelease[]): string =>
  releases
    .map((r) => r.updated)
    .sort()
    .at(-1) ?? '1970-01-01T00:00:00.000Z';
const rfc3339 = (timestamp: string): string => new Date(timestamp).toISOString();
const rfc822 = (timestamp: string): string => new Date(timestamp).toUTCString();

export function atomFeed(channel: FeedChannel, releases: readonly FeedRelease[]): string {
  const entries = releases.map(
    (r) => `<entry>
<title>${xmlText(entryTitle(r))}</title>
<link rel="alternate" type="text/html" href="${xmlText(appUrl(channel, r))}"/>
<id>${xmlText(entryId(channel, r))}</id>
<published>${rfc3339(r.created)}</published>
<updated>${rfc3339(r.updated)}</updated>
<author><name>${xmlText(r.author === '' ? r.appName : r.author)}</name></author>
<content type="html">${xmlText(changelogHtml(r))}</content>
</entry>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="${xmlText(channel.language)}">
<title>${xmlText(channel.title)}</title>
<subtitle>${xmlText(channel.description)}</subtitle>
<link rel="alternate" type="text/html" href="${xmlText(channel.siteUrl)}"/>
<link rel="self" type="application/atom+xml" href="${xmlText(channel.selfUrl)}"/>
<id>${xmlText(channel.selfUrl)}</id>
<updated>${rfc3339(lastUpdated(releases))}</updated>
${entries.join('\n')}
</feed>
`;
}

export function rssFeed(channel: FeedChannel, releases: readonly FeedRelease[]): string {
  const items = releases.map(
    (r) => `<item>
<title>${xmlText(entryTitle(r))}</title>
<link>${xmlText(appUrl(channel, r))}</link>
<guid isPermaLink="false">${xmlText(entryId(channel, r))}</guid>
<pubDate>${rfc822(r.created)}</pubDate>
<description>${xmlText(changelogHtml(r))}</description>
</item>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>${xmlText(channel.title)}</title>
<link>${xmlText(channel.siteUrl)}</link>
<description>${xmlText(channel.description)}</description>
<language>${xmlText(channel.language)}</language>
<lastBuildDate>${rfc822(lastUpdated(releases))}</lastBuildDate>
<atom:link href="${xmlText(channel.selfUrl)}" rel="self" type="application/rss+xml"/>
${items.join('\n')}
</channel>
</rss>
`;
}
