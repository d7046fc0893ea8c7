import { X509Certificate } from 'node:crypto';
import {
  ensureOwnAuthority,
  rotateOwnAuthority,
  trustedOwnCertificates,
} from '../../domain/identity/store-identity.ts';
import { issueFromCommandLine } from '../../domain/identity/request-certificate.ts';
import { revokeCertificate } from '../../domain/certificates/revoke-certificate.ts';
import type { Config } from '../../config/config.ts';
import { positional, readFileBytes } from '../arguments.ts';
import type { Command } from '../command.ts';
import { CliError } from '../command.ts';
import { cliActingFor, configFor, withContainer } from '../context.ts';

function requireOwnAuthority(config: Config): void {
  if (config.caCertFile !== null) {
    throw new CliError(
      `APPSTORE_CA_CERT is set (${config.caCertFile}): this store trusts an external authority, whose key it does not hold. Issue certificates there.`,
    );
  }
}

const ORIGIN_WORDS = {
  existing: 'already exists',
  created: 'created',
  imported: 'imported from the data directory',
} as const;

export const caInitCommand: Command = {
  path: ['ca', 'init'],
  usage: 'appstore ca init',
  summary: "create the store's certificate authority (if none)",
  help: `Creates the store's own certificate authority in the database: an RSA 4096 key, sealed
under the secret key (APPSTORE_SECRET_KEY_FILE), and a self-signed certificate valid 20 years.
Every node on the database issues with it and trusts it. Does nothing when it exists; an
authority an earlier version kept in APPSTORE_DATA_DIR/ca is imported. \`serve\` does this on
first start when APPSTORE_CA_CERT is not set. Nextcloud servers installing apps signed under it
must trust its certificate (\`appstore ca certificate\`).`,
  async run(_input, io) {
    requireOwnAuthority(configFor(io));
    const { origin, subject } = await withContainer(io, async (container) => {
      const result = await ensureOwnAuthority(
        container.identity,
        container.accounts.keys,
        container.legacyAuthority,
        container.now(),
        cliActingFor(io),
      );
      const stored = await container.identity.readAuthority();
      return { origin: result, subject: stored === null ? '' : new X509Certificate(stored.certificatePem).subject };
    });
    io.out(`${ORIGIN_WORDS[origin]}: ${subject.replace(/\n/g, ', ')}`);
    return 0;
  },
};

export const caCertificateCommand: Command = {
  path: ['ca', 'certificate'],
  usage: 'appstore ca certificate',
  summary: "print the certificates of the store's authority (PEM)",
  help: `Prints the certificate of the store's own authority, then those of earlier authorities
it still trusts (after \`appstore ca rotate\`). This is what a Nextcloud server must trust to
install apps published here (docs/operations.md).`,
  async run(_input, io) {
    requireOwnAuthority(configFor(io));
    io.write(await withContainer(io, (container) => trustedOwnCertificates(container.identity), { reads: true }));
    return 0;
  },
};

export const caRotateCommand: Command = {
  path: ['ca', 'rotate'],
  usage: 'appstore ca rotate',
  summary: 'start a new authority; the current one stays trusted',
  help: `Creates a new authority that issues every certificate from now on. The current one is
retired: still trusted, so the certificates it issued keep registering and publishing (revoke
them one by one with \`appstore ca revoke\`). Every node takes the new authority at once.
Nextcloud servers must trust the new certificate too (\`appstore ca certificate\`).`,
  async run(_input, io) {
    requireOwnAuthority(configFor(io));
    const result = await withContainer(io, (container) =>
      rotateOwnAuthority(container.identity, container.accounts.keys, container.now(), cliActingFor(io)),
    );
    io.out(`retired: ${result.retired.replace(/\n/g, ', ')}\nissuing: ${result.current.replace(/\n/g, ', ')}`);
    return 0;
  },
};

export const caIssueCommand: Command = {
  path: ['ca', 'issue'],
  usage: 'appstore ca issue CSR_FILE',
  positionals: ['CSR_FILE'],
  summary: 'sign a CSR whose CN is an app id; print the certificate (PEM)',
  help: `Signs a certificate request made with
  openssl req -new -newkey rsa:4096 -nodes -keyout APP_ID.key -subj /CN=APP_ID -out APP_ID.csr
The CN must be a valid app id and the key RSA. The certificate (valid 10 years) goes to stdout.
Creates the authority first if there is none. The certificate is recorded and audited
(certificate.issued), so an administrator can revoke it by its serial on the admin pages.`,
  async run(input, io) {
    const csr = readFileBytes(positional(input, 0), io).toString('utf8');
    requireOwnAuthority(configFor(io));
    const pem = await withContainer(io, async (container) => {
      const acting = cliActingFor(io);
      await ensureOwnAuthority(
        container.identity,
        container.accounts.keys,
        container.legacyAuthority,
        container.now(),
        acting,
      );
      return issueFromCommandLine(csr, acting, container.certificateRequests);
    });
    io.write(pem);
    return 0;
  },
};

export const caRevokeCommand: Command = {
  path: ['ca', 'revoke'],
  usage: 'appstore ca revoke CERT_FILE',
  positionals: ['CERT_FILE'],
  summary: 'revoke a certificate of any authority the store trusts',
  help: `Records the certificate's serial as revoked in the database: registration with it, and
publishing for an app whose current certificate it is, are refused from now on, on every node.
Works for certificates of any authority the store trusts (APPSTORE_CA_CERT or its own).`,
  async run(input, io) {
    const pem = readFileBytes(positional(input, 0), io).toString('utf8');
    const result = await withContainer(io, async (container) =>
      revokeCertificate(pem, await container.trust(), container.revocations, container.now(), cliActingFor(io)),
    );
    const what = `certificate ${result.serial}${result.appId === null ? '' : ` (${result.appId})`}`;
    io.out(
      result.alreadyRevoked ? `${what} was already revoked on ${result.revokedAt.toISOString()}` : `revoked ${what}`,
    );
    return 0;
  },
};
