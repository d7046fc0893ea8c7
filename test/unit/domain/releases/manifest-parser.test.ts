import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../../src/errors.ts';
import { CATEGORY_IDS, manifest } from '../../../helpers/release-fixtures.ts';
import { parseManifest } from '../../../../src/domain/releases/manifest-parser.ts';
import type { Manifest } from '../../../../src/domain/releases/release-data.ts';
import { loadXmlParser } from '../../../../src/domain/releases/xml-document.ts';

const parseXmlDocument = await loadXmlParser();

const parse = (name: string): Manifest => parseManifest(parseXmlDocument(manifest(name), 'info.xml'), CATEGORY_IDS);

function refused(name: string, where: RegExp, message: RegExp, code = 'invalid_info_xml'): AppError {
  try {
    parse(name);
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code);
    const entries = Object.entries(error.errors ?? { [error.detail]: [error.detail] });
    const hit = entries.find(([key, messages]) => where.test(key) && messages.some((m) => message.test(m)));
    assert.ok(hit, `${name}: expected ${where} → ${message}; got ${error.detail} ${JSON.stringify(error.errors)}`);
    return error;
  }
  assert.fail(`${name} was accepted`);
}

describe('parseManifest: accepted', () => {
  test('minimal.xml', () => {
    assert.deepEqual(parse('minimal.xml'), {
      donations: [],
      app: {
        id: 'news',
        categories: ['multimedia'],
        authors: [{ name: 'Bernhard Posselt', mail: '', homepage: '' }],
        userDocs: '',
        adminDocs: '',
        developerDocs: '',
        issueTracker: 'https://github.com/nextcloud/news/issues',
        website: '',
        discussion: '',
        screenshots: [],
        translations: {
          en: { name: 'News', summary: 'An RSS/Atom feed reader', description: 'An RSS/Atom feed reader' },
        },
      },
      release: {
        version: '8.8.2',
        phpExtensions: [],
        databases: [],
        shellCommands: [],
        phpVersionSpec: '*',
        rawPhpVersionSpec: '*',
        platformVersionSpec: '>=31.0.0 <33.0.0',
        rawPlatformVersionSpec: '>=31 <=32',
        minIntSize: 32,
        licenses: ['AGPL-3.0-or-later'],
        externalApp: null,
      },
    });
  });

  // The original's AppAPI import cases (test_appapi, test_appapi_minimal, test_full, test_import_minimal).
  test('exapp-full.xml: an ExApp with its image, scopes in order, system, environment variables; <routes> left alone', () => {
    const { app, release } = parse('exapp-full.xml');
    assert.equal(app.id, 'aa_skeleton');
    assert.equal(app.developerDocs, 'https://cloud-py-api.github.io/nc_py_api/');
    assert.equal(release.version, '2.0.0');
    assert.equal(release.platformVersionSpec, '>=31.0.0 <32.0.0');
    assert.equal(release.rawPlatformVersionSpec, '>=31 <=31');
    assert.deepEqual(release.licenses, ['AGPL-3.0-or-later']);
    assert.deepEqual(release.externalApp, {
      isSystem: true,
      dockerInstall: { registry: 'ghcr.io', image: 'cloud-py-api/skeleton', imageTag: '1.0.0' },
      scopes: ['FILES', 'NOTIFICATIONS', 'TALK'],
      environmentVariables: [
        {
          name: 'SOME_VALUE1',
          displayName: 'Display name 1',
          description: 'Some useful description of it',
          default: null,
        },
        {
          name: 'SOME_VALUE2',
          displayName: 'Display name 2',
          description: "Example of second variable with the 'default' value",
          default: '0',
        },
      ],
    });
  });

  test('exapp-minimal.xml: image tag latest, no scopes, not a system app', () => {
    assert.deepEqual(parse('exapp-minimal.xml').release.externalApp, {
      isSystem: false,
      dockerInstall: { registry: 'ghcr.io', image: 'cloud-py-api/skeleton', imageTag: 'latest' },
      scopes: [],
      environmentVariables: [],
    });
  });

  test('full.xml: every field', () => {
    const { app, release } = parse('full.xml');
    assert.deepEqual(app.categories, ['multimedia', 'tools']);
    assert.deepEqual(app.authors, [
      { name: 'Bernhard Posselt', mail: 'mail@provider.com', homepage: 'http://example.com' },
      { name: 'Alessandro Cosentino', mail: '', homepage: '' },
      { name: 'Jan-Christoph Borchardt', mail: '', homepage: '' },
    ]);
    assert.equal(app.userDocs, 'https://github.com/owncloud/news/wiki#user-documentation');
    assert.equal(app.adminDocs, 'https://github.com/owncloud/news#readme');
    assert.equal(app.developerDocs, 'https://github.com/owncloud/news/wiki#developer-documentation');
    assert.equal(app.website, 'https://github.com/owncloud/news');
    assert.equal(app.discussion, 'https://help.nextcloud.com/c/apps/news');
    assert.deepEqual(app.screenshots, [
      { url: 'https://example.com/1.png', smallThumbnail: 'https://example.com/1-thumb.png' },
      { url: 'https://example.com/2.jpg', smallThumbnail: '' },
    ]);
    assert.deepEqual(app.translations, {
      de: { name: 'Nachrichten', summary: 'An RSS/Atom feed reader', description: 'Ein RSS-Reader' },
      en: { name: 'News', summary: 'An RSS/Atom feed reader', description: '#This is markdown' },
    });
    assert.deepEqual(release.databases, [
      { id: 'pgsql', versionSpec: '>=9.4.0', rawVersionSpec: '>=9.4' },
      { id: 'sqlite', versionSpec: '*', rawVersionSpec: '*' },
      { id: 'mysql', versionSpec: '>=5.5.0', rawVersionSpec: '>=5.5' },
    ]);
    assert.deepEqual(release.phpExtensions, [
      { id: 'libxml', versionSpec: '>=2.7.8', rawVersionSpec: '>=2.7.8' },
      { id: 'curl', versionSpec: '*', rawVersionSpec: '*' },
      { id: 'SimpleXML', versionSpec: '*', rawVersionSpec: '*' },
      { id: 'iconv', versionSpec: '*', rawVersionSpec: '*' },
    ]);
    assert.deepEqual(release.shellCommands, ['grep', 'ls']);
    assert.deepEqual([release.phpVersionSpec, release.rawPhpVersionSpec, release.minIntSize], ['>=5.6.0', '>=5.6', 64]);
    assert.deepEqual([release.platformVersionSpec, release.rawPlatformVersionSpec], ['>=9.0.0 <11.0.0', '>=9 <=10']);
    assert.deepEqual(release.licenses, ['agpl']);
  });

  test('pre-release versions, digits in ids, patch-level platform bounds, php max only', () => {
    assert.equal(parse('prerelease.xml').release.version, '1.0.0-alpha.1');
    assert.equal(parse('digit-id.xml').app.id, 'twofactor_u2f');
    assert.deepEqual(
      [
        parse('nextcloud-patch-levels.xml').release.platformVersionSpec,
        parse('nextcloud-patch-levels.xml').release.rawPlatformVersionSpec,
      ],
      ['>=9.0.1 <9.0.6', '>=9.0.1 <=9.0.5'],
    );
    assert.deepEqual(
      [parse('php-max-only.xml').release.phpVersionSpec, parse('php-max-only.xml').release.rawPhpVersionSpec],
      ['<7.2.0', '<=7.1'],
    );
  });

  test('defaults: category tools; summary from description; auth becomes security', () => {
    assert.deepEqual(parse('no-category.xml').app.categories, ['tools']);
    assert.equal(parse('minimal.xml').app.translations.en?.summary, 'An RSS/Atom feed reader');
    assert.deepEqual(parse('auth-category.xml').app.categories, ['security']);
  });

  test('partial translations are filled from English', () => {
    assert.deepEqual(parse('partial-translations.xml').app.translations.de, {
      name: 'News',
      summary: 'Ein RSS-Reader',
      description: 'Ein RSS-Reader',
    });
  });

  test('documentation ids are valid but not kept; licence aliases', () => {
    const docs = parse('doc-ids.xml').app;
    assert.deepEqual([docs.userDocs, docs.adminDocs, docs.developerDocs], ['', '', '']);
    assert.deepEqual(parse('alias-licences.xml').release.licenses, ['agpl', 'Apache-2.0', 'MIT', 'MPL-2.0']);
  });
});

