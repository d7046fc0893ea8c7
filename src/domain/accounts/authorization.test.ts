import { said } from '../../i18n/said.ts';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../errors.ts';
import { cliActing, userActing, visitorActing } from '../audit/audit.ts';
import {
  actingRole,
  canManageApp,
  canManageReleases,
  canRate,
  requireActingAppManager,
  requireAdmin,
  requireAppManager,
  requireReleaseManager,
  roleOn,
} from './authorization.ts';
import type { User } from './user.ts';

const user = (id: number, isAdmin = false): User => ({
  id,
  username: `u${id}`,
  email: null,
  firstName: '',
  lastName: '',
  isAdmin,
  isActive: true,
  hasPassword: true,
  emailVerified: true,
});
const access = { appId: 'news', ownerId: 1, coMaintainerIds: [2] };

describe('authorization', () => {
  test('roles', () => {
    assert.equal(roleOn(user(1), access), 'owner');
    assert.equal(roleOn(user(2), access), 'co-maintainer');
    assert.equal(roleOn(user(3, true), access), 'admin');
    assert.equal(roleOn(user(4), access), 'none');
    assert.equal(roleOn(user(1, true), access), 'owner');
  });

  test('releases: owner, co-maintainers and admins', () => {
    assert.deepEqual(
      [1, 2, 4].map((id) => canManageReleases(user(id), access)),
      [true, true, false],
    );
    assert.ok(canManageReleases(user(3, true), access));
  });

  test('the app itself: owner and admins, not co-maintainers', () => {
    assert.deepEqual(
      [1, 2, 4].map((id) => canManageApp(user(id), access)),
      [true, false, false],
    );
    assert.ok(canManageApp(user(3, true), access));
  });

  test('rating: anyone but the maintainers', () => {
    assert.deepEqual(
      [1, 2, 4].map((id) => canRate(user(id), access)),
      [false, false, true],
    );
    assert.ok(canRate(user(3, true), access));
  });

  test('refusals are forbidden errors naming the app', () => {
    assert.throws(
      () => requireAppManager(user(2), access, said`delete it.`),
      (e: unknown) => e instanceof AppError && e.code === 'forbidden' && /news/.test(e.detail),
    );
    assert.throws(
      () => requireReleaseManager(user(4), access),
      (e: unknown) => e instanceof AppError && e.code === 'forbidden',
    );
    assert.doesNotThrow(() => requireReleaseManager(user(2), access));
  });

  test('whoever acts: a user by their role, the command line as an admin, a visitor as nobody', () => {
    const acting = (u: User) => userActing(u, '192.0.2.1', 'req-1');
    assert.deepEqual(
      [user(1), user(2), user(3, true), user(4)].map((u) => actingRole(acting(u), access)),
      ['owner', 'co-maintainer', 'admin', 'none'],
    );
    assert.equal(actingRole(cliActing('root'), access), 'admin');
    assert.equal(actingRole(visitorActing(null, null), access), 'none');
    const forbidden = (e: unknown) => e instanceof AppError && e.code === 'forbidden';
    assert.throws(() => requireActingAppManager(acting(user(2)), access, said`add co-maintainers.`), forbidden);
    assert.throws(
      () => requireActingAppManager(visitorActing(null, null), access, said`add co-maintainers.`),
      forbidden,
    );
    assert.doesNotThrow(() => requireActingAppManager(acting(user(1)), access, said`add co-maintainers.`));
    assert.doesNotThrow(() => requireActingAppManager(cliActing('root'), access, said`add co-maintainers.`));
    assert.throws(
      () => requireAdmin(acting(user(1)), said`feature apps.`),
      (e: unknown) => forbidden(e) && /Only administrators may feature apps/.test((e as AppError).detail),
    );
    assert.doesNotThrow(() => requireAdmin(acting(user(3, true)), said`feature apps.`));
    assert.doesNotThrow(() => requireAdmin(cliActing('root'), said`feature apps.`));
  });
});
