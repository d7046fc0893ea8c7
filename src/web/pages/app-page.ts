import type { SiteStrings } from '../strings.ts';
import { provenanceCell } from './trusted-publishers-section.ts';
import type { Donation } from '../../domain/releases/release-data.ts';
import { webAddressProblem } from '../../domain/encodings.ts';
import { nextcloudRange, releaseRange, specBounds, textsIn } from '../../domain/browse/browse-catalog.ts';
import { certificateFingerprint } from '../../domain/certificates/certificate-validator.ts';
import { isStable } from '../../domain/versions/semantic-version.ts';
import type { ListedApp, ListedRelease } from '../../domain/listings/app-listing.ts';
import { compareReleasesDescending } from '../../domain/listings/app-listing.ts';
import { releaseDownloads, totalDownloads } from '../../domain/archives/download-counts.ts';
import type { AppDownloadCounts } from '../../domain/archives/download-counts.ts';
import type { Html } from '../html.ts';
import { html } from '../html.ts';
import { layout, shownLanguage } from '../layout.ts';
import { textLanguage } from '../page-texts.ts';
import type { PageContext } from '../layout.ts';
import { renderMarkdown } from '../markdown.ts';
import { notice, postForm, problemBox } from '../forms.ts';
import type { FormState } from '../forms.ts';
import type { ListedRating } from '../../domain/listings/listings.ts';
import type { PageRating } from '../../domain/browse/browse-catalog.ts';
import { ratingToStars } from '../../domain/ratings/rate-app.ts';
import { countText, languageName, rangeText, shortDate, starRating } from '../catalog-display.ts';
import type { CatalogDisplay } from './app-card.ts';
import { appIcon, ratedAndUpdated } from './app-card.ts';

/** Only web addresses are shown as links: the stored ones were checked at publishing by the same rule, this keeps it so. */
const isWebLink = (url: string): boolean => webAddressProblem(url, 'http or https') === null;

function link(url: string, label: string): Html | '' {
  return isWebLink(url) ? html`<li><a href="${url}" rel="nofollow noopener">${label}</a></li>` : '';
}

function releaseRow(
  s: SiteStrings,
  release: ListedRelease,
  languages: readonly string[],
  dateLanguage: string,
  downloads: number | null,
): Html {
  const changelogLanguage =
    [...languages, 'en'].find((language) => (release.translations[language]?.changelog ?? '') !== '') ?? 'en';
  const changelog = release.translations[changelogLanguage]?.changelog ?? '';
  const marks = [release.isNightly ? s.nightly : '', !isStable(release.version, false) ? s.preRelease : ''].filter(
    (m) => m !== '',
  );
  return html`<li class="release">
  <h3><bdi>${release.version}</bdi>${marks.map((mark) => html` <span class="mark">${mark}</span>`)}</h3>
  <dl class="facts">
    <dt>${s.released}</dt><dd><time datetime="${release.created}">${shortDate(release.created, dateLanguage)}</time></dd>
    <dt>${s.nextcloudVersions}</dt><dd>${rangeText(s, releaseRange(release))}</dd>
    <dt>${s.php}</dt><dd>${rangeText(s, specBounds(release.rawPhpVersionSpec))}</dd>
    ${release.databases.length === 0 ? '' : html`<dt>${s.databases}</dt><dd>${release.databases.map((d) => d.id).join(', ')}</dd>`}
    <dt>${s.licences}</dt><dd>${release.licenses.join(', ')}</dd>
    ${release.provenance === undefined ? '' : html`<dt>${s.builtFrom}</dt><dd>${provenanceCell(release.provenance, '')} <span class="muted">${s.verifiedBuild}</span></dd>`}
    ${downloads === null ? '' : html`<dt>${s.downloadCount}</dt><dd>${countText(downloads, dateLanguage)}</dd>`}
  </dl>
  ${changelog === '' ? '' : html`<details><summary>${s.changelog}</summary><div class="markdown"${textLanguage(changelogLanguage)}>${renderMarkdown(changelog)}</div></details>`}
</li>`;
}

