import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changelogSection } from './changelog.ts';

const CHANGELOG = `# Changelog
Intro text.

## [Unreleased]
- coming soon

## 0.6.0 – 2016-09-20
### Added
- brackets

## [0.5.0]
- five

## v0.4.3
- four three

## [v0.4.2] - 2016-01-01
- four two

## 0.3
- two-part heading
`;

describe('changelogSection', () => {
  test('heading forms: plain with text after, brackets, v prefix, brackets and v', () => {
    assert.equal(changelogSection(CHANGELOG, '0.6.0', false), '### Added\n- brackets');
    assert.equal(changelogSection(CHANGELOG, '0.5.0', false), '- five');
    assert.equal(changelogSection(CHANGELOG, '0.4.3', false), '- four three');
    assert.equal(changelogSection(CHANGELOG, '0.4.2', false), '- four two');
  });
  test('nightlies and pre-releases take Unreleased', () => {
    assert.equal(changelogSection(CHANGELOG, '0.6.0', true), '- coming soon');
    assert.equal(changelogSection(CHANGELOG, '0.7.0-beta.1', false), '- coming soon');
  });
  test('not found, empty, and a 3-part version against a 2-part heading: ""', () => {
    assert.equal(changelogSection(CHANGELOG, '0.3.2', false), '');
    assert.equal(changelogSection(CHANGELOG, '0.3.0', false), '');
    assert.equal(changelogSection('', '9.0.0', false), '');
    assert.equal(changelogSection('no headings at all', '1.0.0', false), '');
  });
  test('CR LF line ends', () => {
    assert.equal(changelogSection('## 1.0.0\r\n- a\r\n- b\r\n## 0.9.0\r\n- c', '1.0.0', false), '- a\n- b');
  });
});
