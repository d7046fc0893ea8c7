import os from 'node:os';
import { cliActing } from './domain/audit/audit.ts';
import type { Acting } from './domain/audit/audit.ts';

/**
 * This process as the audit log names it (the `appstore` command, or the server acting on its
 * own, as when it creates the authority on first start): the operating-system user, and who ran
 * sudo when someone did.
 */
export function processActing(env: Readonly<Record<string, string | undefined>> = process.env): Acting {
  let name: string;
  try {
    name = os.userInfo().username;
  } catch {
    name = `uid ${process.getuid?.() ?? '?'}`;
  }
  const sudo = env.SUDO_USER;
  return cliActing(sudo !== undefined && sudo !== '' && sudo !== name ? `${name} (sudo by ${sudo})` : name);
}
