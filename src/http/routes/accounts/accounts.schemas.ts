import { Type } from 'typebox';
import { errorResponse } from '../../schemas.ts';

export const TokenResponse = Type.Object({ token: Type.String({ description: 'API token: send it as Authorization: Token <token>' }) }, { $id: 'ApiToken', title: 'API token' });

export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 150 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { description: 'As JSON or as an application/x-www-form-urlencoded form' },
);

export const LoginResponse = Type.Object({
  username: Type.String(),
  csrfToken: Type.String({ description: 'Send it as X-CSRF-Token on every state-changing request made with this session' }),
  expiresAt: Type.String({ description: 'ISO 8601' }),
});

export const authErrors = {
  401: errorResponse('Not authenticated: no, malformed or wrong credentials (WWW-Authenticate says which schemes)'),
  429: errorResponse('Too many failed sign-ins or new tokens; Retry-After says when to try again'),
};
