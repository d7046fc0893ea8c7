import { Type } from 'typebox';

export const TokenResponse = Type.Object(
  { token: Type.String({ description: 'API token: send it as Authorization: Token <token>' }) },
  { $id: 'ApiToken', title: 'API token' },
);

export const LoginBody = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 150 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    code: Type.Optional(
      Type.String({
        maxLength: 40,
        description: 'For an account with a second factor: the authenticator app’s 6 digits, or a recovery code',
      }),
    ),
  },
  { description: 'As JSON or as an application/x-www-form-urlencoded form' },
);

export const LoginResponse = Type.Object({
  username: Type.String(),
  csrfToken: Type.String({
    description: 'Send it as X-CSRF-Token on every state-changing request made with this session',
  }),
  expiresAt: Type.String({ description: 'ISO 8601' }),
});

/** No body is needed; any JSON object is ignored. */
export const EmptyBody = Type.Union([Type.Null(), Type.Object({}, { additionalProperties: true })], {
  description: 'No body is needed; any JSON object is ignored',
});
