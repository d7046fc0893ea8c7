import fs from 'node:fs';
import { CONFIG_VARIABLES, ConfigError, unknownVariables } from '../config/config.ts';
import { isAppError } from '../errors.ts';
import { projectFile } from '../project-files.ts';
import { parseCommandArguments } from './arguments.ts';
import { CliError } from './command.ts';
import { closest, DEFAULT_COLUMNS, wrap } from './text.ts';
import type { Command } from './command.ts';
import {
  appMaintainerAddCommand,
  appMaintainerRemoveCommand,
  appSetCommand,
  appTransferCommand,
} from './commands/app.command.ts';
import {
  caCertificateCommand,
  caInitCommand,
  caIssueCommand,
  caRevokeCommand,
  caRotateCommand,
} from './commands/ca.command.ts';
import { archivesCheckCommand, archivesKeepCommand } from './commands/archives.command.ts';
import {
  subscriptionKeyAddCommand,
  subscriptionKeyListCommand,
  subscriptionKeyRevokeCommand,
} from './commands/subscription-key.command.ts';
import { appDeprecateCommand, appOrphanCommand, releaseRetireCommand } from './commands/app-status.command.ts';
import { categoryImportCommand, platformImportCommand } from './commands/catalog-import.command.ts';
import { discoverExportCommand, discoverImportCommand } from './commands/discover.command.ts';
import {
  mirrorExportCommand,
  mirrorImportCommand,
  mirrorPlanCommand,
  mirrorStatusCommand,
  mirrorSyncCommand,
} from './commands/mirror.command.ts';
import { migrateCommand } from './commands/migrate.command.ts';
import { releaseInspectCommand } from './commands/release.command.ts';
import { auditCommand } from './commands/audit.command.ts';
import { backupCommand } from './commands/backup.command.ts';
import { restoreCommand } from './commands/restore.command.ts';
import { secretKeyRotateCommand } from './commands/secret-key.command.ts';
import { twoFactorRequireCommand } from './commands/two-factor.command.ts';
import {
  trustedIssuerAddCommand,
  trustedIssuerListCommand,
  trustedIssuerRemoveCommand,
  trustedPublisherAddCommand,
  trustedPublisherListCommand,
  trustedPublisherRemoveCommand,
} from './commands/trusted-publishing.command.ts';
import { serveCommand } from './commands/serve.command.ts';
import {
  userAddCommand,
  userInviteCommand,
  userDisableCommand,
  userAdminCommand,
  userEnableCommand,
  userListCommand,
  userPasswdCommand,
  userTokenCommand,
} from './commands/user.command.ts';
import { processIo } from './io.ts';
import type { CliIo } from './io.ts';

export { processIo };
export { loadOnDemandParts } from './on-demand-parts.ts';

export const COMMANDS: readonly Command[] = [
  serveCommand,
  migrateCommand,
  userAddCommand,
  userInviteCommand,
  userTokenCommand,
  userPasswdCommand,
  userDisableCommand,
  userEnableCommand,
  userAdminCommand,
  userListCommand,
  categoryImportCommand,
  platformImportCommand,
  discoverImportCommand,
  discoverExportCommand,
  mirrorSyncCommand,
  mirrorPlanCommand,
  mirrorStatusCommand,
  mirrorExportCommand,
  mirrorImportCommand,
  archivesKeepCommand,
  archivesCheckCommand,
  appMaintainerAddCommand,
  appMaintainerRemoveCommand,
  appSetCommand,
  appTransferCommand,
  appDeprecateCommand,
  appOrphanCommand,
  caInitCommand,
  caIssueCommand,
  caRevokeCommand,
  caCertificateCommand,
  caRotateCommand,
  releaseInspectCommand,
  releaseRetireCommand,
  subscriptionKeyAddCommand,
  subscriptionKeyListCommand,
  subscriptionKeyRevokeCommand,
  trustedIssuerAddCommand,
  trustedIssuerListCommand,
  trustedIssuerRemoveCommand,
  trustedPublisherAddCommand,
  trustedPublisherListCommand,
  trustedPublisherRemoveCommand,
  twoFactorRequireCommand,
  secretKeyRotateCommand,
  auditCommand,
  backupCommand,
  restoreCommand,
];

/** Each command: its usage (wrapped), then what it does, indented below it. */
function table(commands: readonly Command[], width: number): string {
  return commands
    .map((c) => `${wrap(c.usage, width, '  ').replace(/\n {2}/g, '\n      ')}\n${wrap(c.summary, width, '      ')}`)
    .join('\n');
}

