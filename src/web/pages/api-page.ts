import type { Html } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import { STRINGS } from '../strings.ts';

/** The parts of an OpenAPI 3.1 document the page shows. */
export interface OpenApiOperation {
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly parameters?: ReadonlyArray<{ readonly name: string; readonly in: string; readonly required?: boolean; readonly description?: string }>;
  readonly requestBody?: { readonly content?: Readonly<Record<string, unknown>> };
  readonly responses?: Readonly<Record<string, { readonly description?: string }>>;
}

export interface OpenApiDocument {
  readonly info?: { readonly title?: string; readonly description?: string };
  readonly paths?: Readonly<Record<string, Readonly<Record<string, OpenApiOperation>>>>;
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];

function operationBlock(method: string, path: string, operation: OpenApiOperation): Html {
  const id = `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-');
  const parameters = operation.parameters ?? [];
  const bodyTypes = Object.keys(operation.requestBody?.content ?? {});
  const responses = Object.entries(operation.responses ?? {});
  return html`<section class="operation" aria-labelledby="${id}">
<h3 id="${id}"><span class="method">${method.toUpperCase()}</span> <code>${path}</code></h3>
${operation.summary === undefined ? '' : html`<p>${operation.summary}</p>`}
${parameters.length === 0 ? '' : html`<h4>${STRINGS.parameters}</h4><ul>${parameters.map((p) => html`<li><code>${p.name}</code> (${p.in}${p.required === true ? ', required' : ''})${p.description === undefined ? '' : html`: ${p.description}`}</li>`)}</ul>`}
${bodyTypes.length === 0 ? '' : html`<h4>${STRINGS.requestBody}</h4><p>${bodyTypes.join(', ')}</p>`}
${responses.length === 0 ? '' : html`<h4>${STRINGS.responses}</h4><dl class="facts">${responses.map(([status, response]) => html`<dt>${status}</dt><dd>${response.description ?? ''}</dd>`)}</dl>`}
</section>`;
}

/**
 * The API page (`/api/`, `/api/v1/`): the OpenAPI document, readable, rendered on the server from
 * the same document `/api/v1/openapi.json` serves: grouped by tag, each operation with its
 * parameters, body types and responses. Nothing is loaded from elsewhere, and no script runs.
 */
export function apiPage(document: OpenApiDocument, context: PageContext): Html {
  const groups = new Map<string, Html[]>();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = operations[method];
      if (operation === undefined) continue;
      const tag = operation.tags?.[0] ?? 'other';
      const list = groups.get(tag) ?? [];
      list.push(operationBlock(method, path, operation));
      groups.set(tag, list);
    }
  }
  return layout(
    { title: STRINGS.apiTitle },
    html`<h1>${document.info?.title ?? STRINGS.apiTitle}</h1>
<p class="lead">${STRINGS.apiLead} <a href="/api/v1/openapi.json">${STRINGS.openApiDocument}</a></p>
${document.info?.description === undefined ? '' : html`<p>${document.info.description}</p>`}
<nav aria-label="${STRINGS.apiTitle}"><ul class="tags">${[...groups.keys()].map((tag) => html`<li><a href="#tag-${tag}">${tag}</a></li>`)}</ul></nav>
${[...groups].map(([tag, blocks]) => html`<section aria-labelledby="tag-${tag}"><h2 id="tag-${tag}">${tag}</h2>${blocks}</section>`)}`,
    context,
  );
}
