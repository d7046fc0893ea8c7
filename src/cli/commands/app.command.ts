import { addCoMaintainer, removeCoMaintainer, setAppFlags, unlockTransfer } from '../../domain/apps/manage-apps.ts';
import type { AppFlags } from '../../domain/apps/app-registry.ts';
import { flag, positional } from '../arguments.ts';
import type { Command, CommandInput } from '../command.ts';
import { usageError } from '../command.ts';
import { cliActingFor, withContainer } from '../context.ts';

function maintainerCommand(verb: 'add' | 'remove'): Command {
  return {
    path: ['app', 'maintainer', verb],
    usage: `appstore app maintainer ${verb} APP USER`,
    positionals: ['APP', 'USER'],
    summary:
      verb === 'add' ? 'let USER publish and delete releases of APP' : "take away USER's co-maintainer rights on APP",
    help:
      verb === 'add'
        ? 'Co-maintainers publish and delete releases; only the owner re-registers the certificate or deletes the app.'
        : 'The user can no longer publish or delete releases of the app. Their earlier releases stay.',
    async run(input, io) {
      const [app, user] = [positional(input, 0), positional(input, 1)];
      const change = verb === 'add' ? addCoMaintainer : removeCoMaintainer;
      const changed = await withContainer(io, (container) =>
        change(app, user, cliActingFor(io), container.appManagement),
      );
      const messages =
        verb === 'add'
          ? ['now co-maintains', 'already co-maintains']
          : ['no longer co-maintains', 'did not co-maintain'];
      io.out(`${user} ${changed ? messages[0] : messages[1]} ${app}`);
      return 0;
    },
  };
}

export const appMaintainerAddCommand = maintainerCommand('add');
export const appMaintainerRemoveCommand = maintainerCommand('remove');

/** `--x` and `--no-x`: true, false, or undefined when neither; both at once is a usage mistake. */
function onOff(input: CommandInput, name: string, usage: string): boolean | undefined {
  const on = flag(input, name);
  const off = flag(input, `no-${name}`);
  if (on && off) throw usageError(`--${name} and --no-${name} contradict each other`, usage);
  return on ? true : off ? false : undefined;
}

export const appSetCommand: Command = {
  path: ['app', 'set'],
  usage: 'appstore app set APP [--featured|--no-featured] [--enterprise|--no-enterprise]',
  positionals: ['APP'],
  options: {
    featured: { type: 'boolean' },
    'no-featured': { type: 'boolean' },
    enterprise: { type: 'boolean' },
    'no-enterprise': { type: 'boolean' },
  },
  summary: 'set the featured and enterprise-only flags of APP',
  help: `--featured highlights the app (isFeatured in the listings); --enterprise lists it only for
include_enterprise=true. The listings and their ETags change at once.`,
  async run(input, io) {
    const app = positional(input, 0);
    const featured = onOff(input, 'featured', this.usage);
    const enterpriseOnly = onOff(input, 'enterprise', this.usage);
    const settings: AppFlags = {
      ...(featured === undefined ? {} : { featured }),
      ...(enterpriseOnly === undefined ? {} : { enterpriseOnly }),
    };
    if (Object.keys(settings).length === 0) throw usageError('nothing to set', this.usage);
    const changed = await withContainer(io, (container) =>
      setAppFlags(app, settings, cliActingFor(io), container.appManagement),
    );
    io.out(changed ? `${app} updated` : `${app} already had these settings`);
    return 0;
  },
};

export const appTransferCommand: Command = {
  path: ['app', 'transfer'],
  usage: 'appstore app transfer APP',
  positionals: ['APP'],
  summary: 'unlock APP so that the next valid registration takes ownership',
  help: `The next POST /api/v1/apps for APP with a valid certificate and signature, by any user, makes
that user the owner and locks the app again. A new certificate deletes the app's releases.`,
  async run(input, io) {
    const app = positional(input, 0);
    await withContainer(io, (container) => unlockTransfer(app, cliActingFor(io), container.appManagement));
    io.out(`${app} is unlocked: the next valid registration takes ownership`);
    return 0;
  },
};
