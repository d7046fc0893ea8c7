import path from 'node:path';
import { deriveKeys, loadSecret } from '../../domain/accounts/secret-key.ts';
import { rotateSecretKey } from '../../domain/identity/rotate-secret-key.ts';
import { positional } from '../arguments.ts';
import type { Command } from '../command.ts';
import { cliActingFor, withContainer } from '../context.ts';

export const secretKeyRotateCommand: Command = {
  path: ['secret-key', 'rotate'],
  usage: 'appstore secret-key rotate NEW_KEY_FILE',
  positionals: ['NEW_KEY_FILE'],
  summary: 'move the store to a new secret key (every node stopped)',
  help: `Moves the store from the key in APPSTORE_SECRET_KEY_FILE to the one in NEW_KEY_FILE
(64 hexadecimal characters: openssl rand -hex 32 > new.key), in one transaction: every API
token is stored again under the new key and keeps working, the store's authority key is sealed
again, every session and mailed link ends. Stop every node first; afterwards start them with
APPSTORE_SECRET_KEY_FILE pointing at the new file (docs/operations.md).`,
  async run(input, io) {
    const newFile = path.resolve(io.cwd, positional(input, 0));
    const next = deriveKeys(loadSecret(newFile, false));
    const report = await withContainer(io, (container) =>
      rotateSecretKey(container.identity, container.accounts.keys, next, container.now(), cliActingFor(io)),
    );
    io.out(
      `the store now runs with the key in ${newFile}: ${report.tokens} API tokens kept, ${report.sessions} sessions and ${report.links} mailed links ended` +
        (report.droppedTokens > 0
          ? `, ${report.droppedTokens} unreadable tokens dropped (their users ask for new ones)`
          : ''),
    );
    io.out('point APPSTORE_SECRET_KEY_FILE at it on every node before starting them again');
    return 0;
  },
};
