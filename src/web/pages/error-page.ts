import type { Html } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import { pageTexts } from '../page-texts.ts';
import type { PageContext } from '../layout.ts';
import { problemParagraphs } from '../forms.ts';
import type { FormProblem } from '../forms.ts';

/**
 * A page for a browser instead of a JSON error, with the request id to quote; a 500 shows no
 * detail (a 502 or 503 says what is unavailable). The detail is the refusal as the page's
 * language says it (`web/refusal-texts.ts`), or the English detail of a server fault.
 */
export function errorPage(
  status: number,
  detail: string | FormProblem,
  requestId: string,
  context?: PageContext,
): Html {
  const s = (context?.t ?? pageTexts('en')).site;
  const title =
    status === 404
      ? s.notFoundTitle
      : status === 403
        ? s.forbiddenTitle
        : status >= 500
          ? s.errorTitle
          : s.requestErrorTitle;
  const text =
    status === 404
      ? html`<p>${s.notFoundText}</p>`
      : status === 500
        ? html`<p>${s.errorText}</p>`
        : typeof detail === 'string'
          ? html`<p>${detail}</p>`
          : problemParagraphs(detail, detail.detail);
  return layout(
    { title },
    html`<h1>${title}</h1>${text}<p class="card-meta">${status} · ${requestId}</p><p><a href="/">${s.backHome}</a></p>`,
    context,
  );
}
