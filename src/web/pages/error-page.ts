import type { Html } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import { STRINGS } from '../strings.ts';

/** A page for a browser instead of a JSON error, with the request id to quote; a 500 shows no detail (a 502 or 503 says what is unavailable). */
export function errorPage(status: number, detail: string, requestId: string, context?: PageContext): Html {
  const title =
    status === 404
      ? STRINGS.notFoundTitle
      : status === 403
        ? STRINGS.forbiddenTitle
        : status >= 500
          ? STRINGS.errorTitle
          : STRINGS.requestErrorTitle;
  const text = status === 404 ? STRINGS.notFoundText : status === 500 ? STRINGS.errorText : detail;
  return layout(
    { title },
    html`<h1>${title}</h1><p>${text}</p><p class="card-meta">${status} · ${requestId}</p><p><a href="/">${STRINGS.backHome}</a></p>`,
    context,
  );
}
