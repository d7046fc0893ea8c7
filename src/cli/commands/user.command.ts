import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { getOrCreateToken } from '../../domain/accounts/api-tokens.ts';
import { addUser, findUser, setActive, setPassword } from '../../domain/accounts/manage-users.ts';
import type { Command } from '../command.ts';
import { CliError } from '../command.ts';
import { expectNoArguments, expectOneArgument } from '../arguments.ts';
import { withContainer } from '../context.ts';

/** The password is the first line of standard input, so it never shows in `ps` or shell history. */
async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

type Options = NonNullable<ParseArgsConfig['options']>;

function parse(args: readonly string[], usage: string, options: Options) {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message.split('\n')[0]}; usage: ${usage}`, 2);
  }
}

export const userAddCommand: Command = {
  path: ['user', 'add'],
  usage: 'appstore user add NAME [--email E] [--first-name F] [--last-name L] [--admin] (--password-stdin | --no-password)',
  summary: 'create a user',
  help: `Creates a user. --password-stdin reads the password from the first line of standard input
(printf '%s\\n' "$PASSWORD" | appstore user add alice --password-stdin); --no-password makes an
account that can only use API tokens (as accounts from an external login). --admin makes an
administrator. Names: 1 to 150 letters, digits and _ . @ + -. Refused when the name is taken.`,
  async run(args) {
    const { values, positionals } = parse(args, this.usage, {
      email: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      admin: { type: 'boolean' },
      'password-stdin': { type: 'boolean' },
      'no-password': { type: 'boolean' },
    });
    const username = expectOneArgument(positionals, this.usage, 'NAME');
    const fromStdin = values['password-stdin'] === true;
    if (fromStdin === (values['no-password'] === true)) {
      throw new CliError(`give exactly one of --password-stdin and --no-password; usage: ${this.usage}`, 2);
    }
    const password = fromStdin ? await readPasswordFromStdin() : null;
    const user = await withContainer((container) =>
      addUser(
        {
          username,
          email: values.email as string | undefined,
          firstName: values['first-name'] as string | undefined,
          lastName: values['last-name'] as string | undefined,
          isAdmin: values.admin === true,
          password,
        },
        container.accounts,
      ),
    );
    console.log(`created user ${user.username}${user.isAdmin ? ' (administrator)' : ''}${user.hasPassword ? '' : ' without a password'}`);
    return 0;
  },
};

export const userTokenCommand: Command = {
  path: ['user', 'token'],
  usage: 'appstore user token NAME',
  summary: "print NAME's API token, creating one if none exists",
  help: `Prints the user's API token (the same one POST /api/v1/token returns), creating it when
the user has none. Publishing tools send it as "Authorization: Token <token>".`,
  async run(args) {
    const username = expectOneArgument(args, this.usage, 'NAME');
    const token = await withContainer(async (container) => getOrCreateToken(await findUser(username, container.accounts), container.accounts));
    console.log(token);
    return 0;
  },
};

export const userPasswdCommand: Command = {
  path: ['user', 'passwd'],
  usage: 'appstore user passwd NAME --password-stdin',
  summary: "set NAME's password from standard input",
  help: `Sets the password to the first line of standard input. Also gives a password to an account
created with --no-password. Existing sessions and tokens stay valid.`,
  async run(args) {
    const { values, positionals } = parse(args, this.usage, { 'password-stdin': { type: 'boolean' } });
    const username = expectOneArgument(positionals, this.usage, 'NAME');
    if (values['password-stdin'] !== true) throw new CliError(`--password-stdin is required; usage: ${this.usage}`, 2);
    const password = await readPasswordFromStdin();
    await withContainer((container) => setPassword(username, password, container.accounts));
    console.log(`password of ${username} changed`);
    return 0;
  },
};

function activeCommand(active: boolean): Command {
  const verb = active ? 'enable' : 'disable';
  return {
    path: ['user', verb],
    usage: `appstore user ${verb} NAME`,
    summary: active ? 'let a disabled user authenticate again' : 'stop a user from authenticating (keeps their apps)',
    help: active
      ? 'Lets the user authenticate again with their password, token and new sessions.'
      : 'The user can no longer authenticate by any means (password, token, session). Their apps, releases and token stay; `enable` undoes it.',
    async run(args) {
      const username = expectOneArgument(args, this.usage, 'NAME');
      await withContainer((container) => setActive(username, active, container.accounts));
      console.log(`user ${username} ${verb}d`);
      return 0;
    },
  };
}

export const userEnableCommand = activeCommand(true);
export const userDisableCommand = activeCommand(false);

export const userListCommand: Command = {
  path: ['user', 'list'],
  usage: 'appstore user list',
  summary: 'list users',
  help: 'One line per user, ordered by name: name, e-mail, and flags (admin, disabled, no-password).',
  async run(args) {
    expectNoArguments(args, this.usage);
    const users = await withContainer((container) => container.accounts.store.listUsers());
    for (const user of users) {
      const flags = [user.isAdmin ? 'admin' : '', user.isActive ? '' : 'disabled', user.hasPassword ? '' : 'no-password'].filter((f) => f !== '');
      console.log([user.username, user.email ?? '-', flags.join(',') || '-'].join('\t'));
    }
    return 0;
  },
};
