import { addCoMaintainer, removeCoMaintainer, setAppFlags, unlockTransfer } from '../../domain/apps/manage-apps.ts';
import type { Command } from '../command.ts';
import { CliError } from '../command.ts';
import { withContainer } from '../context.ts';

function twoArguments(args: readonly string[], usage: string): [string, string] {
  const [app, user, ...rest] = args;
  if (app === undefined || user === undefined || rest.length > 0) throw new CliError(`expected APP and USER; usage: ${usage}`, 2);
  return [app, user];
}

function maintainerCommand(verb: 'add' | 'remove'): Command {
  return {
    path: ['app', 'maintainer', verb],
    usage: `appstore app maintainer ${verb} APP USER`,
    summary: verb === 'add' ? 'let USER publish and delete releases of APP' : "take away USER's co-maintainer rights on APP",
    help:
      verb === 'add'
        ? 'Co-maintainers publish and delete releases; only the owner re-registers the certificate or deletes the app.'
        : 'The user can no longer publish or delete releases of the app. Their earlier releases stay.',
    async run(args) {
      const [app, user] = twoArguments(args, this.usage);
      const change = verb === 'add' ? addCoMaintainer : removeCoMaintainer;
      const changed = await withContainer((container) => change(app, user, container.apps));
      const messages = verb === 'add' ? ['now co-maintains', 'already co-maintains'] : ['no longer co-maintains', 'did not co-maintain'];
      console.log(`${user} ${changed ? messages[0] : messages[1]} ${app}`);
      return 0;
    },
  };
}

export const appMaintainerAddCommand = maintainerCommand('add');
export const appMaintainerRemoveCommand = maintainerCommand('remove');

export const appSetCommand: Command = {
  path: ['app', 'set'],
  usage: 'appstore app set APP [--featured|--no-featured] [--enterprise|--no-enterprise]',
  summary: 'set the featured and enterprise-only flags of APP',
  help: `--featured highlights the app (isFeatured in the listings); --enterprise lists it only for
include_enterprise=true. The listings and their ETags change at once.`,
  async run(args) {
    const [app, ...flags] = args;
    if (app === undefined || app.startsWith('-')) throw new CliError(`missing APP; usage: ${this.usage}`, 2);
    const settings: { featured?: boolean; enterpriseOnly?: boolean } = {};
    for (const flag of flags) {
      const key = flag.endsWith('featured') ? 'featured' : flag.endsWith('enterprise') ? 'enterpriseOnly' : null;
      if (key === null || !/^--(no-)?(featured|enterprise)$/.test(flag)) throw new CliError(`unknown option '${flag}'; usage: ${this.usage}`, 2);
      if (settings[key] !== undefined) throw new CliError(`${flag} contradicts or repeats an earlier option`, 2);
      settings[key] = !flag.startsWith('--no-');
    }
    if (flags.length === 0) throw new CliError(`nothing to set; usage: ${this.usage}`, 2);
    const changed = await withContainer((container) => setAppFlags(app, settings, container.apps));
    console.log(changed ? `${app} updated` : `${app} already had these settings`);
    return 0;
  },
};

export const appTransferCommand: Command = {
  path: ['app', 'transfer'],
  usage: 'appstore app transfer APP',
  summary: 'unlock APP so that the next valid registration takes ownership',
  help: `The next POST /api/v1/apps for APP with a valid certificate and signature, by any user, makes
that user the owner and locks the app again. A new certificate deletes the app's releases.`,
  async run(args) {
    const [app, ...rest] = args;
    if (app === undefined || rest.length > 0) throw new CliError(`expected APP; usage: ${this.usage}`, 2);
    await withContainer((container) => unlockTransfer(app, container.apps));
    console.log(`${app} is unlocked: the next valid registration takes ownership`);
    return 0;
  },
};
