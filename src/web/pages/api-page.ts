import type { SiteStrings } from '../strings.ts';
import type { PageTexts } from '../page-texts.ts';
import { githubWorkflow, gitlabJob } from '../ci-workflows.ts';
import type { Html } from '../html.ts';
import { html } from '../html.ts';
import { layout } from '../layout.ts';
import type { PageContext } from '../layout.ts';
import { codeSpans } from '../forms.ts';

/** The parts of a JSON Schema (as the OpenAPI document holds it) the page shows. */
export interface JsonSchema {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly format?: string;
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly additionalProperties?: boolean | JsonSchema;
}

interface MediaTypes {
  readonly content?: Readonly<Record<string, { readonly schema?: JsonSchema }>>;
}

/** The parts of an OpenAPI 3.1 operation the page shows. */
export interface OpenApiOperation {
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly parameters?: ReadonlyArray<{
    readonly name: string;
    readonly in: string;
    readonly required?: boolean;
    readonly description?: string;
    readonly schema?: JsonSchema;
  }>;
  readonly requestBody?: MediaTypes & { readonly required?: boolean };
  readonly responses?: Readonly<Record<string, MediaTypes & { readonly description?: string }>>;
  readonly security?: ReadonlyArray<Readonly<Record<string, readonly string[]>>>;
}

export interface OpenApiDocument {
  readonly info?: { readonly title?: string; readonly description?: string };
  readonly paths?: Readonly<Record<string, Readonly<Record<string, OpenApiOperation>>>>;
  readonly components?: {
    readonly schemas?: Readonly<Record<string, JsonSchema>>;
    readonly securitySchemes?: Readonly<
      Record<
        string,
        {
          readonly type: string;
          readonly scheme?: string;
          readonly name?: string;
          readonly in?: string;
          readonly description?: string;
        }
      >
    >;
  };
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'];

/**
 * The groups of operations (the OpenAPI tags), in the order a reader needs them, each with a
 * title and what it is for; a tag not named here comes after them, under its own name.
 */
const GROUPS = [
  ['listings', 'apiGroupListings', 'apiGroupListingsLead'],
  ['accounts', 'apiGroupAccounts', 'apiGroupAccountsLead'],
  ['apps', 'apiGroupApps', 'apiGroupAppsLead'],
  ['releases', 'apiGroupReleases', 'apiGroupReleasesLead'],
  ['ratings', 'apiGroupRatings', 'apiGroupRatingsLead'],
  ['archives', 'apiGroupArchives', 'apiGroupArchivesLead'],
  ['feeds', 'apiGroupFeeds', 'apiGroupFeedsLead'],
  ['system', 'apiGroupSystem', 'apiGroupSystemLead'],
] as const satisfies ReadonlyArray<readonly [tag: string, title: keyof SiteStrings, lead: keyof SiteStrings]>;

/** What each response status says when its schema gives no description of its own. */
const STATUS_TEXT: Readonly<Record<string, keyof SiteStrings>> = {
  '200': 'status200',
  '201': 'status201',
  '204': 'status204',
  '206': 'status206',
  '303': 'status303',
  '304': 'status304',
};

/** A response's name: its own description unless the generator's placeholder, else the status's meaning. */
function responseName(s: SiteStrings, status: string, description: string | undefined): string {
  const known = STATUS_TEXT[status];
  return description === undefined || description === '' || description === 'Default Response'
    ? known === undefined
      ? ''
      : String(s[known])
    : description;
}
/** How deep nested objects are listed: deeper ones are named, not expanded (the page stays small). */
const MAX_DEPTH = 2;

/** The schema a `$ref` names (`#/components/schemas/App`), or the schema itself. */
function resolve(schema: JsonSchema, document: OpenApiDocument): JsonSchema & { readonly refName?: string } {
  const name = schema.$ref?.replace('#/components/schemas/', '');
  const target = name === undefined ? undefined : document.components?.schemas?.[name];
  return target === undefined ? schema : { ...target, refName: name };
}

const asList = (type: JsonSchema['type']): string[] =>
  type === undefined ? [] : typeof type === 'string' ? [type] : [...type];

/** "string, 1–2048 characters", "integer, 0 to 5", "one of a, b", "array of App". */
function typeText(raw: JsonSchema, document: OpenApiDocument): string {
  const schema = resolve(raw, document);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants !== undefined) return variants.map((variant) => typeText(variant, document)).join(' or ');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined) return `one of ${schema.enum.map((value) => JSON.stringify(value)).join(', ')}`;
  const types = asList(schema.type);
  if (types.includes('array')) {
    const items = schema.items === undefined ? 'values' : typeText(schema.items, document);
    const count = schema.maxItems === undefined ? '' : `, at most ${schema.maxItems}`;
    return `array of ${items}${count}`;
  }
  const limits: string[] = [];
  if (schema.minLength !== undefined || schema.maxLength !== undefined)
    limits.push(`${schema.minLength ?? 0}–${schema.maxLength ?? '∞'} characters`);
  if (schema.minimum !== undefined || schema.maximum !== undefined)
    limits.push(`${schema.minimum ?? '−∞'} to ${schema.maximum ?? '∞'}`);
  if (schema.format !== undefined) limits.push(schema.format);
  if (schema.pattern !== undefined) limits.push(`matching ${schema.pattern}`);
  const base = schema.refName ?? (types.join(' or ') || 'any');
  return limits.length === 0 ? base : `${base}, ${limits.join(', ')}`;
}

