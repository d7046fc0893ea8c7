// Fills a fresh database with a catalogue the size of the original store's: about 600 apps and
// 20,000 releases, with real-sized certificates (4096-bit RSA), 4096-bit signatures, changelogs
// and a few translations, so that apps.json is about 20 MB. Rows go straight into the tables,
// with each release's listing text written as the store's own writes write it.
import { randomBytes } from 'node:crypto';
import type { DatabaseHandle } from '../src/storage/database.ts';
import { formatTimestamp } from '../src/domain/timestamps.ts';
import { writeTransaction } from '../src/storage/write-transaction.ts';
import { writeReleaseListingText } from '../src/storage/repositories/listed-release.repository.ts';

const CATEGORIES = [
  'customization',
  'files',
  'integration',
  'multimedia',
  'office',
  'organization',
  'security',
  'social',
  'tools',
  'games',
];
const LANGUAGES = ['de', 'fr', 'es', 'it', 'nl'];
const lorem = (words: number): string =>
  Array.from(
    { length: words },
    (_, i) => ['store', 'apps', 'cloud', 'files', 'sync', 'share', 'calendar', 'mail', 'notes', 'secure'][i % 10],
  ).join(' ');

export async function generateCatalogue(
  handle: DatabaseHandle,
  certificatePem: string,
  apps = 600,
  releasesPerApp = 33,
): Promise<void> {
  const { db } = handle;
  const now = formatTimestamp(new Date());
  await writeTransaction(db, new Date(), async (trx) => {
    await trx
      .insertInto('categories')
      .values(CATEGORIES.map((id) => ({ id, created_at: now, updated_at: now })))
      .execute();
    await trx
      .insertInto('category_translations')
      .values(CATEGORIES.map((id) => ({ category_id: id, language: 'en', name: id, description: '' })))
      .execute();
    await trx
      .insertInto('platform_releases')
      .values(
        [28, 29, 30, 31, 32].map((major) => ({
          version: `${major}.0.0`,
          version_major: major,
          version_minor: 0,
          version_patch: 0,
          has_release: true,
          is_supported: major >= 30,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    const owner = await trx
      .insertInto('users')
      .values({ username: 'bench', first_name: 'Bench', last_name: 'Mark', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (let a = 0; a < apps; a++) {
      const id = `app_${a.toString().padStart(4, '0')}`;
      await trx
        .insertInto('apps')
        .values({
          id,
          owner_id: owner.id,
          certificate: certificatePem,
          user_docs: `https://docs.example.org/${id}/user`,
          issue_tracker: `https://github.com/example/${id}/issues`,
          website: `https://github.com/example/${id}`,
          created_at: now,
          updated_at: now,
          last_release_at: now,
        })
        .execute();
      const languages = ['en', ...LANGUAGES.slice(0, a % 4)];
      await trx
        .insertInto('app_translations')
        .values(
          languages.map((language) => ({
            app_id: id,
            language,
            name: `App ${a} (${language})`,
            summary: lorem(12),
            description: lorem(90),
          })),
        )
        .execute();
      await trx
        .insertInto('app_authors')
        .values([
          { app_id: id, position: 0, name: 'A Developer', mail: 'dev@example.org', homepage: 'https://example.org' },
        ])
        .execute();
      await trx
        .insertInto('app_categories')
        .values([{ app_id: id, category_id: CATEGORIES[a % CATEGORIES.length] ?? 'tools', position: 0 }])
        .execute();
      await trx
        .insertInto('app_screenshots')
        .values([
          {
            app_id: id,
            position: 0,
            url: `https://example.org/${id}/1.png`,
            small_thumbnail: `https://example.org/${id}/1-small.png`,
          },
        ])
        .execute();
      for (let r = 0; r < releasesPerApp; r++) {
        const major = 28 + (r % 5);
        const release = await trx
          .insertInto('releases')
          .values({
            app_id: id,
            version: `${Math.floor(r / 3)}.${r % 3}.0`,
            is_nightly: false,
            download: `https://github.com/example/${id}/releases/download/v${r}/${id}.tar.gz`,
            signature: randomBytes(512).toString('base64'),
            archive_sha256: randomBytes(32).toString('hex'),
            archive_size: 1_000_000,
            php_version_spec: '>=8.1.0',
            raw_php_version_spec: '>=8.1',
            platform_version_spec: `>=${major}.0.0 <${major + 3}.0.0`,
            raw_platform_version_spec: `>=${major} <=${major + 2}`,
            created_at: now,
            updated_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('release_licenses')
          .values({ release_id: release.id, position: 0, license: 'AGPL-3.0-or-later' })
          .execute();
        await trx
          .insertInto('release_databases')
          .values([
            { release_id: release.id, position: 0, name: 'pgsql', version_spec: '>=12.0.0', raw_version_spec: '>=12' },
          ])
          .execute();
        await trx
          .insertInto('release_translations')
          .values({ release_id: release.id, language: 'en', changelog: `- ${lorem(6)}` })
          .execute();
        // As the store's own writes do (replaceReleaseDetails): the release's listing text.
        await writeReleaseListingText(trx, release.id);
      }
    }
    return { changed: true, result: undefined };
  });
}
