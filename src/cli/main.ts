import fs from 'node:fs';
import { ConfigError } from '../config.ts';
import { isAppError } from '../errors.ts';
import { projectFile } from '../project-files.ts';
import { parseCommandArguments } from './arguments.ts';
import { CliError } from './command.ts';
import type { Command } from './command.ts';
import { appMaintainerAddCommand, appMaintainerRemoveCommand, appSetCommand, appTransferCommand } from './commands/app.command.ts';
import { caCertificateCommand, caInitCommand, caIssueCommand, caRevokeCommand, caRotateCommand } from './commands/ca.command.ts';
import { categoryImportCommand, platformImportCommand } from './commands/catalog-import.command.ts';
import { discoverExportCommand, discoverImportCommand } from './commands/discover.command.ts';
import { migrateCommand } from './commands/migrate.command.ts';
import { releaseInspectCommand } from './commands/release.command.ts';
import { auditCommand } from './commands/audit.command.ts';
import { backupCommand } from './commands/backup.command.ts';
import { secretKeyRotateCommand } from './commands/secret-key.command.ts';
import { serveCommand } from './commands/serve.command.ts';
import {
  userAddCommand,
  userInviteCommand,
  userDisableCommand,
  userEnableCommand,
  userListCommand,
  userPasswdCommand,
  userTokenCommand,
} from './commands/user.command.ts';
import { processIo } from './io.ts';
import type { CliIo } from './io.ts';

export const COMMANDS: readonly Command[] = [
  serveCommand,
  migrateCommand,
  userAddCommand,
  userInviteCommand,
  userTokenCommand,
  userPasswdCommand,
  userDisableCommand,
  userEnableCommand,
  userListCommand,
  categoryImportCommand,
  platformImportCommand,
  discoverImportCommand,
  discoverExportCommand,
  appMaintainerAddCommand,
  appMaintainerRemoveCommand,
  appSetCommand,
  appTransferCommand,
  caInitCommand,
  caIssueCommand,
  caRevokeCommand,
  caCertificateCommand,
  caRotateCommand,
  releaseInspectCommand,
  secretKeyRotateCommand,
  auditCommand,
  backupCommand,
];

function table(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.usage.length));
  return commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`).join('\n');
}

function overview(): string {
  return `Usage: appstore COMMAND [ARGS]\n\nCommands:\n${table(COMMANDS)}\n\nRun 'appstore COMMAND --help' for a command's details, 'appstore --version' for the version. Configuration comes from APPSTORE_* environment variables (see the README).`;
}

function version(): string {
  const manifest = JSON.parse(fs.readFileSync(projectFile('package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

const isHelp = (arg: string): boolean => arg === '--help' || arg === '-h' || arg === 'help';

/** Runs the command named by argv; returns the exit status. Messages go to the io's streams. */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [first = ''] = argv;
  if (argv.length === 0 || (argv.length === 1 && isHelp(first))) {
    io.out(overview());
    return argv.length === 0 ? 2 : 0;
  }
  if (argv.length === 1 && (first === '--version' || first === '-V')) {
    io.out(`appstore ${version()}`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.path.every((word, i) => argv[i] === word));
  if (command === undefined) return unknownCommand(argv, io);
  const args = argv.slice(command.path.length);
  if (args.some(isHelp)) {
    io.out(`Usage: ${command.usage}\n\n${command.summary}.\n\n${command.help}`);
    return 0;
  }
  try {
    return await command.run(parseCommandArguments(command, args), io);
  } catch (error) {
    return reportFailure(error, io);
  }
}

/** `appstore ca --help` lists the ca commands; an unknown word says what exists. */
function unknownCommand(argv: readonly string[], io: CliIo): number {
  const group = COMMANDS.filter((c) => c.path[0] === argv[0]);
  const rest = argv.slice(1);
  if (group.length > 0 && (rest.length === 0 || (rest.length === 1 && isHelp(rest[0] ?? '')))) {
    const asked = rest.length === 1;
    const say = asked ? io.out : io.err;
    say(`Usage: appstore ${argv[0]} SUBCOMMAND [ARGS]\n\n${table(group)}\n\nRun 'appstore ${argv[0]} SUBCOMMAND --help' for a command's details.`);
    return asked ? 0 : 2;
  }
  const hint = group.length > 0 ? `; did you mean: ${group.map((c) => c.usage).join(' | ')}` : "; run 'appstore --help'";
  io.err(`appstore: unknown command '${argv.slice(0, 2).join(' ')}'${hint}`);
  return 2;
}

function reportFailure(error: unknown, io: CliIo): number {
  if (error instanceof CliError) {
    io.err(`appstore: ${error.message}`);
    for (const line of error.details) io.err(`  ${line}`);
    return error.exitCode;
  }
  if (error instanceof ConfigError) {
    io.err(`appstore: invalid configuration: ${error.problems.join('; ')}`);
    return 2;
  }
  if (isAppError(error)) {
    io.err(`appstore: ${error.detail}`);
    for (const [field, messages] of Object.entries(error.errors ?? {})) {
      for (const message of messages) io.err(`  ${field}: ${message}`);
    }
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.err(`appstore: failed: ${message}`);
  return 1;
}
