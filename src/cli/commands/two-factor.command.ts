import { setTwoFactorRequirement } from '../../domain/accounts/two-factor.ts';
import { positional } from '../arguments.ts';
import type { Command } from '../command.ts';
import { cliActingFor, withContainer } from '../context.ts';

export const twoFactorRequireCommand: Command = {
  path: ['two-factor', 'require'],
  usage: 'appstore two-factor require none|admins|maintainers',
  positionals: ['WHOM'],
  summary: 'require a second factor of admins, or of admins and app owners (or of nobody)',
  help: `A user it applies to who has no second factor is sent to the sign-in security page after
signing in, and Basic authentication cannot change anything for them until they add one (an
authenticator app or a passkey). Tokens keep working. "maintainers" means admins and the owners
of apps. Accounts made through an external login are not asked: their provider has its own.`,
  async run(input, io) {
    const chosen = await withContainer(io, (container) =>
      setTwoFactorRequirement(positional(input, 0), cliActingFor(io), container.accounts),
    );
    io.out(`second factor required of: ${chosen}`);
    return 0;
  },
};
