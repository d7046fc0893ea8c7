import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.ts';

/**
 * JSON as fastify parses it (prototype poisoning refused), except that an empty body is no body
 * (clients POST to the token routes with a JSON content type and nothing else), and that a
 * syntax error says where it is.
 */
export function installJsonParser(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') {
      done(null, null);
      return;
    }
    json(request, text, (error, value) => {
      if (error === null) done(null, value);
      else done(new AppError('malformed_json', `The body is not valid JSON: ${syntaxProblem(text, error)}.`));
    });
  });
}

function syntaxProblem(text: string, fallback: Error): string {
  try {
    JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) return error.message.replace(/\.$/, '');
  }
  // Valid JSON that the secure parser refused: a __proto__ or constructor.prototype key.
  return fallback.message.includes('prototype') ? 'it sets __proto__ or constructor.prototype' : 'it could not be parsed';
}

/**
 * HTML forms (`POST /login`): installed only in the scope of the routes that take forms, so that
 * anywhere else a form body (curl's `-d` without a Content-Type) is a clear 415, not a JSON
 * route's "field is required".
 */
export function installFormParser(scope: FastifyInstance): void {
  scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
}
