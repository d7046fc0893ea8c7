import { getOrCreateToken } from '../../domain/accounts/api-tokens.ts';
import { addUser, findUser, listUsers, setActive, setAdmin, setPassword } from '../../domain/accounts/manage-users.ts';
import { sendInvitation } from '../../domain/accounts/password-reset.ts';
import { flag, positional, stringOption } from '../arguments.ts';
import type { Command } from '../command.ts';
import { CliError, usageError } from '../command.ts';
import { isAppError } from '../../errors.ts';
import { cliActingFor, withContainer } from '../context.ts';
import type { CliIo } from '../io.ts';

/** A weak password refused: the command says how an operator waives the rule. */
async function withWeakPasswordHint<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (
      isAppError(error) &&
      error.errors?.['password'] !== undefined &&
      /too easy to guess|characters; use at least/.test(error.detail)
    ) {
      throw new CliError(`${error.detail} (--allow-weak-password waives this rule)`, 1);
    }
    throw error;
  }
}

/** The password is the first line of standard input, so it never shows in `ps` or shell history. */
async function readPassword(io: CliIo): Promise<string> {
  return (await io.readStdin()).split(/\r?\n/)[0] ?? '';
}

export const userAddCommand: Command = {
  path: ['user', 'add'],
  usage:
    'appstore user add NAME [--email E] [--first-name F] [--last-name L] [--admin] (--password-stdin [--allow-weak-password] | --no-password)',
  positionals: ['NAME'],
  options: {
    email: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    admin: { type: 'boolean' },
    'password-stdin': { type: 'boolean' },
    'no-password': { type: 'boolean' },
    'allow-weak-password': { type: 'boolean' },
  },
  summary: 'create a user',
  help: `Creates a user. --password-stdin reads the password from the first line of standard input
(printf '%s\\n' "$PASSWORD" | appstore user add alice --password-stdin); --no-password makes an
account that can only use API tokens (as accounts from an external login). The password must
pass the website's rule (ten characters or more, and not easy to guess); --allow-weak-password
waives the strength part, for an operator who knows better. --admin makes an administrator. Names: 1 to 150 letters, digits and _ . @ + -. Refused when the name is taken.`,
  async run(input, io) {
    const fromStdin = flag(input, 'password-stdin');
    if (fromStdin === flag(input, 'no-password'))
      throw usageError('give exactly one of --password-stdin and --no-password', this.usage);
    const password = fromStdin ? await readPassword(io) : null;
    const user = await withWeakPasswordHint(() =>
      withContainer(io, (container) =>
        addUser(
          {
            username: positional(input, 0),
            email: stringOption(input, 'email'),
            firstName: stringOption(input, 'first-name'),
            lastName: stringOption(input, 'last-name'),
            isAdmin: flag(input, 'admin'),
            password,
            strength: flag(input, 'allow-weak-password') ? 'waived' : 'check',
          },
          cliActingFor(io),
          container.accounts,
        ),
      ),
    );
    io.out(
      `created user ${user.username}${user.isAdmin ? ' (administrator)' : ''}${user.hasPassword ? '' : ' without a password'}`,
    );
    return 0;
  },
};

export const userInviteCommand: Command = {
  path: ['user', 'invite'],
  usage: 'appstore user invite NAME --email E [--first-name F] [--last-name L] [--admin]',
  positionals: ['NAME'],
  options: {
    email: { type: 'string' },
    'first-name': { type: 'string' },
    'last-name': { type: 'string' },
    admin: { type: 'boolean' },
  },
  summary: 'create a user and mail them a link to choose their password',
  help: `Creates a user without a password and mails them a link (valid seven days, once) to choose
one; following it also confirms the address. This is how people get accounts when sign-up is
closed (APPSTORE_SIGNUP=closed). Without APPSTORE_SMTP_URL the mail goes to a file and its link
is printed here.`,
  async run(input, io) {
    const email = stringOption(input, 'email');
    if (email === undefined) throw usageError('an invitation needs --email', this.usage);
    // Without SMTP, the mail's file and link are printed here.
    const mailFileNotice = (message: string): void => io.out(message);
    const user = await withContainer(
      io,
      async (container) => {
        const created = await addUser(
          {
            username: positional(input, 0),
            email,
            firstName: stringOption(input, 'first-name'),
            lastName: stringOption(input, 'last-name'),
            isAdmin: flag(input, 'admin'),
            password: null,
            emailVerified: false,
          },
          cliActingFor(io),
          container.accounts,
        );
        await sendInvitation(created, container.selfService);
        return created;
      },
      { mailFileNotice },
    );
    io.out(
      `invited ${user.username}${user.isAdmin ? ' (administrator)' : ''}: a link to choose a password was mailed to ${email}`,
    );
    return 0;
  },
};

