import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isUnavailable } from './unavailable.ts';

const withCode = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

describe('isUnavailable: "not now" from the database, not a mistake in a query', () => {
  test('outages, locks and full disks are', () => {
    for (const error of [
      withCode('ECONNREFUSED'),
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('08006'),
      withCode('53300', 'too many connections'),
      withCode('SQLITE_BUSY', 'database is locked'),
      withCode('SQLITE_IOERR_WRITE'),
      withCode('SQLITE_FULL'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]),
    ]) {
      assert.equal(isUnavailable(error), true, String((error as { code?: string }).code ?? error.message));
    }
  });

  test('a broken constraint, a syntax error, a bug are not', () => {
    for (const error of [
      withCode('23505', 'duplicate key'),
      withCode('42601', 'syntax error'),
      withCode('SQLITE_CONSTRAINT_UNIQUE'),
      new TypeError('x is undefined'),
      new AggregateError([withCode('ECONNREFUSED'), withCode('23505')]),
      'text',
      null,
    ]) {
      assert.equal(isUnavailable(error), false, String(error));
    }
  });
});
