import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { certFile } from './certificate-fixtures.ts';
import { ROOT } from './run-cli.ts';

const run = promisify(execFile);
const INSTALLER = path.join(ROOT, 'test', 'helpers', 'nextcloud-installer.php');
/** The PHP functions a Nextcloud server's Installer uses: curl, openssl, Phar, SimpleXML. */
const PHP_PROBE =
  'exit(function_exists("curl_init") && function_exists("openssl_verify") && class_exists("PharData") && function_exists("simplexml_load_file") ? 0 : 1);';

/** Why the installer cannot run here (a reason to skip), or null when it can. */
export async function phpMissing(): Promise<string | null> {
  try {
    await run('php', ['-r', PHP_PROBE]);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'php is not installed'
      : 'php lacks curl, openssl, Phar or SimpleXML';
  }
}

/**
 * What a Nextcloud server's Installer does (nextcloud-installer.php) against the store at `api`
 * (…/api/v1), with `root` as its code-signing root: installs `appId` into `appsDir`, or says
 * whether an update is available. The exit status and what it printed.
 */
export async function nextcloudInstaller(
  command: 'install' | 'update-available',
  options: { api: string; appId: string; appsDir: string; root?: string },
): Promise<{ code: number; out: string }> {
  const root = options.root ?? certFile('chain.pem');
  try {
    const { stdout } = await run('php', [
      INSTALLER,
      command,
      options.api,
      options.appId,
      root,
      certFile('empty.crl'),
      options.appsDir,
    ]);
    return { code: 0, out: stdout.trim() };
  } catch (error) {
    const failed = error as { code?: number; stderr?: string };
    return { code: failed.code ?? -1, out: (failed.stderr ?? '').trim() };
  }
}
