import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from '../web/html.ts';
import { pageSecurityHeaders } from '../web/security-headers.ts';
import { readSessionCookie } from './cookies.ts';
import { isApiPath } from './cors.ts';

/** Sends a page with the pages' security headers. */
export function sendPage(request: FastifyRequest, reply: FastifyReply, page: Html): FastifyReply {
  // A page for a signed-in browser names its user: kept by no cache, shared or not.
  const cacheControl =
    reply.getHeader('cache-control') ?? (readSessionCookie(request) === undefined ? 'no-cache' : 'private, no-store');
  return reply
    .headers(pageSecurityHeaders(request.protocol === 'https'))
    .type('text/html; charset=utf-8')
    .header('cache-control', cacheControl)
    .send(page.text);
}

/** The response schema of a page route. */
export const PAGE_RESPONSE = { 200: Type.String({ description: 'An HTML page' }) };

/** Whether the client reads HTML (a browser). */
export function acceptsHtml(request: FastifyRequest): boolean {
  return /\btext\/html\b/.test(request.headers.accept ?? '');
}

/** A browser asking for a page outside the API gets error pages; API clients keep JSON. */
export function wantsPage(request: FastifyRequest): boolean {
  return !isApiPath(request.url) && acceptsHtml(request);
}
