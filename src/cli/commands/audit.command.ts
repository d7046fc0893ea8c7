import type { AuditRecord } from '../../domain/audit/audit.ts';
import { stringOption, flag } from '../arguments.ts';
import type { Command } from '../command.ts';
import { usageError } from '../command.ts';
import { withContainer } from '../context.ts';

const DEFAULT_LIMIT = 200;

function parseSince(raw: string | undefined, usage: string): Date | undefined {
  if (raw === undefined) return undefined;
  // A day (2026-11-23) or a moment (2026-11-23T10:00:00Z); a day starts at 00:00 UTC.
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(raw)
    ? new Date(`${raw}T00:00:00Z`)
    : /^\d{4}-\d{2}-\d{2}T/.test(raw)
      ? new Date(raw)
      : new Date(NaN);
  if (Number.isNaN(parsed.getTime()))
    throw usageError(`--since '${raw.slice(0, 40)}' is not a date: use 2026-11-23 or 2026-11-23T10:00:00Z`, usage);
  return parsed;
}

function parseLimit(raw: string | undefined, usage: string): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000)
    throw usageError(`--limit '${raw.slice(0, 20)}' is not a number from 1 to 100000`, usage);
  return limit;
}

const who = (record: AuditRecord): string =>
  record.actor.kind === 'cli'
    ? `cli:${record.actor.name}`
    : record.actor.kind === 'visitor'
      ? 'visitor'
      : record.actor.name;

function line(record: AuditRecord): string {
  const parts = [record.at.toISOString(), record.event, who(record)];
  if (record.address !== null) parts.push(`from ${record.address}`);
  if (record.requestId !== null) parts.push(`request ${record.requestId}`);
  if (record.appId !== null) parts.push(`app=${record.appId}`);
  if (record.subjectUser !== null) parts.push(`user=${record.subjectUser}`);
  for (const [key, value] of Object.entries(record.details))
    parts.push(`${key}=${Array.isArray(value) ? value.join(',') : String(value)}`);
  return parts.join('  ');
}

export const auditCommand: Command = {
  path: ['audit'],
  usage: 'appstore audit [--app ID] [--user NAME] [--since DATE] [--limit N] [--json]',
  options: {
    app: { type: 'string' },
    user: { type: 'string' },
    since: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
  },
  summary: 'show who changed what, when and from where',
  help: `Prints the audit log, oldest first: every change made through the API, the website or
this command, with who made it (a user, a visitor signing up, or cli:<operating-system user>),
the client's address and request id, the app and user it was about, and what identifies the
object (release version, certificate serial and fingerprint, ...). Never a secret.
  --app ID      only changes to this app
  --user NAME   only changes by this user, or about this user
  --since DATE  only from this day (2026-11-23, UTC) or moment (2026-11-23T10:00:00Z)
  --limit N     the newest N entries that match (default ${DEFAULT_LIMIT})
  --json        one JSON array instead of lines`,
  async run(input, io) {
    const appId = stringOption(input, 'app');
    const user = stringOption(input, 'user');
    const since = parseSince(stringOption(input, 'since'), this.usage);
    const limit = parseLimit(stringOption(input, 'limit'), this.usage);
    const records = await withContainer(
      io,
      (container) =>
        container.audit.find({
          limit,
          ...(appId === undefined ? {} : { appId }),
          ...(user === undefined ? {} : { user }),
          ...(since === undefined ? {} : { since }),
        }),
      { reads: true },
    );
    if (flag(input, 'json')) {
      io.out(
        JSON.stringify(
          records.map((record) => ({ ...record, at: record.at.toISOString() })),
          null,
          2,
        ),
      );
      return 0;
    }
    if (records.length === 0) io.err('no entries match');
    for (const record of records) io.out(line(record));
    return 0;
  },
};
