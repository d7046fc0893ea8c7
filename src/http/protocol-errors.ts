import { newRequestId } from './request-id.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '../errors.ts';
import { corsHeadersFor } from './cors.ts';
import { ERROR_STATUS } from './error-status.ts';
import { logRefusal } from './refusal-log.ts';
import { requestIdFor } from './request-id.ts';

/**
 * Refusals made before (or outside) fastify's request cycle: what Node's HTTP parser rejects, and
 * what the server checks before routing. They carry the contract's body (`detail`, `code`), a
 * request id and `nosniff` like every other answer, and close the connection: after a protocol
 * error the rest of the stream cannot be trusted.
 */
export interface ProtocolRefusal {
  readonly code: ErrorCode;
  readonly detail: string;
}

export type RefusalLog = (refusal: ProtocolRefusal & { readonly status: number; readonly requestId: string }) => void;

function bodyOf(refusal: ProtocolRefusal): string {
  return JSON.stringify({ detail: refusal.detail, code: refusal.code });
}

/** What Node's parser reported, as a refusal a person can act on. */
function refusalForClientError(error: Error & { code?: string }): ProtocolRefusal {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        code: 'headers_too_large',
        detail:
          'The request line and headers are larger than this server accepts (16 KiB): send fewer or shorter headers, or a shorter URL.',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        code: 'request_timeout',
        detail:
          'The request was not received in time: the headers, or the whole body, took longer than this server waits. Send the request again.',
      };
    case 'HPE_INVALID_METHOD':
      return { code: 'invalid_request', detail: 'The request is not HTTP: its method is not one HTTP knows.' };
    case 'HPE_INVALID_URL':
      return {
        code: 'invalid_request',
        detail: 'The request target is not a valid URL path: percent-encode spaces and other special characters.',
      };
    case 'HPE_INVALID_HEADER_TOKEN':
      return {
        code: 'invalid_request',
        detail:
          'A header has a name or value with characters HTTP does not allow (control characters, or spaces in a name).',
      };
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_INVALID_CHUNK_SIZE':
      return {
        code: 'invalid_request',
        detail:
          'The body framing is invalid: send either a valid Content-Length or Transfer-Encoding: chunked with valid chunks, not both.',
      };
    case 'HPE_INVALID_VERSION':
      return { code: 'invalid_request', detail: 'The request line does not end with a valid HTTP version (HTTP/1.1).' };
    default:
      return { code: 'invalid_request', detail: 'The request is not valid HTTP/1.1 and could not be read.' };
  }
}

/**
 * Answers on a raw socket, where there is no request object (Node could not parse one, or the
 * connection is refused before any), and closes the connection once the answer is out.
 */
export function writeRawRefusal(
  socket: Duplex,
  refusal: ProtocolRefusal,
  log: RefusalLog,
  extraHeaders: Readonly<Record<string, string>> = {},
): void {
  const status = ERROR_STATUS[refusal.code];
  const requestId = newRequestId();
  log({ ...refusal, status, requestId });
  const body = bodyOf(refusal);
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    ...extraHeaders,
    'X-Request-Id': requestId,
    'X-Content-Type-Options': 'nosniff',
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.once('finish', () => socket.destroy());
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n${body}`);
}

/**
 * Fastify's `clientErrorHandler`: Node could not parse the request, so there is no request to
 * route. Answers on the raw socket, unless a response is already under way or the client is gone.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex, log: RefusalLog): void {
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || socket.destroyed) return;
  // A response that has begun cannot be replaced: the connection is only closed.
  const responding = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage?.headersSent === true;
  if (socket.writable && !responding) writeRawRefusal(socket, refusalForClientError(error), log);
  else socket.destroy();
}

/** Answers a request refused before routing, with the usual headers (CORS on /api/ paths), and closes the connection. */
export function answerBeforeRouting(
  request: IncomingMessage,
  response: ServerResponse,
  refusal: ProtocolRefusal,
  log: RefusalLog,
): void {
  const status = ERROR_STATUS[refusal.code];
  const requestId = requestIdFor(request.headers);
  log({ ...refusal, status, requestId });
  const body = bodyOf(refusal);
  response.writeHead(status, {
    ...corsHeadersFor(request.url ?? ''),
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    'x-content-type-options': 'nosniff',
    connection: 'close',
  });
  response.end(body);
}

/**
 * What must hold before a request is routed: an HTTP/1.1 request names its `Host` (RFC 9112
 * §3.2), and the only expectation this server meets is `100-continue`. Null when it holds.
 */
export function checkBeforeRouting(request: IncomingMessage): ProtocolRefusal | null {
  if (request.httpVersionMajor === 1 && request.httpVersionMinor >= 1 && (request.headers.host ?? '') === '') {
    return {
      code: 'invalid_request',
      detail: "The request has no Host header: HTTP/1.1 requires one (Host: the store's name).",
    };
  }
  // Node keeps the first of several: which host the request is for is then ambiguous (RFC 9112 §3.2 requires a 400).
  let hosts = 0;
  // Only a four-letter name is lowered: no string is made per header of every request.
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i];
    if (name?.length === 4 && name.toLowerCase() === 'host') hosts += 1;
  }
  if (hosts > 1) return { code: 'invalid_request', detail: `The request has ${hosts} Host headers: send exactly one.` };
  const expect = request.headers.expect;
  if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue') {
    return {
      code: 'expectation_failed',
      detail: `This server cannot meet the expectation '${expect.slice(0, 40)}': the only one it supports is Expect: 100-continue.`,
    };
  }
  return null;
}

/**
 * Fastify's `frameworkErrors`: the router could not decode the path (bad percent-encoding). Its
 * request never enters a route's context (no hooks, no error handler), so the usual headers are
 * set here.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const url = request.raw.url ?? '';
  const path = url.split('?')[0]?.slice(0, 200) ?? '';
  const refusal: ProtocolRefusal =
    error.code === 'FST_ERR_BAD_URL'
      ? {
          code: 'invalid_request',
          detail: `The path ${path} is not valid percent-encoding: encode each byte as % and two hex digits, and UTF-8 text as its bytes.`,
        }
      : {
          code: 'invalid_request',
          detail: `The path ${path} could not be routed: a path parameter is too long or malformed.`,
        };
  const status = ERROR_STATUS[refusal.code];
  logRefusal(request.log, { code: refusal.code, status, detail: refusal.detail });
  void reply
    .code(status)
    .headers({ ...corsHeadersFor(url), 'x-request-id': request.id, 'x-content-type-options': 'nosniff' })
    .type('application/json; charset=utf-8')
    .send(bodyOf(refusal));
}
