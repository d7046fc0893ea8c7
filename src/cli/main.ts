import { ConfigError } from '../config.ts';
import { isAppError } from '../errors.ts';
import { CliError } from './command.ts';
import type { Command } from './command.ts';
import { categoryImportCommand, platformImportCommand } from './commands/catalog-import.command.ts';
import { appMaintainerAddCommand, appMaintainerRemoveCommand, appSetCommand, appTransferCommand } from './commands/app.command.ts';
import { caInitCommand, caIssueCommand, caRevokeCommand } from './commands/ca.command.ts';
import { migrateCommand } from './commands/migrate.command.ts';
import { releaseInspectCommand } from './commands/release.command.ts';
import { serveCommand } from './commands/serve.command.ts';
import {
  userAddCommand,
  userDisableCommand,
  userEnableCommand,
  userListCommand,
  userPasswdCommand,
  userTokenCommand,
} from './commands/user.command.ts';

export const COMMANDS: readonly Command[] = [
  serveCommand,
  migrateCommand,
  userAddCommand,
  userTokenCommand,
  userPasswdCommand,
  userDisableCommand,
  userEnableCommand,
  userListCommand,
  categoryImportCommand,
  platformImportCommand,
  appMaintainerAddCommand,
  appMaintainerRemoveCommand,
  appSetCommand,
  appTransferCommand,
  caInitCommand,
  caIssueCommand,
  caRevokeCommand,
  releaseInspectCommand,
];

function overview(): string {
  const width = Math.max(...COMMANDS.map((c) => c.usage.length));
  const lines = COMMANDS.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`);
  return `Usage: appstore COMMAND [ARGS]\n\nCommands:\n${lines.join('\n')}\n\nRun 'appstore COMMAND --help' for a command's details. Configuration comes from APPSTORE_* environment variables (see the README).`;
}

const isHelp = (arg: string): boolean => arg === '--help' || arg === '-h' || arg === 'help';

/** Runs the command named by argv; returns the exit status. Messages go to stdout/stderr. */
export async function runCli(argv: readonly string[]): Promise<number> {
  if (argv.length === 0 || (argv.length === 1 && isHelp(argv[0] ?? ''))) {
    console.log(overview());
    return argv.length === 0 ? 2 : 0;
  }
  const command = COMMANDS.find((c) => c.path.every((word, i) => argv[i] === word));
  if (command === undefined) {
    const group = COMMANDS.filter((c) => c.path[0] === argv[0]);
    const hint = group.length > 0 ? `; did you mean: ${group.map((c) => c.usage).join(' | ')}` : "; run 'appstore --help'";
    console.error(`appstore: unknown command '${argv.slice(0, 2).join(' ')}'${hint}`);
    return 2;
  }
  const args = argv.slice(command.path.length);
  if (args.some(isHelp)) {
    console.log(`Usage: ${command.usage}\n\n${command.summary}.\n\n${command.help}`);
    return 0;
  }
  try {
    return await command.run(args);
  } catch (error) {
    return reportFailure(error);
  }
}

function reportFailure(error: unknown): number {
  if (error instanceof CliError) {
    console.error(`appstore: ${error.message}`);
    for (const line of error.details) console.error(`  ${line}`);
    return error.exitCode;
  }
  if (error instanceof ConfigError) {
    console.error(`appstore: invalid configuration: ${error.problems.join('; ')}`);
    return 2;
  }
  if (isAppError(error)) {
    console.error(`appstore: ${error.detail}`);
    for (const [field, messages] of Object.entries(error.errors ?? {})) {
      for (const message of messages) console.error(`  ${field}: ${message}`);
    }
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  console.error(`appstore: failed: ${message}`);
  return 1;
}
