import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { languageName, shortDate, starRating, timeAgo } from './catalog-display.ts';
import { siteStrings } from './strings.ts';

const STRINGS = siteStrings('en');

describe('catalogue display helpers', () => {
  test('languages by their own names; codes Intl does not know stay codes', () => {
    assert.equal(languageName('de'), 'Deutsch');
    assert.equal(languageName('en'), 'English');
    assert.equal(languageName('fr'), 'Français');
    assert.equal(languageName('pt_BR'), 'Português (Brasil)');
    assert.equal(languageName('xx'), 'xx');
  });

  test('relative dates in the visitor’s language', () => {
    const now = new Date('2026-11-24T12:00:00Z');
    assert.equal(timeAgo('2026-11-24T08:00:00Z', now, 'en'), 'today');
    assert.equal(timeAgo('2026-11-23T08:00:00Z', now, 'en'), 'yesterday');
    assert.equal(timeAgo('2026-11-21T08:00:00Z', now, 'de'), 'vor 3 Tagen');
    assert.equal(timeAgo('2026-08-20T08:00:00Z', now, 'en'), '3 months ago');
    assert.equal(timeAgo('2024-11-01T08:00:00Z', now, 'en'), '2 years ago');
    assert.equal(timeAgo('not a date', now, 'en'), '');
    assert.equal(shortDate('2026-11-24T08:00:00Z', 'de'), '24.11.2026');
  });

  test('stars to the nearest half with a text alternative; none without ratings', () => {
    const shown = starRating(STRINGS, 4.26, 12).text;
    assert.match(shown, /class="stars s45" role="img" aria-label="4\.3 out of 5 stars"/);
    assert.match(shown, /\(12\)/);
    assert.match(starRating(STRINGS, 3, 0).text, /Not rated yet/);
    assert.doesNotMatch(starRating(STRINGS, 3, 0).text, /role="img"/);
  });
});
