import { ensureAuthority, issueCertificate } from '../../domain/certificates/certificate-authority.ts';
import { revokeCertificate } from '../../domain/certificates/revoke-certificate.ts';
import type { Config } from '../../config.ts';
import { positional, readFileBytes } from '../arguments.ts';
import type { Command } from '../command.ts';
import { CliError } from '../command.ts';
import { configFor, withContainer } from '../context.ts';

function requireOwnAuthority(config: Config): void {
  if (config.caCertFile !== null) {
    throw new CliError(`APPSTORE_CA_CERT is set (${config.caCertFile}): this store trusts an external authority, whose key it does not hold. Issue certificates there.`);
  }
}

export const caInitCommand: Command = {
  path: ['ca', 'init'],
  usage: 'appstore ca init',
  summary: "create the store's certificate authority (if none)",
  help: `Creates the store's own certificate authority in APPSTORE_DATA_DIR/ca: an RSA 4096 key
(authority.key, readable by its owner only) and a self-signed certificate valid 20 years
(authority.crt). Does nothing when it exists. \`serve\` does this on first start when
APPSTORE_CA_CERT is not set. Nextcloud servers installing apps signed under it must trust
authority.crt (a private store's certificates do not chain to Nextcloud's own authority).`,
  async run(_input, io) {
    requireOwnAuthority(configFor(io));
    const { created, file } = await withContainer(io, async (container) => ({
      created: await ensureAuthority(container.authority, container.now()),
      file: container.authority.certificate,
    }));
    io.out(`${created ? 'created' : 'already exists'}: ${file}`);
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
Creates the authority first if there is none.`,
  async run(input, io) {
    const csr = readFileBytes(positional(input, 0), io).toString('utf8');
    requireOwnAuthority(configFor(io));
    const pem = await withContainer(io, async (container) => {
      await ensureAuthority(container.authority, container.now());
      return issueCertificate(csr, container.authority, container.now());
    });
    io.write(pem);
    return 0;
  },
};

export const caRevokeCommand: Command = {
  path: ['ca', 'revoke'],
  usage: 'appstore ca revoke CERT_FILE',
  positionals: ['CERT_FILE'],
  summary: "revoke a certificate issued by the store's authority",
  help: `Records the certificate's serial as revoked in the database: registration with it, and
publishing for an app whose current certificate it is, are refused from now on, on every node.
Works for certificates of any authority the store trusts (APPSTORE_CA_CERT or its own).`,
  async run(input, io) {
    const pem = readFileBytes(positional(input, 0), io).toString('utf8');
    const result = await withContainer(io, async (container) => revokeCertificate(pem, await container.trust(), container.revocations, container.now()));
    const what = `certificate ${result.serial}${result.appId === null ? '' : ` (${result.appId})`}`;
    io.out(result.alreadyRevoked ? `${what} was already revoked on ${result.revokedAt.toISOString()}` : `revoked ${what}`);
    return 0;
  },
};
