import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Container } from '../../src/container.ts';
import { addUser } from '../../src/domain/accounts/manage-users.ts';
import type { User } from '../../src/domain/accounts/user.ts';
import { currentUser, requireUser } from '../../src/http/auth.ts';
import { AUTH_ERRORS, errorResponses } from '../../src/http/schemas.ts';
import { TEST_ACTING } from './acting.ts';

export const basic = (username: string, password: string): string =>
  `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

/** A user as an operator makes one with `--allow-weak-password`: the tests' passwords are chosen for them, not for strength. */
export function createUser(
  container: Container,
  username: string,
  password: string | null,
  extra: { isAdmin?: boolean; email?: string } = {},
): Promise<User> {
  return addUser(
    { username, password, firstName: username, lastName: 'Tester', strength: 'waived', ...extra },
    TEST_ACTING,
    container.accounts,
  );
}

/** A protected probe route (Basic or Token), standing in for the routes later issues add. */
export function addWhoamiRoute(app: FastifyInstance, container: Container): void {
  app.get('/test/whoami', {
    schema: { response: { 200: Type.Object({ username: Type.String() }), ...errorResponses(AUTH_ERRORS) } },
    onRequest: requireUser(container, ['basic', 'token']),
    handler: async (request) => ({ username: currentUser(request).username }),
  });
}