function overview(width: number): string {
  const closing = wrap(
    "Run 'appstore COMMAND --help' for a command's details, 'appstore --version' for the version. Configuration comes from APPSTORE_* environment variables (see the README).",
    width,
  );
  return `Usage: appstore COMMAND [ARGS]\n\nCommands:\n${table(COMMANDS, width)}\n\n${closing}`;
}

function version(): string {
  const manifest = JSON.parse(fs.readFileSync(projectFile('package.json'), 'utf8')) as { version: string };
  return manifest.version;
}

const isHelp = (arg: string): boolean => arg === '--help' || arg === '-h' || arg === 'help';

/** Runs the command named by argv; returns the exit status. Messages go to the io's streams. */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const [first = ''] = argv;
  const width = io.columns ?? DEFAULT_COLUMNS;
  if (argv.length === 0 || (argv.length === 1 && isHelp(first))) {
    io.out(overview(width));
    return argv.length === 0 ? 2 : 0;
  }
  if (argv.length === 1 && (first === '--version' || first === '-V')) {
    io.out(`appstore ${version()}`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.path.every((word, i) => argv[i] === word));
  if (command === undefined) return unknownCommand(argv, io, width);
  const args = argv.slice(command.path.length);
  // `serve` says it in its log; every other command on its errors, before it runs.
  if (command !== serveCommand) for (const line of unknownVariableWarnings(io.env)) io.err(line);
  if (args.some(isHelp)) {
    io.out(
      `${wrap(`Usage: ${command.usage}`, width - 4).replace(/\n/g, '\n    ')}\n\n${wrap(`${command.summary}.`, width)}\n\n${wrap(command.help, width)}`,
    );
    return 0;
  }
  try {
    return await command.run(parseCommandArguments(command, args), io);
  } catch (error) {
    return reportFailure(error, io);
  }
}

/**
 * A group of commands (`appstore ca`, `appstore app maintainer --help`) lists its commands; an
 * unknown word names the command closest to it when there is one (`user lst`: `user list`), else
 * the words that would do.
 */
function unknownCommand(argv: readonly string[], io: CliIo, width: number): number {
  let prefix: string[] = [];
  while (
    prefix.length < argv.length &&
    COMMANDS.some(
      (c) =>
        c.path.length > prefix.length + 1 && [...prefix, argv[prefix.length]].every((word, i) => c.path[i] === word),
    )
  ) {
    prefix = [...prefix, argv[prefix.length] ?? ''];
  }
  const group = COMMANDS.filter((c) => prefix.every((word, i) => c.path[i] === word));
  const rest = argv.slice(prefix.length);
  const named = prefix.join(' ');
  if (prefix.length > 0 && (rest.length === 0 || (rest.length === 1 && isHelp(rest[0] ?? '')))) {
    const asked = rest.length === 1;
    const say = asked ? io.out : io.err;
    say(
      `Usage: appstore ${named} SUBCOMMAND [ARGS]\n\n${table(group, width)}\n\n${wrap(`Run 'appstore ${named} SUBCOMMAND --help' for a command's details.`, width)}`,
    );
    return asked ? 0 : 2;
  }
  const words = [...new Set(group.map((c) => c.path[prefix.length] ?? ''))];
  const typed = rest[0] ?? '';
  const meant = closest(typed, words);
  const whole = [...prefix, typed].join(' ');
  const hint =
    meant !== null
      ? `; did you mean 'appstore ${[...prefix, meant].join(' ')}'?`
      : prefix.length > 0
        ? `; the ${named} commands are: ${words.join(', ')}`
        : "; run 'appstore --help'";
  io.err(`appstore: unknown command '${whole}'${hint}`);
  return 2;
}

/** `APPSTORE_*` variables the store does not read: most likely typos, named with what was meant. */
function unknownVariableWarnings(env: CliIo['env']): string[] {
  const known = CONFIG_VARIABLES.map((name) => name.toLowerCase());
  return unknownVariables(env).map((name) => {
    const meant = closest(name.toLowerCase(), known);
    return `appstore: warning: ${name} is not a setting of this store and is ignored${meant === null ? ' (a typo?)' : `; did you mean ${meant.toUpperCase()}?`}`;
  });
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
    // A field's message the one-line detail already says is not said twice.
    for (const [field, messages] of Object.entries(error.errors ?? {})) {
      for (const message of messages) if (!error.detail.includes(message)) io.err(`  ${field}: ${message}`);
    }
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.err(`appstore: failed: ${message}`);
  return 1;
}
