import type { FastifyBaseLogger } from 'fastify';

/** What a refusal's log line carries: the catalogue's code, the status, the sentence the client got (and the request id when the logger does not add it). */
export interface LoggedRefusal {
  readonly code: string;
  readonly status: number;
  readonly detail: string;
  readonly reqId?: string;
}

/**
 * The one log line of a refused request (a client's mistake, a 4xx), wherever it was refused:
 * the error handler, a form shown again, the router, or before routing on the raw connection.
 */
export function logRefusal(log: Pick<FastifyBaseLogger, 'info'>, refusal: LoggedRefusal): void {
  log.info(refusal, 'request refused');
}
