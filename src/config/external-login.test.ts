import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig, unknownVariables } from './config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'external-config-'));
fs.writeFileSync(path.join(dir, 'secret'), 's3cret\n');
const base = { APPSTORE_DATA_DIR: dir };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...base, ...env }, dir);
  } catch (error) {
    if (error instanceof ConfigError) return [...error.problems];
    throw error;
  }
  return [];
}

test('OpenID Providers are read in their listed order, with defaults; GitHub comes last', () => {
  const config = loadConfig(
    {
      ...base,
      APPSTORE_OIDC_PROVIDERS: 'keycloak-eu, google',
      APPSTORE_OIDC_KEYCLOAK_EU_ISSUER: 'https://id.example.com/realms/main/',
      APPSTORE_OIDC_KEYCLOAK_EU_CLIENT_ID: 'appstore',
      APPSTORE_OIDC_KEYCLOAK_EU_CLIENT_SECRET_FILE: 'secret',
      APPSTORE_OIDC_KEYCLOAK_EU_ADMIN_CLAIM: 'groups=appstore-admins',
      APPSTORE_OIDC_KEYCLOAK_EU_EMAIL_DOMAINS: 'Example.com, @example.org',
      APPSTORE_OIDC_GOOGLE_ISSUER: 'https://accounts.google.com',
      APPSTORE_OIDC_GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com',
      APPSTORE_OIDC_GOOGLE_NAME: 'Google',
      APPSTORE_OIDC_GOOGLE_SIGNUP: 'closed',
      APPSTORE_GITHUB_CLIENT_ID: 'Iv1.abc',
      APPSTORE_GITHUB_CLIENT_SECRET_FILE: 'secret',
    },
    dir,
  );
  const [keycloak, google, github] = config.externalLogin;
  assert.deepEqual(keycloak, {
    kind: 'oidc',
    id: 'keycloak-eu',
    name: 'Keycloak-eu',
    emailDomains: ['example.com', 'example.org'],
    signUpOpen: true,
    issuer: 'https://id.example.com/realms/main',
    clientId: 'appstore',
    clientSecret: 's3cret',
    scopes: ['openid', 'email', 'profile'],
    adminClaim: { name: 'groups', value: 'appstore-admins' },
  });
  assert.equal(google?.name, 'Google');
  assert.equal(google?.clientSecret, null, 'a public client');
  assert.equal(google?.signUpOpen, false);
  assert.deepEqual(github, {
    kind: 'github',
    id: 'github',
    name: 'GitHub',
    emailDomains: null,
    signUpOpen: true,
    clientId: 'Iv1.abc',
    clientSecret: 's3cret',
    webUrl: 'https://github.com',
    apiUrl: 'https://api.github.com',
  });
  // The listed providers' variables are not typos; others are.
  assert.deepEqual(
    unknownVariables({
      APPSTORE_OIDC_PROVIDERS: 'keycloak-eu',
      APPSTORE_OIDC_KEYCLOAK_EU_ISSUER: 'x',
      APPSTORE_OIDC_OTHER_ISSUER: 'x',
    }),
    ['APPSTORE_OIDC_OTHER_ISSUER'],
  );
});

test('an id listed twice is one provider', () => {
  const config = loadConfig(
    {
      ...base,
      APPSTORE_OIDC_PROVIDERS: 'corp,corp',
      APPSTORE_OIDC_CORP_ISSUER: 'https://id.example.com',
      APPSTORE_OIDC_CORP_CLIENT_ID: 'x',
    },
    dir,
  );
  assert.deepEqual(
    config.externalLogin.map((provider) => provider.id),
    ['corp'],
  );
});

test('GitHub Enterprise Server: the API under /api/v3 unless given; sign-up follows the store unless set', () => {
  const config = loadConfig(
    {
      ...base,
      APPSTORE_SIGNUP: 'closed',
      APPSTORE_GITHUB_CLIENT_ID: 'x',
      APPSTORE_GITHUB_CLIENT_SECRET_FILE: 'secret',
      APPSTORE_GITHUB_URL: 'https://ghe.example.com/',
    },
    dir,
  );
  const [github] = config.externalLogin;
  assert.equal(github?.kind === 'github' ? github.apiUrl : null, 'https://ghe.example.com/api/v3');
  assert.equal(github?.signUpOpen, false);
});

test('every problem is named, with what to do', () => {
  const found = problems({
    APPSTORE_OIDC_PROVIDERS: 'Bad_Id,github,corp,plain',
    APPSTORE_OIDC_CORP_ISSUER: 'http://id.example.com',
    APPSTORE_OIDC_CORP_CLIENT_SECRET_FILE: 'missing-file',
    APPSTORE_OIDC_CORP_SCOPES: 'email profile',
    APPSTORE_OIDC_CORP_ADMIN_CLAIM: 'groups=',
    APPSTORE_OIDC_CORP_EMAIL_DOMAINS: 'not a domain',
    APPSTORE_OIDC_CORP_SIGNUP: 'maybe',
    APPSTORE_OIDC_PLAIN_ISSUER: 'https://id.example.com?x=1',
    APPSTORE_OIDC_PLAIN_CLIENT_ID: 'x',
    APPSTORE_GITHUB_CLIENT_ID: 'x',
  });
  const expected = [
    /APPSTORE_OIDC_PROVIDERS: 'Bad_Id' is not a usable id/,
    /APPSTORE_OIDC_PROVIDERS: 'github' is not a usable id .*GitHub preset/,
    /APPSTORE_OIDC_CORP_ISSUER: use https:\/\//,
    /APPSTORE_OIDC_CORP_CLIENT_ID: missing/,
    /APPSTORE_OIDC_CORP_CLIENT_SECRET_FILE: .*missing-file does not exist/,
    /APPSTORE_OIDC_CORP_SCOPES: must include openid/,
    /APPSTORE_OIDC_CORP_ADMIN_CLAIM: expected CLAIM or CLAIM=VALUE/,
    /APPSTORE_OIDC_CORP_EMAIL_DOMAINS: expected domains/,
    /APPSTORE_OIDC_CORP_SIGNUP: 'maybe' is not open or closed/,
    /APPSTORE_OIDC_PLAIN_ISSUER: expected an address without query/,
    /APPSTORE_GITHUB_CLIENT_SECRET_FILE: missing/,
  ];
  for (const pattern of expected)
    assert.ok(
      found.some((problem) => pattern.test(problem)),
      `${String(pattern)} in ${found.join('\n')}`,
    );
  assert.equal(found.length, expected.length, found.join('\n'));
  // Plain http is for a provider on this machine only.
  assert.deepEqual(
    problems({
      APPSTORE_OIDC_PROVIDERS: 'dev',
      APPSTORE_OIDC_DEV_ISSUER: 'http://localhost:8080/realms/dev',
      APPSTORE_OIDC_DEV_CLIENT_ID: 'x',
    }),
    [],
  );
});
