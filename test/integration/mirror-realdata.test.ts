import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { appIdOf, issuingAuthority, parseCertificate } from '../../src/domain/certificates/certificate-validator.ts';
import { loadTrust } from '../../src/domain/certificates/trust.ts';
import { DEFAULT_MIRROR_POLICY } from '../../src/domain/mirror/mirror-policy.ts';
import { syncMirror } from '../../src/domain/mirror/sync-mirror.ts';
import type { DocumentName } from '../../src/domain/mirror/mirror-ports.ts';
import { AppError } from '../../src/errors.ts';
import { mirrorRepository } from '../../src/storage/repositories/mirror.repository.ts';
import { TEST_ACTING } from '../helpers/acting.ts';
import { REALDATA, REALDATA_SKIP } from '../helpers/certificate-fixtures.ts';
import { DIALECT } from '../helpers/test-database.ts';
import { createTestServer } from '../helpers/test-server.ts';

const file = (...parts: string[]): string => path.join(REALDATA ?? '', ...parts);

describe(`mirror mode: the original's recorded 2016 apps.json as the upstream listing (${DIALECT})`, () => {
  test(
    'its certificates verify against the real root.crt and CRL; its archives are unavailable here, so each release is reported and none listed',
    { skip: REALDATA_SKIP },
    async () => {
      const listing = fs.readFileSync(file('responses', 'apps-2016-excerpt-server-AppFetcherTest.json'), 'utf8');
      const trust = await loadTrust(
        fs.readFileSync(file('codesigning', 'root.crt'), 'utf8'),
        fs.readFileSync(file('codesigning', 'root.crl'), 'utf8'),
        new Date(),
        () => undefined,
      );
      const apps = JSON.parse(listing) as { id: string; certificate: string; releases: unknown[] }[];
      for (const app of apps) {
        const certificate = parseCertificate(app.certificate);
        assert.ok(issuingAuthority(certificate, trust) !== null, `${app.id}: issued by the real authority`);
        assert.equal(appIdOf(certificate), app.id);
      }

      const server = await createTestServer();
      try {
        const documents: Record<DocumentName, string> = {
          categories: '[]',
          platforms: '[]',
          apps: listing,
          appapi_apps: '[]',
          discover: '[]',
        };
        const asked: string[] = [];
        const report = await syncMirror(TEST_ACTING, {
          upstream: {
            url: 'https://apps.nextcloud.com/api/v1',
            document: async (name) => ({ kind: 'fetched', body: documents[name], etag: null }),
            archive: async (url) => {
              asked.push(url);
              throw new AppError(
                'invalid_download',
                `download failed: the host ${new URL(url).hostname} was not found`,
              );
            },
            archiveSize: async () => null,
          },
          storage: server.container.mirror.storage,
          store: mirrorRepository(server.container.database.db),
          policy: { ...DEFAULT_MIRROR_POLICY, releases: 'all' },
          trust: async () => trust,
          archiveUrl: (appId, version) => `https://mirror.example.org/api/v1/archives/${appId}/${version}.tar.gz`,
          now: () => new Date(),
          log: () => undefined,
        });
        const releases = apps.reduce((sum, app) => sum + app.releases.length, 0);
        assert.ok(releases >= 9, 'the excerpt holds releases');
        assert.deepEqual(report.problems, [], 'every app of the 2016 schema is read');
        assert.equal(asked.length, releases, 'each archive was asked for at its recorded address');
        assert.equal(report.refused.length, releases);
        assert.ok(
          report.refused.every((r) =>
            /could not be downloaded: download failed: the host .* was not found/.test(r.reason),
          ),
        );
        assert.equal(report.taken, 0);
        const served = JSON.parse((await server.app.inject({ url: '/api/v1/apps.json' })).body) as unknown[];
        assert.deepEqual(served, [], 'nothing unverified is listed');
        const records = await server.container.database.db.selectFrom('mirror_releases').select(['status']).execute();
        assert.deepEqual([...new Set(records.map((r) => r.status))], ['unavailable']);
      } finally {
        await server.close();
      }
    },
  );
});
