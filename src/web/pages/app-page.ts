import { textsIn } from '../../domain/catalog/browse-catalog.ts';
import { certificateFingerprint } from '../../domain/certificates/certificate-validator.ts';
import { isStable } from '../../domain/versions/semantic-version.ts';
import type { ListedApp, ListedRelease } from '../../domain/listings/app-listing.ts';
import { compareReleasesDescending } from '../../domain/listings/app-listing.ts';
import type { Html } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import { renderMarkdown } from '../markdown.ts';
import { STRINGS } from '../strings.ts';

/** Only http(s) links are shown as links: the stored ones were checked at publishing, this keeps it so. */
const isWebLink = (url: string): boolean => /^https?:\/\//i.test(url);

function link(url: string, label: string): Html | '' {
  return isWebLink(url) ? html`<li><a href="${url}" rel="nofollow noopener">${label}</a></li>` : '';
}

function releaseRow(release: ListedRelease, languages: readonly string[]): Html {
  const changelog = [...languages, 'en'].map((language) => release.translations[language]?.changelog).find((text) => text !== undefined && text !== '') ?? '';
  const marks = [release.isNightly ? STRINGS.nightly : '', !isStable(release.version, false) ? STRINGS.preRelease : ''].filter((m) => m !== '');
  return html`<li class="release">
  <h3>${release.version} ${marks.map((mark) => html`<span class="mark">${mark}</span>`)}</h3>
  <dl class="facts">
    <dt>${STRINGS.nextcloudVersions}</dt><dd>${release.rawPlatformVersionSpec || STRINGS.any}</dd>
    <dt>${STRINGS.php}</dt><dd>${release.rawPhpVersionSpec || STRINGS.any}</dd>
    ${release.databases.length === 0 ? '' : html`<dt>${STRINGS.databases}</dt><dd>${release.databases.map((d) => d.id).join(', ')}</dd>`}
    <dt>${STRINGS.licences}</dt><dd>${release.licenses.join(', ')}</dd>
  </dl>
  ${changelog === '' ? '' : html`<details><summary>${STRINGS.changelog}</summary><div class="markdown">${renderMarkdown(changelog)}</div></details>`}
</li>`;
}

export function appPage(app: ListedApp, context: PageContext): Html {
  const { languages } = context;
  const texts = textsIn(app, languages);
  const releases = [...app.releases].sort(compareReleasesDescending);
  const fingerprint = certificateFingerprint(app.certificate);
  const links = [
    link(app.website, STRINGS.website),
    link(app.issueTracker, STRINGS.issues),
    link(app.discussion, STRINGS.discussion),
    link(app.userDocs, STRINGS.userDocs),
    link(app.adminDocs, STRINGS.adminDocs),
    link(app.developerDocs, STRINGS.developerDocs),
  ];
  return layout(
    { title: texts.name, description: texts.summary },
    html`<article class="app" lang="${texts.language}">
<h1>${texts.name}</h1>
<p class="lead">${texts.summary}</p>
<p class="card-meta">${app.categories.join(' · ')}</p>
${app.screenshots.length === 0 ? '' : html`<section aria-labelledby="shots"><h2 id="shots">${STRINGS.screenshots}</h2>
<ul class="gallery">${app.screenshots.map((shot, i) => html`<li><a href="${shot.url}" rel="nofollow noopener"><img src="${shot.smallThumbnail || shot.url}" alt="${STRINGS.screenshotOf(texts.name, i + 1)}" loading="lazy" referrerpolicy="no-referrer"></a></li>`)}</ul></section>`}
<section aria-labelledby="description"><h2 id="description">${STRINGS.description}</h2><div class="markdown">${renderMarkdown(texts.description)}</div></section>
<section aria-labelledby="ratings"><h2 id="ratings">${STRINGS.ratings}</h2>
<dl class="facts"><dt>${STRINGS.overall}</dt><dd>${STRINGS.rating(app.ratingOverall, app.ratingNumOverall)}</dd><dt>${STRINGS.recent}</dt><dd>${STRINGS.rating(app.ratingRecent, app.ratingNumRecent)}</dd></dl></section>
<section aria-labelledby="releases"><h2 id="releases">${STRINGS.releases}</h2><ul class="releases">${releases.map((r) => releaseRow(r, languages))}</ul></section>
<section aria-labelledby="about"><h2 id="about">${STRINGS.authors}</h2>
<ul>${app.authors.map((a) => html`<li>${isWebLink(a.homepage) ? html`<a href="${a.homepage}" rel="nofollow noopener">${a.name}</a>` : a.name}</li>`)}</ul>
${links.some((l) => l !== '') ? html`<h2>${STRINGS.links}</h2><ul>${links}</ul>` : ''}
${fingerprint === null ? '' : html`<h2>${STRINGS.certificate}</h2><p class="fingerprint"><code>${fingerprint}</code></p>`}</section>
</article>`,
    context,
  );
}
