import type { ModeratedRating, ModerationOverview } from '../../domain/ratings/moderation.ts';
import { ratingToStars } from '../../domain/ratings/rate-app.ts';
import { notice, postForm, problemBox } from '../forms.ts';
import { html } from '../html.ts';
import type { Html } from '../html.ts';
import type { PageContext } from '../layout.ts';
import { renderMarkdown } from '../markdown.ts';
import { textLanguage } from '../page-texts.ts';
import type { AdminState } from './admin-pages.ts';
import { adminLayout } from './admin-pages.ts';
import { when } from './developer-pages.ts';

/** A rating's comment as the queue shows it: who on which app, the stars and version, each language's text. */
function commentBlock(context: PageContext, rating: ModeratedRating): Html {
  const { admin: A, site: s } = context.t;
  const stars = Math.round(ratingToStars(rating.rating));
  return html`<p class="card-meta"><a href="/apps/${encodeURIComponent(rating.appId)}#rating-${rating.id}"><bdi>${A.ratedBy(rating.username, rating.appId)}</bdi></a> · <span class="stars s${stars * 10}" role="img" aria-label="${s.starsAlt(stars)}"></span> · ${when(new Date(rating.ratedAt))}${rating.appVersion === null ? '' : html` · <bdi>${s.ratedVersion(rating.appVersion)}</bdi>`}</p>
${Object.entries(rating.comments).map(([language, comment]) => html`<div class="markdown"${textLanguage(language)}>${renderMarkdown(comment)}</div>`)}`;
}

/** Removing a rating cannot be undone: its button is behind a second click. */
function removal(context: PageContext, token: string, rating: ModeratedRating): Html {
  const A = context.t.admin;
  return html`<details class="moderate"><summary>${A.removeRating}</summary>${action(token, rating, 'remove', A.removeForGood, 'danger')}</details>`;
}

/** A button that posts one moderation action on a rating. */
function action(token: string, rating: ModeratedRating, name: string, label: string, style = 'secondary'): Html {
  return postForm(
    `/admin/reports/${rating.id}/${name}`,
    token,
    html`<button type="submit" class="${style}">${label}</button>`,
    'inline',
  );
}

/** `/admin/reports` (issue 54): the reported comments, the hidden ones, and the users stopped from rating. */
export function adminReportsPage(
  overview: ModerationOverview,
  token: string,
  state: AdminState,
  context: PageContext,
): Html {
  const { admin: A } = context.t;
  const blocked = new Set(overview.blocked.map((user) => user.id));
  return adminLayout(
    'reports',
    A.reports,
    html`<p>${A.reportsLead}</p>${state.message === undefined ? '' : notice(state.message)}${problemBox(state.state ?? {})}
<section aria-labelledby="queue"><h2 id="queue">${overview.queue.length === 0 ? A.noReports : A.reportsWaiting(overview.queue.length)}</h2>
<ul class="plain moderation">${overview.queue.map(
      ({ rating, reports }) => html`<li class="card">${commentBlock(context, rating)}
<h3 class="visually-hidden">${A.reportedBy}</h3><ul>${reports.map((report) => html`<li><bdi>${report.reporter}</bdi> (${when(new Date(report.at))}): <span dir="auto">${report.reason}</span></li>`)}</ul>
<div class="actions">${action(token, rating, 'hide', A.hideComment, 'danger')} ${action(token, rating, 'dismiss', A.dismissReports)} ${removal(context, token, rating)} ${blocked.has(rating.userId) ? '' : postForm(`/admin/raters/${rating.userId}/block`, token, html`<button type="submit" class="secondary">${A.blockRater(rating.username)}</button>`, 'inline')}</div></li>`,
    )}</ul></section>
<section aria-labelledby="hidden"><h2 id="hidden">${A.hiddenTitle}</h2>
${overview.hidden.length === 0 ? html`<p>${A.noHidden}</p>` : html`<ul class="plain moderation">${overview.hidden.map((rating) => html`<li class="card">${commentBlock(context, rating)}<div class="actions">${action(token, rating, 'restore', A.restoreComment)} ${removal(context, token, rating)}</div></li>`)}</ul>`}</section>
<section aria-labelledby="blocked"><h2 id="blocked">${A.blockedTitle}</h2>
${overview.blocked.length === 0 ? html`<p>${A.noBlocked}</p>` : html`<ul class="plain">${overview.blocked.map((user) => html`<li><bdi>${user.username}</bdi> (${when(new Date(user.since))}) ${postForm(`/admin/raters/${user.id}/allow`, token, html`<button type="submit" class="secondary">${A.allowRater(user.username)}</button>`, 'inline')}</li>`)}</ul>`}</section>`,
    context,
  );
}
