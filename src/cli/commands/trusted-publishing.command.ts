import { describePublisher } from '../../domain/trusted-publishing/publishers.ts';
import {
  addPublisher,
  allowedIssuers,
  allowIssuer,
  listPublishers,
  removeIssuer,
  removePublisher,
} from '../../domain/trusted-publishing/trusted-publishing.ts';
import { positional, stringOption } from '../arguments.ts';
import type { Command, CommandInput } from '../command.ts';
import { usageError } from '../command.ts';
import { cliActingFor, withContainer } from '../context.ts';

const list = (input: CommandInput, name: string): string[] => {
  const value = input.values[name] as unknown;
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string');
  return typeof value === 'string' ? [value] : [];
};

export const trustedIssuerAddCommand: Command = {
  path: ['trusted-issuer', 'add'],
  usage: 'appstore trusted-issuer add URL --provider github|gitlab|oidc [--name NAME] [--claim CLAIM]...',
  positionals: ['URL'],
  options: { provider: { type: 'string' }, name: { type: 'string' }, claim: { type: 'string', multiple: true } },
  summary: 'allow another OpenID issuer for trusted publishing (GHES, self-managed GitLab, another CI)',
  help: `GitHub Actions (https://token.actions.githubusercontent.com) and GitLab.com are always
allowed. URL is the issuer as its ID tokens' iss claim gives it: GitHub Enterprise Server's is
https://HOST/_services/token (--provider github), a self-managed GitLab's its address (--provider
gitlab). Another CI is --provider oidc, with each --claim that every publisher of it must match
(such as sub), so that no publisher trusts every job of the issuer.`,
  async run(input, io) {
    const url = positional(input, 0);
    const provider = stringOption(input, 'provider');
    if (provider === undefined) throw usageError('give --provider', this.usage);
    const name = stringOption(input, 'name');
    const issuer = await withContainer(io, (container) =>
      allowIssuer(
        { url, provider, ...(name === undefined ? {} : { name }), requiredClaims: list(input, 'claim') },
        cliActingFor(io),
        container.trustedPublishing,
      ),
    );
    io.out(`${issuer.url} allowed (${issuer.provider})`);
    return 0;
  },
};

export const trustedIssuerListCommand: Command = {
  path: ['trusted-issuer', 'list'],
  usage: 'appstore trusted-issuer list',
  summary: 'the OpenID issuers trusted publishing accepts',
  help: 'One line per issuer: its URL, provider, name and the claims its publishers must match.',
  async run(_input, io) {
    const issuers = await withContainer(io, (container) => allowedIssuers(container.trustedPublishing), {
      reads: true,
    });
    for (const issuer of issuers)
      io.out(`${issuer.url}\t${issuer.provider}\t${issuer.name}\t${issuer.requiredClaims.join(' ')}`);
    return 0;
  },
};

export const trustedIssuerRemoveCommand: Command = {
  path: ['trusted-issuer', 'remove'],
  usage: 'appstore trusted-issuer remove URL',
  positionals: ['URL'],
  summary: 'stop accepting an issuer an administrator allowed',
  help: 'Its ID tokens are refused from now on; the publishers registered for it stay, and match nothing.',
  async run(input, io) {
    const url = positional(input, 0);
    await withContainer(io, (container) => removeIssuer(url, cliActingFor(io), container.trustedPublishing));
    io.out(`${url} removed`);
    return 0;
  },
};

export const trustedPublisherAddCommand: Command = {
  path: ['trusted-publisher', 'add'],
  usage:
    'appstore trusted-publisher add APP --provider github|gitlab|oidc [--repository R] [--workflow FILE] [--environment E] [--ref REF] [--issuer URL] [--repository-id N] [--owner-id N] [--claim NAME=VALUE]...',
  positionals: ['APP'],
  options: {
    provider: { type: 'string' },
    repository: { type: 'string' },
    workflow: { type: 'string' },
    environment: { type: 'string' },
    ref: { type: 'string' },
    issuer: { type: 'string' },
    'repository-id': { type: 'string' },
    'owner-id': { type: 'string' },
    claim: { type: 'string', multiple: true },
  },
  summary: "trust a CI workflow to publish APP's releases with no stored token",
  help: `GitHub: --repository owner/name --workflow release.yml [--environment NAME]. GitLab:
--repository group/project [--ref main] [--environment NAME]. Another allowed issuer: --issuer URL
--claim NAME=VALUE for each claim to match. The numeric repository and owner ids are pinned at
the first publish unless given, so a deleted and re-created repository of the same name is not
trusted. The app's owner does the same on the app's manage page.`,
  async run(input, io) {
    const app = positional(input, 0);
    const provider = stringOption(input, 'provider');
    if (provider === undefined) throw usageError('give --provider', this.usage);
    const claims = Object.fromEntries(
      list(input, 'claim').map((pair) => {
        const at = pair.indexOf('=');
        if (at < 1) throw usageError(`--claim ${pair}: expected NAME=VALUE`, this.usage);
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
    );
    const option = (name: string, key: string) => {
      const value = stringOption(input, name);
      return value === undefined ? {} : { [key]: value };
    };
    const id = await withContainer(io, (container) =>
      addPublisher(
        app,
        {
          provider,
          ...option('repository', 'repository'),
          ...option('workflow', 'workflow'),
          ...option('environment', 'environment'),
          ...option('ref', 'ref'),
          ...option('issuer', 'issuer'),
          ...option('repository-id', 'repositoryId'),
          ...option('owner-id', 'ownerId'),
          claims,
        },
        cliActingFor(io),
        container.trustedPublishing,
      ),
    );
    io.out(`trusted publisher ${id} added to ${app}`);
    return 0;
  },
};

export const trustedPublisherListCommand: Command = {
  path: ['trusted-publisher', 'list'],
  usage: 'appstore trusted-publisher list APP',
  positionals: ['APP'],
  summary: "APP's trusted publishers: id and what they match",
  help: 'One line per publisher: its id (for remove), what it matches, and the pinned ids.',
  async run(input, io) {
    const app = positional(input, 0);
    const publishers = await withContainer(io, (container) => listPublishers(app, container.trustedPublishing), {
      reads: true,
    });
    if (publishers.length === 0) io.err(`${app} has no trusted publishers`);
    for (const publisher of publishers)
      io.out(
        `${publisher.id}\t${describePublisher(publisher)}\t${publisher.repositoryId ?? '-'}\t${publisher.ownerId ?? '-'}`,
      );
    return 0;
  },
};

export const trustedPublisherRemoveCommand: Command = {
  path: ['trusted-publisher', 'remove'],
  usage: 'appstore trusted-publisher remove APP ID',
  positionals: ['APP', 'ID'],
  summary: 'stop trusting a CI workflow to publish APP',
  help: 'Tokens it was given before stay valid until they expire (15 minutes at most).',
  async run(input, io) {
    const app = positional(input, 0);
    const id = Number(positional(input, 1));
    if (!Number.isInteger(id) || id < 1) throw usageError('ID: the number `trusted-publisher list` shows', this.usage);
    await withContainer(io, (container) => removePublisher(app, id, cliActingFor(io), container.trustedPublishing));
    io.out(`trusted publisher ${id} removed from ${app}`);
    return 0;
  },
};
