import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OidcProviderSettings } from '../config/external-login.ts';
import { AppError } from '../errors.ts';
import { githubProfile } from './github-connector.ts';
import { adminByClaim, oidcProfile } from './oidc-connector.ts';
import { providerFailure } from './provider-errors.ts';
import { said } from '../i18n/said.ts';

const SETTINGS: OidcProviderSettings = {
  kind: 'oidc',
  id: 'corp',
  name: 'Corp ID',
  clientId: 'appstore',
  clientSecret: null,
  emailDomains: null,
  signUpOpen: true,
  issuer: 'https://id.example.com',
  scopes: ['openid'],
  adminClaim: { name: 'groups', value: 'admins' },
};

test('the admin claim: a list holding the value, the value itself, or true when no value is set', () => {
  assert.equal(adminByClaim({ groups: ['staff', 'admins'] }, { name: 'groups', value: 'admins' }), true);
  assert.equal(adminByClaim({ groups: ['staff'] }, { name: 'groups', value: 'admins' }), false);
  assert.equal(adminByClaim({ role: 'admins' }, { name: 'role', value: 'admins' }), true);
  assert.equal(adminByClaim({}, { name: 'groups', value: 'admins' }), false);
  assert.equal(adminByClaim({ appstore_admin: true }, { name: 'appstore_admin', value: null }), true);
  assert.equal(adminByClaim({ appstore_admin: 'yes' }, { name: 'appstore_admin', value: null }), false);
  assert.equal(adminByClaim({ groups: ['admins'] }, null), null);
});

test('an OpenID profile: the address only when verified; names from given/family, else split from name', () => {
  const verified = oidcProfile(SETTINGS, {
    sub: 'u-1',
    email: 'ann@example.com',
    email_verified: true,
    preferred_username: 'ann',
    given_name: 'Ann',
    family_name: 'Lee',
    groups: ['admins'],
  });
  assert.deepEqual(verified, {
    provider: 'corp',
    subject: 'u-1',
    username: 'ann',
    email: 'ann@example.com',
    firstName: 'Ann',
    lastName: 'Lee',
    admin: true,
    label: 'ann',
  });
  const unverified = oidcProfile(SETTINGS, { sub: 'u-2', email: 'bo@example.com', name: 'Bo Van Dam' });
  assert.equal(unverified.email, null);
  assert.deepEqual(
    [unverified.firstName, unverified.lastName, unverified.username, unverified.label, unverified.admin],
    ['Bo Van', 'Dam', null, 'bo@example.com', false],
  );
});

test('a GitHub profile: the numeric id as subject, the verified primary address only', () => {
  const profile = githubProfile({ id: 42, login: 'octo', name: 'Octo Cat' }, [
    { email: 'old@example.com', primary: false, verified: true },
    { email: 'octo@example.com', primary: true, verified: true },
  ]);
  assert.deepEqual(profile, {
    provider: 'github',
    subject: '42',
    username: 'octo',
    email: 'octo@example.com',
    firstName: 'Octo',
    lastName: 'Cat',
    admin: null,
    label: 'octo',
  });
  assert.equal(
    githubProfile({ id: 1, login: 'x', name: null }, [{ email: 'x@example.com', primary: true, verified: false }])
      .email,
    null,
  );
});

test('provider failures: OAuth errors, unverifiable tokens and an unreachable provider each say what happened', () => {
  const oauth = Object.assign(new Error('server responded with an error'), {
    error: 'invalid_grant',
    error_description: 'grant request is invalid',
  });
  assert.match(
    providerFailure('Corp ID', oauth).detail,
    /Corp ID refused the sign-in \(it answered "invalid_grant: grant request is invalid"\)/,
  );
  const nonce = Object.assign(new Error('unexpected JWT claim value encountered'), {
    code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
    cause: Object.assign(new Error('unexpected ID Token "nonce" claim value'), { cause: { claim: 'nonce' } }),
  });
  assert.match(providerFailure('Corp ID', nonce).detail, /its nonce is not the one this sign-in sent/);
  const unreachable = providerFailure(
    'Corp ID',
    new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 10.1.2.3:443') }),
  );
  assert.equal(unreachable.code, 'identity_provider_unavailable');
  assert.doesNotMatch(unreachable.detail, /10\.1\.2\.3/);
  const kept = new AppError('forbidden', said`as it was`);
  assert.equal(providerFailure('Corp ID', kept), kept);
});
