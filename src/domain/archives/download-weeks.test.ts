import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chartStart, downloadChart, weekStart } from './download-weeks.ts';

test('weeks start on Monday, UTC', () => {
  assert.equal(weekStart(new Date('2026-11-28T23:30:00Z')).toISOString(), '2026-11-23T00:00:00.000Z');
  assert.equal(weekStart(new Date('2026-11-23T00:00:00Z')).toISOString(), '2026-11-23T00:00:00.000Z');
  assert.equal(weekStart(new Date('2026-11-22T12:00:00Z')).toISOString(), '2026-11-16T00:00:00.000Z');
  assert.equal(chartStart(new Date('2026-11-28T10:00:00Z'), 3), '2026-11-09');
});

test('days fall into their weeks; older days and releases not served here are left out', () => {
  const chart = downloadChart(
    [
      {
        version: '2.0.0',
        nightly: false,
        download: 'x',
        served: true,
        total: 9,
        days: [
          { day: '2026-11-01', count: 100 },
          { day: '2026-11-09', count: 2 },
          { day: '2026-11-15', count: 3 },
          { day: '2026-11-28', count: 4 },
        ],
      },
      {
        version: '1.0.0',
        nightly: true,
        download: 'y',
        served: true,
        total: 1,
        days: [{ day: '2026-11-24', count: 1 }],
      },
      { version: '0.9.0', nightly: false, download: 'z', served: false, total: 0, days: [] },
    ],
    new Date('2026-11-28T10:00:00Z'),
    3,
  );
  assert.deepEqual(chart.weeks, [
    { week: '2026-11-09', count: 5 },
    { week: '2026-11-16', count: 0 },
    { week: '2026-11-23', count: 5 },
  ]);
  assert.deepEqual(chart.releases, [
    { label: '2.0.0', count: 9 },
    { label: '1.0.0 (nightly)', count: 1 },
  ]);
});
