import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { aggregateRatings, recentWindowStart } from './rating-aggregate.ts';

describe('rating aggregates (reference §12.10 test_rating)', () => {
  const since = '2026-01-01T00:00:00.000000Z';
  const at = (day: string) => `${day}T12:00:00.000000Z`;
  test('no ratings: 0.5 and 0', () =>
    assert.deepEqual(aggregateRatings([], since), {
      ratingOverall: 0.5,
      ratingNumOverall: 0,
      ratingRecent: 0.5,
      ratingNumRecent: 0,
    }));
  test('mean and count; old ones only overall', () => {
    const ratings = [1, 1, 0.5, 0.5].map((rating) => ({ rating, ratedAt: at('2026-02-01') }));
    assert.deepEqual(aggregateRatings(ratings, since), {
      ratingOverall: 0.75,
      ratingNumOverall: 4,
      ratingRecent: 0.75,
      ratingNumRecent: 4,
    });
    const mixed = [
      { rating: 1, ratedAt: at('2025-06-01') },
      { rating: 0, ratedAt: at('2026-03-01') },
    ];
    assert.deepEqual(aggregateRatings(mixed, since), {
      ratingOverall: 0.5,
      ratingNumOverall: 2,
      ratingRecent: 0,
      ratingNumRecent: 1,
    });
  });
  test('the window starts at UTC midnight 90 days back; the day names it', () => {
    assert.deepEqual(recentWindowStart(new Date('2026-04-01T15:30:00Z')), {
      since: '2026-01-01T00:00:00.000000Z',
      day: '20260401',
    });
  });
});