export const userTokenCommand: Command = {
  path: ['user', 'token'],
  usage: 'appstore user token NAME',
  positionals: ['NAME'],
  summary: "print NAME's API token, creating one if none exists",
  help: `Prints the user's API token (the same one POST /api/v1/token returns), creating it when
the user has none. Publishing tools send it as "Authorization: Token <token>".`,
  async run(input, io) {
    const token = await withContainer(io, async (container) =>
      getOrCreateToken(await findUser(positional(input, 0), container.accounts), cliActingFor(io), container.accounts),
    );
    io.out(token);
    return 0;
  },
};

export const userPasswdCommand: Command = {
  path: ['user', 'passwd'],
  usage: 'appstore user passwd NAME --password-stdin [--allow-weak-password]',
  positionals: ['NAME'],
  options: { 'password-stdin': { type: 'boolean' }, 'allow-weak-password': { type: 'boolean' } },
  summary: "set NAME's password from standard input",
  help: `Sets the password to the first line of standard input. Also gives a password to an account
created with --no-password. The rule is the website's (ten characters or more, not easy to
guess); --allow-weak-password waives its strength part. Existing sessions and tokens stay valid.`,
  async run(input, io) {
    if (!flag(input, 'password-stdin')) throw usageError('--password-stdin is required', this.usage);
    const username = positional(input, 0);
    const password = await readPassword(io);
    await withWeakPasswordHint(() =>
      withContainer(io, (container) =>
        setPassword(
          username,
          password,
          flag(input, 'allow-weak-password') ? 'waived' : 'required',
          cliActingFor(io),
          container.accounts,
        ),
      ),
    );
    io.out(`password of ${username} changed`);
    return 0;
  },
};

function activeCommand(active: boolean): Command {
  const verb = active ? 'enable' : 'disable';
  return {
    path: ['user', verb],
    usage: `appstore user ${verb} NAME`,
    positionals: ['NAME'],
    summary: active ? 'let a disabled user authenticate again' : 'stop a user from authenticating (keeps their apps)',
    help: active
      ? 'Lets the user authenticate again with their password, token and new sessions.'
      : 'The user can no longer authenticate by any means (password, token, session). Their apps, releases and token stay; `enable` undoes it.',
    async run(input, io) {
      const username = positional(input, 0);
      await withContainer(io, (container) => setActive(username, active, cliActingFor(io), container.accounts));
      io.out(`user ${username} ${verb}d`);
      return 0;
    },
  };
}

export const userEnableCommand = activeCommand(true);
export const userDisableCommand = activeCommand(false);

export const userAdminCommand: Command = {
  path: ['user', 'admin'],
  usage: 'appstore user admin NAME [--revoke]',
  positionals: ['NAME'],
  options: { revoke: { type: 'boolean' } },
  summary: 'make an existing account an administrator (--revoke takes it back)',
  help: `Grants NAME administrator rights: the admin pages, and every app's management. With
--revoke, takes them back. Audited as user.admin_granted or user.admin_revoked. The admin pages'
Users tab does the same for other accounts (there, an administrator cannot take their own rights).`,
  async run(input, io) {
    const username = positional(input, 0);
    const admin = !flag(input, 'revoke');
    const user = await withContainer(io, (container) =>
      setAdmin(username, admin, cliActingFor(io), container.accounts),
    );
    io.out(admin ? `${user.username} is an administrator` : `${user.username} is no longer an administrator`);
    return 0;
  },
};

export const userListCommand: Command = {
  path: ['user', 'list'],
  usage: 'appstore user list',
  summary: 'list users',
  help: 'One line per user, ordered by name: name, e-mail, and flags (admin, disabled, no-password).',
  async run(_input, io) {
    const users = await withContainer(io, (container) => listUsers(cliActingFor(io), container.accounts), {
      reads: true,
    });
    if (users.length === 0) io.err('no users yet: appstore user add NAME adds one');
    for (const user of users) {
      const flags = [
        user.isAdmin ? 'admin' : '',
        user.isActive ? '' : 'disabled',
        user.hasPassword ? '' : 'no-password',
      ].filter((f) => f !== '');
      io.out([user.username, user.email ?? '-', flags.join(',') || '-'].join('\t'));
    }
    return 0;
  },
};