describe('parseManifest: refused, naming the element and its line', () => {
  const cases: Array<[string, RegExp, RegExp]> = [
    ['four-part-version.xml', /^<version> line 6$/, /'0\.1\.4\.1' is not a semantic version/],
    ['build-metadata.xml', /^<version>/, /not a semantic version/],
    ['long-id.xml', /^<id> line 3$/, /39 characters long; at most 32/],
    ['bad-id.xml', /^<id>/, /not a valid app id/],
    ['no-id.xml', /^<id>$/, /is required/],
    ['two-ids.xml', /^<id> line 3$/, /only one <id>/],
    ['no-en-name.xml', /^<name>$/, /English <name>/],
    ['no-en-description.xml', /^<description>$/, /English <description>/],
    ['no-en-summary.xml', /^<summary>$/, /English <summary>/],
    ['duplicate-lang.xml', /^<name> line 4$/, /a second <name> for lang="en"/],
    ['empty-name.xml', /^<name>/, /is empty/],
    ['long-name.xml', /^<name>/, /129 characters long; at most 128/],
    ['no-licence.xml', /^<licence>$/, /at least one <licence>/],
    ['unknown-licence.xml', /^<licence> line 7$/, /'AGPLv3' is not a licence this store knows/],
    ['license-spelling.xml', /^<license>/, /spell it <licence>/],
    ['no-author.xml', /^<author>$/, /at least one <author>/],
    ['bad-author-mail.xml', /^<author>/, /not an e-mail address/],
    ['no-bugs.xml', /^<bugs>$/, /is required/],
    [
      'http-bugs.xml',
      /^<bugs>/,
      /'ftp:\/\/github\.com\/nextcloud\/news\/issues' must be an http:\/\/ or https:\/\/ address, not ftp/,
    ],
    [
      'unknown-category.xml',
      /^<category> line 9$/,
      /category 'productivity' does not exist; valid ones: ai, customization/,
    ],
    ['duplicate-category.xml', /^<category>/, /given twice/],
    ['switched-doc-ids.xml', /^<user>/, /'admin-test' is not an absolute URL: use https:\/\/…/],
    ['http-docs.xml', /^<user>/, /must be an https:\/\/ address, not http$/],
    ['eleven-screenshots.xml', /^<screenshot>/, /at most 10 screenshots/],
    ['http-screenshot.xml', /^<screenshot>/, /must be an https:\/\/ address, not http$/],
    ['http-thumbnail.xml', /^<screenshot>/, /small-thumbnail/],
    ['no-dependencies.xml', /^<dependencies>$/, /is required/],
    ['no-nextcloud.xml', /^<nextcloud>$/, /is required inside <dependencies>/],
    ['nextcloud-no-max.xml', /^<nextcloud> line \d+$/, /max-version is required/],
    [
      'nextcloud-four-parts.xml',
      /^<nextcloud>/,
      /min-version="31\.0\.0\.1" is not a version Nextcloud servers can read/,
    ],
    ['nextcloud-text-version.xml', /^<nextcloud>/, /max-version="latest" is not a version/],
    ['nextcloud-min-above-max.xml', /^<nextcloud>/, /min-version 32 is above max-version 31/],
    ['php-bad-int-size.xml', /^<php>/, /min-int-size="16" must be 32 or 64/],
    ['bad-database.xml', /^<database>/, /'oracle' is not one of sqlite, mysql, pgsql/],
    ['bad-command.xml', /^<command>/, /may hold only letters/],
    ['bad-job.xml', /^<job>/, /not a PHP class name/],
    ['bad-route.xml', /^<route>/, /app\.controller\.method/],
    ['deprecated.xml', /^<shipped> line \d+$/, /no longer supported/],
    ['exapp-no-docker.xml', /^<external-app> line \d+$/, /<docker-install> is required in <external-app>/],
    ['exapp-bad-image.xml', /^<image>/, /'Cloud-Py-Api\/Skeleton' is not an image name/],
    ['exapp-no-tag.xml', /^<docker-install>/, /<image-tag> is required in <docker-install>/],
    ['exapp-old-scopes.xml', /^<required>/, /<scopes> lists each scope in a <value>.*older AppAPI schema/],
    ['exapp-bad-scope.xml', /^<value>/, /'files' is not an API scope name/],
    ['exapp-bad-system.xml', /^<system>/, /'yes' must be true or false/],
    ['exapp-bad-variable.xml', /^<variable>/, /<name> is required in <variable>/],
    ['exapp-twice.xml', /^<external-app>/, /only one <external-app> is allowed/],
  ];
  for (const [file, where, message] of cases) {
    test(file, () => {
      const error = refused(file, where, message);
      assert.match(error.detail, /^info\.xml: </);
    });
  }

  test('every problem is listed, the first in the message', () => {
    const error = refused('deprecated.xml', /^<standalone>/, /no longer supported/);
    assert.match(
      error.detail,
      /^info\.xml: <shipped> line \d+: <shipped> is no longer supported.* \(and 1 more problem\)$/,
    );
  });
});

