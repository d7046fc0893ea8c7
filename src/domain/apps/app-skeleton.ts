import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import zlib from 'node:zlib';
import tar from 'tar-stream';
import { AppError } from '../../errors.ts';
import type { SaidFieldErrors } from '../../errors.ts';
import { appIdProblem } from '../app-id.ts';

/**
 * The app skeleton generator (the original's /developer/apps/generate, issue 52): a new
 * developer names the app and gets a .tar.gz this store accepts as it is (one folder named like
 * the app, appinfo/info.xml, the usual folders, a README saying what to do next). What it makes
 * is checked by the release reader in the tests and published.
 */
export interface SkeletonInput {
  readonly id: string;
  readonly name: string;
  readonly summary: string;
  readonly author: string;
  readonly email: string;
  readonly category: string;
  /** Nextcloud major versions, inclusive. */
  readonly min: string;
  readonly max: string;
  /** Where users report bugs (http or https); '' for the app's page on this store. */
  readonly bugs: string;
}

export interface Skeleton {
  readonly fileName: string;
  readonly bytes: Buffer;
}

const MAJOR = /^[1-9][0-9]?$/;
const xml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** news_reader → NewsReader: the app's PHP namespace (OCA\NewsReader). */
export const namespaceOf = (id: string): string =>
  id
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

function checked(input: SkeletonInput, categories: readonly string[], appPage: (id: string) => string): SkeletonInput {
  const errors: SaidFieldErrors = {};
  const problem = (field: string, message: Said): void => void (errors[field] ??= []).push(message);
  const id = input.id.trim();
  const idProblem = appIdProblem(id);
  if (idProblem !== null) problem('id', idProblem);
  const name = input.name.trim();
  if (name === '' || name.length > 80) problem('name', said`a name of 1 to 80 characters`);
  const summary = input.summary.trim() === '' ? `${name} for Nextcloud` : input.summary.trim();
  if (summary.length > 200) problem('summary', said`at most 200 characters`);
  const author = input.author.trim();
  if (author === '' || author.length > 100) problem('author', said`your name, 1 to 100 characters`);
  const email = input.email.trim();
  if (email !== '' && !/^[^\s@<>"]+@[^\s@<>"]+$/.test(email)) problem('email', said`an e-mail address, or nothing`);
  if (!categories.includes(input.category)) problem('category', said`one of ${categories.join(', ')}`);
  if (!MAJOR.test(input.min)) problem('min', said`a Nextcloud major version, such as 30`);
  if (!MAJOR.test(input.max)) problem('max', said`a Nextcloud major version, such as 32`);
  if (MAJOR.test(input.min) && MAJOR.test(input.max) && Number(input.min) > Number(input.max))
    problem('max', said`at least the lowest version`);
  let bugs = input.bugs.trim();
  if (bugs === '') bugs = appPage(id);
  else if (!/^https?:\/\/[^\s<>"]+$/.test(bugs)) problem('bugs', said`an http or https address`);
  const fields = Object.keys(errors);
  if (fields.length > 0) {
    const [first = ''] = fields;
    throw new AppError('invalid_request', said`Invalid request body: ${first}: ${errors[first]?.[0] ?? ''}.`, errors);
  }
  return { ...input, id, name, summary, author, email, bugs };
}

function files(input: SkeletonInput, today: string, store: string): Record<string, string> {
  const ns = namespaceOf(input.id);
  const author =
    input.email === ''
      ? `<author>${xml(input.author)}</author>`
      : `<author mail="${xml(input.email)}">${xml(input.author)}</author>`;
  return {
    'appinfo/info.xml': `<?xml version="1.0"?>
<info xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
      xsi:noNamespaceSchemaLocation="https://apps.nextcloud.com/schema/apps/info.xsd">
    <id>${input.id}</id>
    <name>${xml(input.name)}</name>
    <summary>${xml(input.summary)}</summary>
    <description><![CDATA[${input.summary.replace(/]]>/g, ']]&gt;')}]]></description>
    <version>0.1.0</version>
    <licence>AGPL-3.0-or-later</licence>
    ${author}
    <namespace>${ns}</namespace>
    <category>${input.category}</category>
    <bugs>${xml(input.bugs)}</bugs>
    <dependencies>
        <nextcloud min-version="${input.min}" max-version="${input.max}"/>
    </dependencies>
</info>
`,
    'lib/AppInfo/Application.php': `<?php

declare(strict_types=1);

namespace OCA\\${ns}\\AppInfo;

use OCP\\AppFramework\\App;
use OCP\\AppFramework\\Bootstrap\\IBootContext;
use OCP\\AppFramework\\Bootstrap\\IBootstrap;
use OCP\\AppFramework\\Bootstrap\\IRegistrationContext;

class Application extends App implements IBootstrap {
	public const APP_ID = '${input.id}';

	public function __construct() {
		parent::__construct(self::APP_ID);
	}

	public function register(IRegistrationContext $context): void {
	}

	public function boot(IBootContext $context): void {
	}
}
`,
    'templates/.gitkeep': '',
    'img/.gitkeep': '',
    'css/.gitkeep': '',
    'js/.gitkeep': '',
    'CHANGELOG.md': `# Changelog\n\n## 0.1.0 - ${today}\n\n### Added\n\n- First release\n`,
    'README.md': `# ${input.name}

${input.summary}

Made with the app store's skeleton generator. What to do next:

1. Put this folder in your Nextcloud's \`apps/\` (or \`custom_apps/\`) folder and enable it:
   \`occ app:enable ${input.id}\`. Write your code in \`lib/\`, templates in \`templates/\`.
2. Get a certificate for the app id \`${input.id}\` (the store's developer pages, "Get a certificate"),
   and register the app with it.
3. To release: raise \`<version>\` in \`appinfo/info.xml\`, add the version to \`CHANGELOG.md\`, then
   \`tar -czf ${input.id}.tar.gz ${input.id}\` from the folder above this one, sign it with
   \`openssl dgst -sha512 -sign ${input.id}.key ${input.id}.tar.gz | openssl base64 -A\`, and publish
   it on the store's publish page, or from CI:
   \`curl -H "Authorization: Token $TOKEN" -F archive=@${input.id}.tar.gz -F signature="$SIGNATURE" ${store}/api/v1/apps/releases\`.
`,
  };
}

/** The skeleton as a .tar.gz, or a 400 naming each field that is wrong. */
export async function generateSkeleton(
  input: SkeletonInput,
  categories: readonly string[],
  appPage: (id: string) => string,
  now: Date,
  /** The store's address, for the README's commands. */
  store: string,
): Promise<Skeleton> {
  const app = checked(input, categories, appPage);
  const pack = tar.pack();
  const mtime = now;
  pack.entry({ name: `${app.id}/`, type: 'directory', mode: 0o755, mtime });
  for (const [path, content] of Object.entries(files(app, now.toISOString().slice(0, 10), store))) {
    pack.entry({ name: `${app.id}/${path}`, mode: 0o644, mtime }, content);
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack.pipe(zlib.createGzip()) as AsyncIterable<Buffer>) chunks.push(chunk);
  return { fileName: `${app.id}.tar.gz`, bytes: Buffer.concat(chunks) };
}