/** What the app page shows besides the app: its latest versions, comments, and the visitor's rating form. */
export interface AppPageView {
  readonly latest: ReadonlyArray<{ readonly platform: string; readonly release: ListedRelease }>;
  /** How many Nextcloud releases this store lists (platforms.json): none means no direct downloads per version. */
  readonly platforms: number;
  /** The app's ratings, newest first: those with a comment in the visitor's languages (or English) are shown. */
  readonly ratings: readonly PageRating[];
  /** Null: anonymous (a link to sign in); 'maintainer': may not rate; 'blocked': stopped from rating; else the form's token and the current rating. */
  readonly rater: null | 'maintainer' | 'blocked' | { readonly formToken: string; readonly own: PageRating | null };
  /** A user stopped from rating who has a rating here: the token of the form that removes it (they may still do that). */
  readonly blockedRemoval?: string | null;
  /** A signed-in visitor: may report others' comments; the app's owner replies under them. */
  readonly moderator?: { readonly formToken: string; readonly userId: number; readonly isOwner: boolean } | null;
  readonly form: FormState & { readonly message?: string };
  /** What a report or a reply from the comments just did: said above the comments, where the page returns. */
  readonly commentsMessage?: string;
  /** The names raters are shown by (never their e-mail addresses), by user id. */
  readonly raterNames: ReadonlyMap<number, string>;
  /** Downloads per release (`downloadKey`) when this store serves the app's archives; null: they are elsewhere. */
  readonly downloads: AppDownloadCounts | null;
  /** The latest release's `<donation>` links (issue 52). */
  readonly donations?: readonly Donation[];
}

const COMMENT_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt_BR', 'ru', 'pl', 'ja', 'zh_CN'];

function commentText(rating: ListedRating, languages: readonly string[]): { language: string; text: string } | null {
  for (const language of languages) {
    const text = rating.translations[language]?.comment;
    if (text !== undefined && text !== '') return { language, text };
  }
  return null;
}

function ratingForm(app: ListedApp, view: AppPageView, context: PageContext): Html {
  const s = context.t.site;
  const { rater, form } = view;
  const here = `/apps/${encodeURIComponent(app.id)}`;
  if (rater === null)
    return html`<p><a href="/account/login?next=${encodeURIComponent(here)}">${s.signInToRate}</a></p>`;
  if (rater === 'maintainer') return html`<p>${s.maintainersCannotRate}</p>`;
  if (rater === 'blocked')
    return html`<p>${s.ratingBlocked}</p>${
      view.blockedRemoval === undefined || view.blockedRemoval === null
        ? ''
        : postForm(
            `${here}/rating/delete`,
            view.blockedRemoval,
            html`<button type="submit" class="secondary">${s.removeRating}</button>`,
          )
    }`;
  const own = rater.own;
  const ownComment = own === null ? null : commentText(own, [...context.languages, ...Object.keys(own.translations)]);
  const stars = form.values?.stars ?? (own === null ? '' : String(Math.round(ratingToStars(own.rating))));
  const language = form.values?.language ?? ownComment?.language ?? shownLanguage(context);
  const comment = form.values?.comment ?? ownComment?.text ?? '';
  const languages = [...new Set([language, ...context.availableLanguages, ...COMMENT_LANGUAGES])];
  return html`<h3 id="your-rating">${own === null ? s.rateThisApp : s.yourRating}</h3>
${form.message === undefined ? '' : notice(form.message)}${problemBox(form)}${own?.hidden === true ? html`<p class="hint">${s.ownCommentHidden}</p>` : ''}
${postForm(
  `${here}/rating`,
  rater.formToken,
  html`<fieldset class="field star-choice"><legend>${s.stars}</legend>${[5, 4, 3, 2, 1].map(
    (n) =>
      html`<label><input type="radio" name="stars" value="${n}" required${String(n) === stars ? html` checked` : ''}> <span class="stars s${n * 10}" aria-hidden="true"></span> ${s.starsChoice(n)}</label>`,
  )}</fieldset>
<p class="field"><label for="rating-comment">${s.comment}</label><textarea id="rating-comment" name="comment" rows="4" maxlength="10000">${comment}</textarea></p>
<p class="field"><label for="rating-language">${s.commentLanguage}</label>
<select id="rating-language" name="language">${languages.map((l) => html`<option value="${l}" lang="${l.replace('_', '-')}"${l === language ? html` selected` : ''}>${languageName(l)}</option>`)}</select></p>
<p><button type="submit">${s.saveRating}</button></p>`,
)}
${own === null ? '' : postForm(`${here}/rating/delete`, rater.formToken, html`<button type="submit" class="secondary">${s.removeRating}</button>`)}`;
}

/** A comment's stars, drawn, with their number for screen readers. */
function commentStars(s: SiteStrings, stars: number): Html {
  return html`<span class="stars s${stars * 10}" role="img" aria-label="${s.starsAlt(stars)}"></span>`;
}

