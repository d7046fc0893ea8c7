import { said } from '../i18n/said.ts';
import type { Said } from '../i18n/said.ts';
import type { FastifyError } from 'fastify';
import { AppError, isAppError } from '../errors.ts';
import type { ErrorCode, FieldErrors, SaidFieldErrors } from '../errors.ts';
import { ERROR_STATUS } from './error-status.ts';

/** The one JSON shape of every error response (contract §2). */
export interface ErrorBody {
  detail: string;
  code: string;
  errors?: FieldErrors;
}

export interface ErrorResponse {
  readonly status: number;
  readonly body: ErrorBody;
  /** True for a server fault: logged with its stack, never shown to the client. */
  readonly isServerFault: boolean;
  readonly retryAfterSeconds?: number;
}

/** Details that stay in the log: a configuration problem names files and settings of the server. */
const PUBLIC_DETAIL: Partial<Record<ErrorCode, string>> = {
  configuration_error:
    'The store is not configured correctly, so it cannot do this now; its operator finds the details in the log.',
};

/**
 * Turns anything thrown while handling a request into a status and the catalogue's body.
 * `contentType` is the request's, for a refusal of its body that names what was sent.
 */
export function toErrorResponse(error: unknown, contentType?: string): ErrorResponse {
  const appError = isAppError(error) ? error : fromFastifyError(error, contentType);
  if (appError === null) {
    return {
      status: 500,
      body: {
        detail: 'The server failed to handle this request; the failure was logged. Please try again later.',
        code: 'internal_error',
      },
      isServerFault: true,
    };
  }
  const status = ERROR_STATUS[appError.code];
  const body: ErrorBody = { detail: PUBLIC_DETAIL[appError.code] ?? appError.detail, code: appError.code };
  if (appError.errors !== undefined) body.errors = appError.errors;
  return { status, body, isServerFault: status >= 500, retryAfterSeconds: appError.retryAfterSeconds };
}

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
  /** With Ajv's `verbose`: the schema that holds the failed keyword. */
  parentSchema?: { description?: unknown };
}

/** Fastify's own client errors (validation, body parsing, size) mapped to catalogue codes. */
function fromFastifyError(error: unknown, contentType: string | undefined): AppError | null {
  if (typeof error !== 'object' || error === null) return null;
  const fastifyError = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation))
    return validationError(fastifyError.validation, fastifyError.validationContext ?? 'body');
  const status = fastifyError.statusCode;
  if (status === undefined || status < 400 || status >= 500) return null;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', said`The request body is too large.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', unsupportedMediaType(contentType));
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(
        'malformed_json',
        said`The body is empty but Content-Type says application/json: send a JSON object.`,
      );
    default:
      if (fastifyError.code?.startsWith('FST_ERR_CTP') === true)
        return new AppError('malformed_json', said`The body could not be read as JSON.`);
      return new AppError('invalid_request', fastifyError.message);
  }
}

function validationError(issues: ValidationIssue[], context: string): AppError {
  const errors: SaidFieldErrors = {};
  for (const issue of issues) {
    const base = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    const missing = issue.keyword === 'required' ? String(issue.params?.['missingProperty'] ?? '') : '';
    const extra = issue.keyword === 'additionalProperties' ? String(issue.params?.['additionalProperty'] ?? '') : '';
    const field = [base, missing || extra].filter((part) => part !== '').join('.') || `(${context})`;
    const message =
      missing !== ''
        ? said`This field is required.`
        : extra !== ''
          ? said`This field is not allowed.`
          : describeIssue(issue);
    (errors[field] ??= []).push(message);
  }
  const [firstField, firstMessages] = Object.entries(errors)[0] ?? ['(request)', [said`is invalid`]];
  const where =
    context === 'body'
      ? said`request body`
      : context === 'querystring'
        ? said`query string`
        : context === 'params'
          ? said`path`
          : context;
  return new AppError('invalid_request', said`Invalid ${where}: ${firstField}: ${firstMessages[0]}`, errors);
}

/**
 * What a failed keyword means, in Ajv's words, said so that a page can translate it; a pattern
 * is explained by the schema's description, never shown as a regular expression.
 */
function describeIssue(issue: ValidationIssue): Said | string {
  const limit = Number(issue.params?.['limit']);
  switch (issue.keyword) {
    case 'pattern': {
      const expected = issue.parentSchema?.description;
      return typeof expected === 'string' ? said`expected ${expected}` : said`is malformed`;
    }
    case 'minLength':
      return said`must NOT have fewer than ${limit} characters`;
    case 'maxLength':
      return said`must NOT have more than ${limit} characters`;
    case 'minItems':
      return said`must NOT have fewer than ${limit} items`;
    case 'maxItems':
      return said`must NOT have more than ${limit} items`;
    case 'enum':
      return said`must be equal to one of the allowed values`;
    case 'type':
      return said`must be ${String(issue.params?.['type'] ?? '')}`;
    default:
      return issue.message ?? said`is invalid`;
  }
}

function unsupportedMediaType(contentType: string | undefined): string {
  const sent = (contentType ?? '').split(';')[0]?.trim().toLowerCase().slice(0, 80) ?? '';
  if (sent === '')
    return 'The request has a body but no Content-Type: send JSON with the header Content-Type: application/json.';
  if (sent === 'application/x-www-form-urlencoded') {
    return "The body was sent as a form (application/x-www-form-urlencoded, what curl -d sends by default): send JSON with the header Content-Type: application/json (curl -H 'Content-Type: application/json' -d …).";
  }
  return `Unsupported Content-Type '${sent}': send the body as JSON with the header Content-Type: application/json.`;
}