describe('parseXmlDocument: hostile or broken XML', () => {
  const refusedXml = (name: string, message: RegExp) =>
    assert.throws(
      () => parseXmlDocument(manifest(name), 'info.xml'),
      (error: unknown) => error instanceof AppError && error.code === 'invalid_info_xml' && message.test(error.detail),
    );
  test('malformed, with the line', () =>
    refusedXml('broken.xml', /^info\.xml: malformed XML: line 4: Opening and ending tag mismatch/));
  test('billion laughs: the DOCTYPE is refused before parsing', () =>
    refusedXml('billion-laughs.xml', /^info\.xml: line 2: a DOCTYPE or entity declaration is not allowed/));
  test('external entities: refused the same way', () =>
    refusedXml('external-entity.xml', /DOCTYPE or entity declaration is not allowed/));
  test('an undefined entity is malformed', () =>
    refusedXml('undefined-entity.xml', /malformed XML: line 4: Entity 'undefined' not defined/));
  test('invalid UTF-8', () => refusedXml('invalid-utf8.xml', /^info\.xml: not valid UTF-8/));
  test('another declared encoding', () =>
    refusedXml('latin1-declared.xml', /encoding="ISO-8859-1"; info\.xml must be UTF-8/));
  test('a root other than <info>', () =>
    assert.throws(() => parse('not-info-root.xml'), /the root element is <app>; it must be <info>/));
});