/** Under a comment: the owner's reply, and the forms to report it (anyone signed in but its author) or to reply (the owner). */
function commentFooter(s: SiteStrings, rating: PageRating, view: AppPageView): Html | '' {
  const moderator = view.moderator ?? null;
  const base = `/apps/${encodeURIComponent(rating.app)}/ratings/${rating.id}`;
  const reply =
    rating.reply === null
      ? ''
      : html`<div class="reply"><p class="card-meta">${s.replyFromOwner}</p><div class="markdown" dir="auto">${renderMarkdown(rating.reply)}</div></div>`;
  if (moderator === null) return reply;
  const report =
    moderator.userId === rating.user.id
      ? ''
      : html`<details class="moderate"><summary>${s.reportComment}</summary>${postForm(
          `${base}/report`,
          moderator.formToken,
          html`<p class="field"><label for="report-${rating.id}">${s.reportReason}</label><textarea id="report-${rating.id}" name="reason" rows="2" maxlength="500" required minlength="3" aria-describedby="report-${rating.id}-hint"></textarea><span class="hint" id="report-${rating.id}-hint">${s.reportReasonHint}</span></p><p><button type="submit" class="secondary">${s.sendReport}</button></p>`,
        )}</details>`;
  const answer = !moderator.isOwner
    ? ''
    : html`<details class="moderate"><summary>${rating.reply === null ? s.replyToComment : s.editReply}</summary>${postForm(
        `${base}/reply`,
        moderator.formToken,
        html`<p class="field"><label for="reply-${rating.id}">${s.replyLabel}</label><textarea id="reply-${rating.id}" name="reply" rows="3" maxlength="2000">${rating.reply ?? ''}</textarea></p><p><button type="submit">${s.saveReply}</button></p>`,
      )}</details>`;
  return html`${reply}${report}${answer}`;
}

function commentList(s: SiteStrings, view: AppPageView, languages: readonly string[], dateLanguage: string): Html {
  const inLanguages = (rating: PageRating, wanted: readonly string[]) => {
    const comment = commentText(rating, wanted);
    return comment === null ? [] : [{ rating, comment }];
  };
  let comments = view.ratings.flatMap((rating) => inLanguages(rating, languages));
  let note: Html | '' = '';
  if (comments.length === 0) {
    // None in the visitor's languages: those in others rather than nothing (each marked with its language).
    comments = view.ratings.flatMap((rating) => inLanguages(rating, Object.keys(rating.translations)));
    if (comments.length === 0) return html`<p>${s.noComments}</p>`;
    note = html`<p>${s.commentsInOtherLanguages}</p>`;
  }
  return html`${note}<ul class="comments">${comments.map(({ rating, comment }) => {
    const name = view.raterNames.get(rating.user.id) ?? s.anonymousUser;
    const version = rating.appVersion === null ? '' : html` · <bdi>${s.ratedVersion(rating.appVersion)}</bdi>`;
    return html`<li class="comment" id="rating-${rating.id}"><p class="card-meta"><bdi class="commenter">${name}</bdi> · ${commentStars(s, Math.round(ratingToStars(rating.rating)))} · <time datetime="${rating.ratedAt}">${shortDate(rating.ratedAt, dateLanguage)}</time>${version}</p><div class="markdown"${textLanguage(comment.language)}>${renderMarkdown(comment.text)}</div>${commentFooter(s, rating, view)}</li>`;
  })}</ul>`;
}

/**
 * The screenshots the store has copied (issue 54): each thumbnail links to the full image, both
 * served by the store; a screenshot not copied yet (or refused) is left out, never loaded from its host.
 */
function gallery(s: SiteStrings, app: ListedApp, name: string, display: CatalogDisplay): Html | '' {
  const shots = app.screenshots.flatMap((shot, i) => {
    const copy = display.cards.shots(shot.url);
    return copy === null ? [] : [{ copy, n: i + 1 }];
  });
  if (shots.length === 0) return '';
  return html`<section aria-labelledby="shots"><h2 id="shots">${s.screenshots}</h2>
<ul class="gallery">${shots.map(({ copy, n }) => html`<li><a href="${copy.image}"><img src="${copy.thumbnail}" alt="${s.screenshotOf(name, n)}" loading="lazy"></a></li>`)}</ul></section>`;
}

/** How to install the app on a Nextcloud server: its id, the occ command, the versions, direct downloads. */
function installHelp(s: SiteStrings, app: ListedApp, view: AppPageView, dateLanguage: string): Html {
  const range = nextcloudRange(app);
  const total = view.downloads === null ? null : totalDownloads(view.downloads);
  return html`<section aria-labelledby="install"><h2 id="install">${s.install}</h2>
<p>${s.installLead}</p>${app.isDeprecated === true ? html`<p class="hint">${s.deprecatedInstall}</p>` : ''}
<pre class="command" aria-label="occ"><code>occ app:install ${app.id}</code></pre>
<dl class="facts"><dt>${s.appIdLabel}</dt><dd><code>${app.id}</code></dd>${range === null ? '' : html`<dt>${s.supportedNextcloud}</dt><dd>${rangeText(s, range)}</dd>`}${total === null ? '' : html`<dt>${s.downloadsHere}</dt><dd>${countText(total, dateLanguage)}</dd>`}</dl>
<h3>${s.downloads}</h3>${
    view.latest.length > 0
      ? html`<ul>${view.latest.map((row) => html`<li><a href="${row.release.download}" rel="nofollow noopener">${s.downloadFor(row.platform, row.release.version)}</a></li>`)}</ul>`
      : html`<p class="hint">${view.platforms === 0 ? s.noPlatformsListed : s.noReleaseForPlatforms}</p>`
  }</section>`;
}

