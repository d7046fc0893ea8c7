import type { FastifyError } from 'fastify';
import { AppError, isAppError } from '../errors.ts';
import type { FieldErrors } from '../errors.ts';
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

/** Turns anything thrown while handling a request into a status and the catalogue's body. */
export function toErrorResponse(error: unknown): ErrorResponse {
  const appError = isAppError(error) ? error : fromFastifyError(error);
  if (appError === null) {
    return {
      status: 500,
      body: { detail: 'The server failed to handle this request; the failure was logged. Please try again later.', code: 'internal_error' },
      isServerFault: true,
    };
  }
  const status = ERROR_STATUS[appError.code];
  const body: ErrorBody = { detail: appError.detail, code: appError.code };
  if (appError.errors !== undefined) body.errors = appError.errors;
  return { status, body, isServerFault: status >= 500, retryAfterSeconds: appError.retryAfterSeconds };
}

interface ValidationIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Fastify's own client errors (validation, body parsing, size) mapped to catalogue codes. */
function fromFastifyError(error: unknown): AppError | null {
  if (typeof error !== 'object' || error === null) return null;
  const fastifyError = error as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation)) return validationError(fastifyError.validation, fastifyError.validationContext ?? 'body');
  const status = fastifyError.statusCode;
  if (status === undefined || status < 400 || status >= 500) return null;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Unsupported Content-Type: send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('malformed_json', 'The body is empty but Content-Type says application/json: send a JSON object.');
    default:
      if (fastifyError.code?.startsWith('FST_ERR_CTP') === true || fastifyError instanceof SyntaxError) {
        return new AppError('malformed_json', `The body is not valid JSON: ${fastifyError.message}`);
      }
      return new AppError('invalid_request', fastifyError.message);
  }
}

function validationError(issues: ValidationIssue[], context: string): AppError {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const base = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
    const missing = issue.keyword === 'required' ? String(issue.params?.['missingProperty'] ?? '') : '';
    const extra = issue.keyword === 'additionalProperties' ? String(issue.params?.['additionalProperty'] ?? '') : '';
    const field = [base, missing || extra].filter((part) => part !== '').join('.') || `(${context})`;
    const message = missing !== '' ? 'This field is required.' : extra !== '' ? 'This field is not allowed.' : (issue.message ?? 'is invalid');
    (errors[field] ??= []).push(message);
  }
  const [firstField, firstMessages] = Object.entries(errors)[0] ?? ['(request)', ['is invalid']];
  const where = context === 'body' ? 'request body' : context === 'querystring' ? 'query string' : context === 'params' ? 'path' : context;
  return new AppError('invalid_request', `Invalid ${where}: ${firstField}: ${firstMessages[0]}`, errors);
}
