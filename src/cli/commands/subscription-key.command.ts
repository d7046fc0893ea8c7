import { addSubscriptionKey, revokeSubscriptionKey } from '../../domain/listings/subscription-keys.ts';
import { positional } from '../arguments.ts';
import type { Command } from '../command.ts';
import { usageError } from '../command.ts';
import { cliActingFor, withContainer } from '../context.ts';

export const subscriptionKeyAddCommand: Command = {
  path: ['subscription-key', 'add'],
  usage: 'appstore subscription-key add LABEL',
  positionals: ['LABEL'],
  summary: 'make a key that lists enterprise-only apps to the server that sends it (printed once)',
  help: `Prints a new key for X-NC-Subscription-Key. A Nextcloud server that sends it (in
config.php, for this store) gets the enterprise-only apps in apps.json, as include_enterprise=true
does. LABEL says whose key it is. Only the key's SHA-256 is stored: keep the printed key; a lost
one is revoked and made again. Valid at once; a revocation reaches every node within a minute.`,
  async run(input, io) {
    const label = positional(input, 0);
    const made = await withContainer(io, (container) =>
      addSubscriptionKey(label, cliActingFor(io), container.subscriptionKeys.store, container.now()),
    );
    io.err(`subscription key ${made.id} for ${label.trim()} (shown once):`);
    io.out(made.key);
    return 0;
  },
};

export const subscriptionKeyListCommand: Command = {
  path: ['subscription-key', 'list'],
  usage: 'appstore subscription-key list',
  summary: 'the subscription keys: id, label, made, revoked',
  help: 'One line per key: its id, label, when it was made and, if so, revoked. The keys themselves are not stored.',
  async run(_input, io) {
    const keys = await withContainer(io, (container) => container.subscriptionKeys.store.list(), { reads: true });
    if (keys.length === 0) io.err('no subscription keys');
    for (const key of keys)
      io.out(`${key.id}\t${key.label}\t${key.createdAt}${key.revokedAt === null ? '' : `\trevoked ${key.revokedAt}`}`);
    return 0;
  },
};

export const subscriptionKeyRevokeCommand: Command = {
  path: ['subscription-key', 'revoke'],
  usage: 'appstore subscription-key revoke ID',
  positionals: ['ID'],
  summary: 'stop a subscription key from listing enterprise-only apps',
  help: 'The key no longer lists enterprise-only apps, on every node within a minute.',
  async run(input, io) {
    const id = Number(positional(input, 0));
    if (!Number.isInteger(id) || id < 1) throw usageError('ID: the number `subscription-key list` shows', this.usage);
    await withContainer(io, (container) =>
      revokeSubscriptionKey(id, cliActingFor(io), container.subscriptionKeys.store, container.now()),
    );
    io.out(`subscription key ${id} revoked`);
    return 0;
  },
};