/** The object's fields: name, type and limits, required or not, description; nested objects to MAX_DEPTH. */
function fieldList(s: SiteStrings, raw: JsonSchema, document: OpenApiDocument, depth = 0): Html | '' {
  const schema = resolve(raw, document);
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0) {
    if (schema.items !== undefined && depth < MAX_DEPTH) return fieldList(s, schema.items, document, depth);
    return '';
  }
  const required = new Set(schema.required ?? []);
  return html`<ul class="fields">${properties.map(([name, property]) => {
    const target = resolve(property, document);
    const nested = depth + 1 < MAX_DEPTH ? fieldList(s, target.items ?? target, document, depth + 1) : '';
    return html`<li><code>${name}</code> <span class="type">${typeText(property, document)}</span>${required.has(name) ? html` <strong>${s.required}</strong>` : ''}${property.description === undefined ? '' : html`: ${codeSpans(property.description)}`}${nested}</li>`;
  })}</ul>`;
}

/** A placeholder value for each field of a request body, for the curl example. */
function exampleValue(raw: JsonSchema, name: string, document: OpenApiDocument): unknown {
  const schema = resolve(raw, document);
  if (schema.enum !== undefined) return schema.enum[0];
  const types = asList(schema.type);
  if (types.includes('boolean')) return false;
  if (types.includes('integer') || types.includes('number')) return schema.minimum ?? 1;
  if (types.includes('array')) return [];
  if (types.includes('object'))
    return Object.fromEntries(
      Object.entries(schema.properties ?? {})
        .filter(([key]) => (schema.required ?? []).includes(key))
        .map(([key, value]) => [key, exampleValue(value, key, document)]),
    );
  return name.toUpperCase();
}

const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** One curl command that calls the operation, with placeholders in capitals. */
function curlExample(
  method: string,
  path: string,
  operation: OpenApiOperation,
  schemes: readonly string[],
  origin: string,
  document: OpenApiDocument,
): string {
  const url =
    origin + path.replace(/\{(\w+)\}/g, (_m, name: string) => name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase());
  const parts = ['curl'];
  if (method === 'head') parts.push('--head');
  else if (method !== 'get') parts.push('-X', method.toUpperCase());
  if (schemes.includes('token')) parts.push('-H', shellQuote('Authorization: Token TOKEN'));
  else if (schemes.includes('basic')) parts.push('-u', 'USERNAME:PASSWORD');
  const body = operation.requestBody?.content?.['application/json']?.schema;
  if (body !== undefined)
    parts.push(
      '-H',
      shellQuote('Content-Type: application/json'),
      '-d',
      shellQuote(JSON.stringify(exampleValue(body, 'body', document))),
    );
  parts.push(shellQuote(url));
  return parts.join(' ');
}

