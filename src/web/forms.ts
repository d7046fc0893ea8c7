import { CSRF_FIELD } from '../domain/accounts/form-token.ts';
import type { ErrorCode, FieldErrors } from '../errors.ts';
import type { Html, HtmlValue } from './html.ts';
import { html } from './html.ts';

/** What a form shows again after a refusal: the values sent (never passwords) and what was wrong. */
export interface FormState {
  readonly values?: Readonly<Record<string, string>>;
  readonly problem?: { readonly code: ErrorCode; readonly detail: string; readonly fields?: FieldErrors };
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
  const id = `${options.form ?? 'field'}-${options.name}`;
  const type = options.type ?? 'text';
  const value = type === 'password' ? '' : (state.values?.[options.name] ?? '');
  const errors = state.problem?.fields?.[options.name] ?? [];
  const described = [options.hint === undefined ? '' : `${id}-hint`, errors.length === 0 ? '' : `${id}-error`].filter((d) => d !== '').join(' ');
  return html`<p class="field">
<label for="${id}">${options.label}</label>
<input id="${id}" name="${options.name}" type="${type}" value="${value}"${options.autocomplete === undefined ? '' : html` autocomplete="${options.autocomplete}"`}${options.required === false ? '' : html` required`} maxlength="${options.maxLength ?? 1024}"${described === '' ? '' : html` aria-describedby="${described}"`}${errors.length === 0 ? '' : html` aria-invalid="true"`}>
${options.hint === undefined ? '' : html`<span class="hint" id="${id}-hint">${options.hint}</span>`}
${errors.length === 0 ? '' : html`<span class="field-error" id="${id}-error">${errors.join('; ')}</span>`}
</p>`;
}

/** The hidden CSRF field every form carries. */
function csrfField(token: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`;
}

/** A form that posts to this site, with its CSRF token. */
export function postForm(action: string, token: string, content: HtmlValue, extraClass = ''): Html {
  return html`<form class="form${extraClass === '' ? '' : ` ${extraClass}`}" action="${action}" method="post">${csrfField(token)}${content}</form>`;
}

/** The refusal at the top of a form, announced to screen readers. */
export function problemBox(state: FormState): Html | '' {
  const { problem } = state;
  if (problem === undefined) return '';
  return html`<div class="notice error" role="alert"><p>${problem.detail}</p></div>`;
}

export function notice(text: HtmlValue): Html {
  return html`<div class="notice" role="status"><p>${text}</p></div>`;
}

