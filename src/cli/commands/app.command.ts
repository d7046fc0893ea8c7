import { addCoMaintainer, removeCoMaintainer, setAppFlags, unlockTransfer } from '../../domain/apps/manage-apps.ts';
import type { Command } from '../command.ts';
import { CliError } from '../command.ts';
import { withContainer } from '../context.ts';

function twoArguments(args: readonly string[], usage: string): [string, string] {
  const [app, user, ...rest] = args;
  if (app === undefined || user === undefined || rest.length > 0) throw new CliError(`expected APP and USER; usage: ${usage}`, 2);
  return [app, user];
}

export const appMaintainerAddCommand: Command = {
  path: ['app', 'maintainer', 'add'],
  usage: 'appstore app maintainer add APP USER',
  summary: 'let USER publish and delete releases of APP',
  help: 'Co-maintainers publish and delete releases; only the owner re-registers the certificate or deletes the app.',
  async run(args) {
    const [app, user] = twoArguments(args, this.usage);
    const added = await withContainer((container) => addCoMaintainer(app, user, container.apps));
    console.log(added ? `${user} now co-maintains ${app}` : `${user} already co-maintains ${app}`);
    return 0;
  },
};

export const appMaintainerRemoveCommand: Command = {
  path: ['app', 'maintainer', 'remove'],
  usage: 'appstore app maintainer remove APP USER',
  summary: 'take away USER’s co-maintainer rights on APP',
  help: 'The user can no longer publish or delete releases of the app. Their earlier releases stay.',
  async run(args) {
    const [app, user] = twoArguments(args, this.usage);
    const removed = await withContainer((container) => removeCoMaintainer(app, user, container.apps));
    console.log(removed ? `${user} no longer co-maintains ${app}` : `${user} did not co-maintain ${app}`);
    return 0;
  },
};

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