function operationBlock(
  s: SiteStrings,
  method: string,
  path: string,
  operation: OpenApiOperation,
  origin: string,
  document: OpenApiDocument,
): Html {
  const id = `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-');
  const parameters = operation.parameters ?? [];
  const body = operation.requestBody?.content ?? {};
  const responses = Object.entries(operation.responses ?? {});
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  return html`<section class="operation" aria-labelledby="${id}">
<h3 id="${id}"><span class="method">${method.toUpperCase()}</span> <code>${path}</code></h3>
${operation.summary === undefined ? '' : html`<p>${codeSpans(operation.summary)}</p>`}
${operation.description === undefined || operation.description === operation.summary ? '' : html`<p>${codeSpans(operation.description)}</p>`}
${schemes.length === 0 ? '' : html`<p>${s.authenticateWith} ${schemes.map((scheme, i) => html`${i === 0 ? '' : ` ${s.or} `}<a href="#auth-${scheme}">${scheme === 'basic' ? 'Basic' : 'Token'}</a>`)}</p>`}
${parameters.length === 0 ? '' : html`<h4>${s.parameters}</h4><ul class="fields">${parameters.map((p) => html`<li><code>${p.name}</code> <span class="type">${p.in}${p.schema === undefined ? '' : `, ${typeText(p.schema, document)}`}</span>${p.required === true ? html` <strong>${s.required}</strong>` : ''}${p.description === undefined ? '' : html`: ${codeSpans(p.description)}`}</li>`)}</ul>`}
${Object.entries(body).map(([type, media]) => html`<h4>${s.requestBody} <span class="type">(${type})</span></h4>${media.schema === undefined ? '' : fieldList(s, media.schema, document)}`)}
${
  responses.length === 0
    ? ''
    : html`<h4>${s.responses}</h4><dl class="facts">${responses.map(([status, response]) => {
        const schema = status.startsWith('2') ? response.content?.['application/json']?.schema : undefined;
        const fields = schema === undefined ? '' : fieldList(s, schema, document);
        return html`<dt>${status}</dt><dd>${codeSpans(responseName(s, status, response.description))}${schema === undefined ? '' : html` <span class="type">(${typeText(schema, document)})</span>`}${fields === '' ? '' : html`<details><summary>${s.responseFields}</summary>${fields}</details>`}</dd>`;
      })}</dl>`
}
<h4>${s.example}</h4>
<pre class="command"><code>${curlExample(method, path, operation, schemes, origin, document)}</code></pre>
</section>`;
}

function authentication(s: SiteStrings, document: OpenApiDocument): Html | '' {
  const schemes = Object.entries(document.components?.securitySchemes ?? {});
  if (schemes.length === 0) return '';
  return html`<section aria-labelledby="authentication"><h2 id="authentication">${s.authentication}</h2>
<p>${s.authenticationLead}</p>
<dl class="facts">${schemes.map(([name, scheme]) => html`<dt id="auth-${name}">${name === 'basic' ? 'Basic' : 'Token'}</dt><dd>${codeSpans(scheme.description ?? '')}</dd>`)}</dl></section>`;
}

/** How CI publishes with no stored token (issue 53): the steps, and the workflow files for this store. */
function trustedPublishing(t: PageTexts, origin: string): Html {
  const s = t.site;
  const code = (inner: Html): Html => html`<code>${inner}</code>`;
  const tokens = (inner: Html): Html => html`<a href="/account/tokens">${inner}</a>`;
  return html`<section aria-labelledby="trusted-publishing"><h2 id="trusted-publishing">${s.tpTitle}</h2>
<p>${t.tagged('site.tpLead', { code })}</p>
<ol>
<li>${t.tagged('site.tpStep1', { myapps: (inner) => html`<a href="/developer">${inner}</a>`, em: (inner) => html`<em>${inner}</em>` })}</li>
<li>${t.tagged('site.tpStep2', { script: (inner) => html`<a href="/static/publish-release.sh">${inner}</a>`, code })}</li>
<li>${t.tagged('site.tpStep3', { code })}</li>
<li>${t.tagged('site.tpStep4', { tokens, code })}</li>
</ol>
<h3>GitHub Actions</h3>
<pre class="command"><code>${githubWorkflow(origin, 'APP_ID')}</code></pre>
<h3>GitLab CI</h3>
<pre class="command"><code>${gitlabJob(origin, 'APP_ID')}</code></pre>
<p>${t.tagged('site.tpOtherScripts', { tokens, code })}</p></section>`;
}

/**
 * The API page (`/api/`, `/api/v1/`): the OpenAPI document, readable, rendered on the server from
 * the same document `/api/v1/openapi.json` serves: how to authenticate, then each operation by
 * tag with its parameters, its request body's fields (types and limits), its responses with the
 * shape of what succeeds, and a curl command. Nothing is loaded from elsewhere, and no script runs.
 */
export function apiPage(
  document: OpenApiDocument,
  context: PageContext,
  origin: string,
  store: { readonly mirror: boolean; readonly keepsArchives: boolean },
): Html {
  const s = context.t.site;
  const found = new Map<string, Html[]>();
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = operations[method];
      if (operation === undefined) continue;
      const tag = operation.tags?.[0] ?? 'other';
      // A store that keeps no archives and mirrors nothing serves none: their routes answer 404, and are left out.
      if (tag === 'archives' && !store.mirror && !store.keepsArchives) continue;
      const list = found.get(tag) ?? [];
      list.push(operationBlock(s, method, path, operation, origin, document));
      found.set(tag, list);
    }
  }
  const known = GROUPS.filter(([tag]) => found.has(tag));
  const others = [...found.keys()].filter((tag) => !GROUPS.some(([known]) => known === tag)).sort();
  const groups = [
    ...known.map(([tag, title, lead]) => ({ tag, title: s[title], lead: s[lead], blocks: found.get(tag) ?? [] })),
    ...others.map((tag) => ({ tag, title: tag, lead: '', blocks: found.get(tag) ?? [] })),
  ];
  return layout(
    { title: s.apiTitle },
    html`<h1>${document.info?.title ?? s.apiTitle}</h1>
<p class="lead">${context.t.tagged('site.apiLead', { doc: (inner) => html`<a href="/api/v1/openapi.json">${inner}</a>` })}</p>
<nav aria-label="${s.apiTitle}"><ul class="tags"><li><a href="#authentication">${s.authentication}</a></li><li><a href="#trusted-publishing">${s.tpTitle}</a></li>${groups.map(({ tag, title }) => html`<li><a href="#tag-${tag}">${title}</a></li>`)}</ul></nav>
${authentication(s, document)}
${trustedPublishing(context.t, origin)}
${groups.map(({ tag, title, lead, blocks }) => html`<section aria-labelledby="tag-${tag}"><h2 id="tag-${tag}">${title}</h2>${lead === '' ? '' : html`<p>${lead}</p>`}${blocks}</section>`)}`,
    context,
  );
}
