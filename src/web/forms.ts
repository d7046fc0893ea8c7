import { CSRF_FIELD } from '../domain/accounts/form-token.ts';
import type { ErrorCode, FieldErrors } from '../errors.ts';
import type { Html, HtmlValue } from './html.ts';
import { html } from './html.ts';

/** What a form shows again after a refusal: the values sent (never passwords) and what was wrong. */
export interface FormState {
  readonly values?: Readonly<Record<string, string>>;
  readonly problem?: FormProblem;
}

/** What was wrong, as a page shows it (`web/refusal-texts.ts` makes it from a refusal). */
export interface FormProblem {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly fields?: FieldErrors;
  /** On a page in another language than English: the fields whose messages stayed English. */
  readonly englishFields?: readonly string[];
  /** On a page in another language than English, when the detail stayed English: a translated lead, and whether the English detail follows. */
  readonly summary?: { readonly text: string; readonly detailFollows: boolean };
}

export interface FieldOptions {
  readonly name: string;
  readonly label: string;
  readonly type?: 'text' | 'email' | 'password' | 'search';
  readonly autocomplete?: string;
  readonly hint?: string;
  readonly required?: boolean;
  readonly maxLength?: number;
  /** Tells apart fields of one name in several forms of a page. */
  readonly form?: string;
}

/** A labelled input, with its hint and its error tied to it for screen readers. */
export function field(options: FieldOptions, state: FormState = {}): Html {
  const { id, attributes, after } = described(options, state);
  const type = options.type ?? 'text';
  const value = type === 'password' ? '' : (state.values?.[options.name] ?? '');
  return html`<p class="field">
<label for="${id}">${options.label}</label>
<input id="${id}" name="${options.name}" type="${type}"${type === 'password' ? '' : html` dir="auto"`} value="${value}"${options.autocomplete === undefined ? '' : html` autocomplete="${options.autocomplete}"`}${options.required === false ? '' : html` required`} maxlength="${options.maxLength ?? 1024}"${attributes}>
${after}
</p>`;
}

/** The id, hint and error of a field, tied together for screen readers. */
function described(
  options: Pick<FieldOptions, 'name' | 'hint' | 'form'>,
  state: FormState,
): { id: string; attributes: Html; after: Html } {
  const id = `${options.form ?? 'field'}-${options.name}`;
  const errors = state.problem?.fields?.[options.name] ?? [];
  const ids = [options.hint === undefined ? '' : `${id}-hint`, errors.length === 0 ? '' : `${id}-error`]
    .filter((d) => d !== '')
    .join(' ');
  return {
    id,
    attributes: html`${ids === '' ? '' : html` aria-describedby="${ids}"`}${errors.length === 0 ? '' : html` aria-invalid="true"`}`,
    after: html`${options.hint === undefined ? '' : html`<span class="hint" id="${id}-hint">${codeSpans(options.hint)}</span>`}
${errors.length === 0 ? '' : html`<span class="field-error" id="${id}-error"${state.problem?.englishFields?.includes(options.name) === true ? html` lang="en" dir="ltr"` : ''}>${spoken(errors.join('; '))}</span>`}`,
  };
}

/** A labelled text area (certificates, signatures, JSON), with its hint and error. */
export function textArea(
  options: Omit<FieldOptions, 'type' | 'autocomplete'> & { readonly rows?: number },
  state: FormState = {},
): Html {
  const { id, attributes, after } = described(options, state);
  return html`<p class="field">
<label for="${id}">${options.label}</label>
<textarea id="${id}" name="${options.name}" rows="${options.rows ?? 8}" spellcheck="false"${options.required === false ? '' : html` required`} maxlength="${options.maxLength ?? 16384}"${attributes}>${state.values?.[options.name] ?? ''}</textarea>
${after}
</p>`;
}

/** A labelled checkbox; checked when the state's value says so (or `checked` when there is no state). */
export function checkbox(
  options: Pick<FieldOptions, 'name' | 'label' | 'hint' | 'form'> & { readonly checked?: boolean },
  state: FormState = {},
): Html {
  const { id, attributes, after } = described(options, state);
  const sent = state.values?.[options.name];
  const checked = state.values === undefined ? options.checked === true : sent !== undefined && sent !== '';
  return html`<p class="field checkbox"><input id="${id}" name="${options.name}" type="checkbox" value="on"${checked ? html` checked` : ''}${attributes}> <label for="${id}">${options.label}</label>
${after}</p>`;
}

/** The hidden CSRF field every form carries. */
function csrfField(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

/** A form that posts to this site, with its CSRF token. */
export function postForm(action: string, token: string, content: HtmlValue, extraClass = ''): Html {
  return html`<form class="form${extraClass === '' ? '' : ` ${extraClass}`}" action="${action}" method="post">${csrfField(token)}${content}</form>`;
}

/**
 * A form that posts a file (multipart/form-data), read by the store as it streams: the CSRF token
 * is its first field (the server checks it before reading the rest).
 */
export function uploadForm(action: string, token: string, content: HtmlValue): Html {
  return html`<form class="form" action="${action}" method="post" enctype="multipart/form-data">${csrfField(token)}${content}</form>`;
}

/** A labelled file input, with its hint and error. */
export function fileField(
  options: Pick<FieldOptions, 'name' | 'label' | 'hint' | 'form'> & { readonly accept?: string },
  state: FormState = {},
): Html {
  const { id, attributes, after } = described(options, state);
  return html`<p class="field">
<label for="${id}">${options.label}</label>
<input id="${id}" name="${options.name}" type="file"${options.accept === undefined ? '' : html` accept="${options.accept}"`} required${attributes}>
${after}
</p>`;
}

/** The refusal at the top of a form, announced to screen readers. */
export function problemBox(state: FormState): Html | '' {
  const { problem } = state;
  if (problem === undefined) return '';
  return html`<div class="notice error" role="alert">${problemParagraphs(problem)}</div>`;
}

/**
 * What a refusal says, as paragraphs: its detail; or, where the detail stayed English on a page in
 * another language, the translated lead and then the detail marked as English (when it adds to it).
 */
export function problemParagraphs(
  problem: FormProblem,
  detail: HtmlValue = spoken(problem.detail, Object.keys(problem.fields ?? {})),
): Html {
  if (problem.summary === undefined) return html`<p>${detail}</p>`;
  return html`<p>${problem.summary.text}</p>${problem.summary.detailFollows ? html`<p lang="en" dir="ltr">${detail}</p>` : ''}`;
}

/**
 * A refusal as a page says it to a person: without the API's "Invalid request body: download:"
 * (the field is marked where it is on the form), and with `code` shown as code, not backticks.
 */
export function spoken(detail: string, fields: readonly string[] = []): Html {
  let text = detail.replace(/^Invalid (request body|query|path|request): /, '');
  for (const name of fields) {
    if (text.startsWith(`${name}: `)) {
      text = text.slice(name.length + 2);
      break;
    }
  }
  if (text !== '') text = text.charAt(0).toUpperCase() + text.slice(1);
  return codeSpans(text);
}

/** Text whose `backticked` parts are shown as code (the rest as text, escaped); a lone backtick stays one. */
export function codeSpans(text: string): Html {
  const parts = text.split('`');
  return html`${parts.map((part, index) => (index % 2 === 1 && index < parts.length - 1 ? html`<code>${part}</code>` : index % 2 === 1 ? `\`${part}` : part))}`;
}

export function notice(text: HtmlValue): Html {
  return html`<div class="notice" role="status"><p>${text}</p></div>`;
}
