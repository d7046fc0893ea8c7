import type { FastifyReply } from 'fastify';

/** A success without a body (201, 200 or 204 with nothing to say), as the original store answers. */
export function sendEmpty(reply: FastifyReply, status: number): FastifyReply {
  return reply.code(status).send();
}
