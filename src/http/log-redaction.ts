import type { FastifyRequest } from 'fastify';

/** Query parameters that carry a secret: an OAuth code or state, a form's CSRF token, tokens. */
const SECRET_PARAMETERS = /^(code|state|csrf_token|id_token|access_token|refresh_token|token)$/i;

/** The URL as the log shows it: the values of secret query parameters replaced. */
export function redactUrl(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const redacted = url
    .slice(at + 1)
    .split('&')
    .map((pair) => {
      const name = pair.split('=', 1)[0] ?? '';
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // an undecodable name is no secret parameter's name
      }
      return SECRET_PARAMETERS.test(decoded) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, at)}?${redacted}`;
}

/** Fastify's request serializer for the log, with the URL redacted. */
export function serializeRequest(request: FastifyRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
