import { RETIREMENT_REASONS, deprecateApp, retireRelease, setOrphan } from '../../domain/apps/app-status.ts';
import { flag, positional, stringOption } from '../arguments.ts';
import type { Command } from '../command.ts';
import { usageError } from '../command.ts';
import { cliActingFor, withContainer } from '../context.ts';

export const appDeprecateCommand: Command = {
  path: ['app', 'deprecate'],
  usage: 'appstore app deprecate APP (--reason TEXT [--successor OTHER-APP] | --undo)',
  positionals: ['APP'],
  options: { reason: { type: 'string' }, successor: { type: 'string' }, undo: { type: 'boolean' } },
  summary: 'deprecate APP, with the reason and the app to use instead (or take it back)',
  help: `A deprecated app stays listed for the servers that have it, with isDeprecated,
deprecationReason and successor in the listings; its page says so and links the successor; it
leaves the home page and searches that do not ask for deprecated apps. --undo takes it back.
The owner does the same on the app's manage page.`,
  async run(input, io) {
    const app = positional(input, 0);
    const undo = flag(input, 'undo');
    const reason = stringOption(input, 'reason');
    if (undo === (reason !== undefined)) throw usageError('give --reason, or --undo', this.usage);
    await withContainer(io, (container) =>
      deprecateApp(
        app,
        undo ? null : { reason: reason ?? '', successor: stringOption(input, 'successor') ?? '' },
        cliActingFor(io),
        container.appStatus,
      ),
    );
    io.out(undo ? `${app} is no longer deprecated` : `${app} is deprecated`);
    return 0;
  },
};

export const appOrphanCommand: Command = {
  path: ['app', 'orphan'],
  usage: 'appstore app orphan APP [--undo]',
  positionals: ['APP'],
  options: { undo: { type: 'boolean' } },
  summary: 'say APP looks for maintainers (isOrphan), or no longer',
  help: `The app's page asks for maintainers and the listings carry isOrphan: true. --undo takes it back.`,
  async run(input, io) {
    const app = positional(input, 0);
    const orphan = !flag(input, 'undo');
    await withContainer(io, (container) => setOrphan(app, orphan, cliActingFor(io), container.appStatus));
    io.out(orphan ? `${app} looks for maintainers` : `${app} no longer looks for maintainers`);
    return 0;
  },
};

export const releaseRetireCommand: Command = {
  path: ['release', 'retire'],
  usage: `appstore release retire APP VERSION (--reason ${RETIREMENT_REASONS.join('|')} [--note TEXT] | --undo) [--nightly]`,
  positionals: ['APP', 'VERSION'],
  options: {
    reason: { type: 'string' },
    note: { type: 'string' },
    undo: { type: 'boolean' },
    nightly: { type: 'boolean' },
  },
  summary: 'stop offering a release to servers (security, broken, other), or offer it again',
  help: `A retired release leaves the listings (apps.json and the others); the app lists it under
retiredReleases, with the reason, so mirrors retire it too; its archive is no longer served.
The app's owners and co-maintainers are mailed when an administrator retires a release.
--undo offers it again.`,
  async run(input, io) {
    const [app, version] = [positional(input, 0), positional(input, 1)];
    const undo = flag(input, 'undo');
    const reason = stringOption(input, 'reason');
    if (undo === (reason !== undefined)) throw usageError('give --reason, or --undo', this.usage);
    const nightly = flag(input, 'nightly');
    await withContainer(io, (container) =>
      retireRelease(
        { appId: app, version, nightly },
        undo ? null : { reason: reason ?? '', note: stringOption(input, 'note') ?? '' },
        cliActingFor(io),
        container.appStatus,
      ),
    );
    io.out(`${app} ${version}${nightly ? ' (nightly)' : ''} ${undo ? 'is offered again' : 'is retired'}`);
    return 0;
  },
};