/** A deprecated app says so first, with its successor; an orphaned one asks for maintainers (issue 52). */
function statusBanners(s: SiteStrings, app: ListedApp): Html {
  const contact = app.issueTracker !== '' ? app.issueTracker : app.discussion;
  return html`${
    app.isDeprecated === true
      ? html`<div class="notice warning" role="note"><p><strong>${s.deprecated}</strong> ${app.deprecationReason ?? ''}</p>${app.successor === undefined ? '' : html`<p>${s.useInstead} <a href="/apps/${app.successor}">${app.successor}</a></p>`}</div>`
      : ''
  }${
    app.isOrphan === true
      ? html`<div class="notice" role="note"><p><strong>${s.lookingForMaintainers}</strong> ${s.orphanLead}${contact === '' ? '' : html` <a href="${contact}" rel="nofollow noopener">${s.orphanContact}</a>`}</p></div>`
      : ''
  }`;
}

export function appPage(app: ListedApp, view: AppPageView, context: PageContext, display: CatalogDisplay): Html {
  const s = context.t.site;
  const { languages } = context;
  const { dateLanguage } = display.cards;
  const texts = textsIn(app, languages);
  const releases = [...app.releases].sort(compareReleasesDescending);
  const fingerprint = certificateFingerprint(app.certificate);
  const links = [
    link(app.website, s.website),
    link(app.issueTracker, s.issues),
    link(app.discussion, s.discussion),
    link(app.userDocs, s.userDocs),
    link(app.adminDocs, s.adminDocs),
    link(app.developerDocs, s.developerDocs),
    ...(view.donations ?? []).map((d) => link(d.url, d.title === '' ? s.donate(d.type) : d.title)),
  ];
  return layout(
    { title: texts.name, description: texts.summary },
    html`<article class="app">
<div class="app-title">${appIcon(app.id, display.cards.icons, 'large')}<div><h1${textLanguage(texts.language)}>${texts.name}</h1>
<p class="lead"${textLanguage(texts.language)}>${texts.summary}</p></div></div>
<p class="card-meta">${ratedAndUpdated(app, display.cards)}</p>
${statusBanners(s, app)}
<nav aria-label="${s.categoryLinks}"><ul class="tags">${app.categories.map((id) => html`<li><a href="/categories/${encodeURIComponent(id)}">${display.categoryName(id)}</a></li>`)}</ul></nav>
${gallery(s, app, texts.name, display)}
<section aria-labelledby="description"><h2 id="description">${s.description}</h2><div class="markdown"${textLanguage(texts.language)}>${renderMarkdown(texts.description)}</div></section>
${installHelp(s, app, view, dateLanguage)}
<section aria-labelledby="ratings"><h2 id="ratings">${s.ratings}</h2>
<dl class="facts"><dt>${s.overall}</dt><dd>${starRating(s, ratingToStars(app.ratingOverall), app.ratingNumOverall)}</dd><dt>${s.recent}</dt><dd>${starRating(s, ratingToStars(app.ratingRecent), app.ratingNumRecent)}</dd></dl>
${ratingForm(app, view, context)}
<h3 id="comments">${s.comments}</h3>${view.commentsMessage === undefined ? '' : notice(view.commentsMessage)}
${commentList(s, view, [...languages, 'en'], dateLanguage)}</section>
<section aria-labelledby="releases"><h2 id="releases">${s.releases}</h2><ul class="releases">${releases.map((r) => releaseRow(s, r, languages, dateLanguage, view.downloads === null ? null : releaseDownloads(view.downloads, r)))}</ul></section>
<section aria-labelledby="about"><h2 id="about">${s.authors}</h2>
<ul>${app.authors.map((a) => html`<li>${isWebLink(a.homepage) ? html`<a href="${a.homepage}" rel="nofollow ugc noopener">${a.name}</a>` : a.name}</li>`)}</ul>
${links.some((l) => l !== '') ? html`<h2>${s.links}</h2><ul>${links}</ul>` : ''}
${fingerprint === null ? '' : html`<h2>${s.certificate}</h2><p class="fingerprint"><code>${fingerprint}</code></p>`}</section>
</article>`,
    context,
  );
}
