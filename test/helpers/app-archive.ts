import { sign } from 'node:crypto';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { readCert } from './certificate-fixtures.ts';

/** A .tar.gz in memory with the given files (paths inside the archive → contents). */
export async function buildArchive(files: Record<string, string | Buffer>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files))
    pack.entry({ name, mtime: new Date('2024-01-01T00:00:00Z') }, content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return zlib.gzipSync(Buffer.concat(chunks));
}

export interface ManifestOptions {
  readonly id?: string;
  readonly version?: string;
  readonly name?: string;
  /** <summary> (default: A feed reader). */
  readonly summary?: string;
  readonly website?: string;
  readonly category?: string;
  /** <nextcloud min-version max-version> (default 30 and 32). */
  readonly nextcloud?: readonly [string, string];
  readonly extra?: string;
  /** `<screenshot>` addresses, in order. */
  readonly screenshots?: readonly string[];
  /** Markdown for <description> (in CDATA, so it may hold markup). */
  readonly description?: string;
}

export function manifestXml(options: ManifestOptions = {}): string {
  return `<?xml version="1.0"?>
<info>
  <id>${options.id ?? 'news'}</id>
  <name>${options.name ?? 'News'}</name>
  <summary>${options.summary ?? 'A feed reader'}</summary>
  <description>${options.description === undefined ? 'An RSS/Atom feed reader' : `<![CDATA[${options.description}]]>`}</description>
  <version>${options.version ?? '1.0.0'}</version>
  <licence>AGPL-3.0-or-later</licence>
  <author mail="dev@example.org">A Developer</author>
  <category>${options.category ?? 'multimedia'}</category>
  ${options.website === undefined ? '' : `<website>${options.website}</website>`}
  <bugs>https://example.org/issues</bugs>
  ${(options.screenshots ?? []).map((url) => `<screenshot>${url}</screenshot>`).join('\n  ')}
  <dependencies><nextcloud min-version="${options.nextcloud?.[0] ?? '30'}" max-version="${options.nextcloud?.[1] ?? '32'}"/></dependencies>
  ${options.extra ?? ''}
</info>`;
}

/** An app archive for `id` (folder = id unless `folder` says otherwise) with a changelog, and `icon` as img/app.svg when given. */
export function appArchive(options: ManifestOptions & { folder?: string; icon?: string } = {}): Promise<Buffer> {
  const folder = options.folder ?? options.id ?? 'news';
  return buildArchive({
    [`${folder}/appinfo/info.xml`]: manifestXml(options),
    [`${folder}/CHANGELOG.md`]: `## [Unreleased]\n- nightly work\n\n## ${options.version ?? '1.0.0'}\n- this release\n`,
    [`${folder}/lib/Application.php`]: '<?php\n',
    ...(options.icon === undefined ? {} : { [`${folder}/img/app.svg`]: options.icon }),
  });
}

/** base64 RSA SHA-512 signature with a fixture key (`news`, `notes`, `mail-revoked`, …). */
export function signWith(keyName: string, data: Buffer | string): string {
  return sign('sha512', typeof data === 'string' ? Buffer.from(data) : data, readCert(`${keyName}.key`)).toString(
    'base64',
  );
}
