import { keepPublishedArchives, releaseLabel } from '../../domain/archives/keep-archives.ts';
import { ORPHAN_GRACE_MS, checkArchives, deleteOrphans } from '../../domain/archives/kept-archives.ts';
import { APP_ID_PATTERN } from '../../domain/app-id.ts';
import type { Command } from '../command.ts';
import { usageError } from '../command.ts';
import { withContainer } from '../context.ts';
import { counted, sizeText } from '../text.ts';

export const archivesKeepCommand: Command = {
  path: ['archives', 'keep'],
  usage: 'appstore archives keep [--app APP-ID]',
  options: { app: { type: 'string' } },
  summary: 'keep the archives of releases published before the store kept them',
  help: `For every release published here whose archive the store does not keep yet (published
before archives were kept, or while APPSTORE_KEEP_ARCHIVES was off), downloads the archive from
the developer's URL again, takes it only when its SHA-256 is the one recorded when it was
published (whose bytes were checked then), stores it with the others (the data directory's
archives/, or APPSTORE_ARCHIVES_S3_*), and lists the store's URL for it. The developer's URL is
kept beside it. Each release is saved as it is done: run it again after an interruption and it
goes on with what is left. A release whose developer's host is down, or now serves other bytes,
is printed with the reason and left as it is; the exit status is then 1. --app keeps one app's.`,
  async run(input, io) {
    const app = typeof input.values.app === 'string' ? input.values.app : null;
    if (app !== null && !APP_ID_PATTERN.test(app))
      throw usageError(`--app: '${app.slice(0, 40)}' is not an app id`, archivesKeepCommand.usage);
    let total = 0;
    const report = await withContainer(io, (container) =>
      keepPublishedArchives(container.keptArchives, { appId: app }, (event) => {
        if (event.kind === 'start') {
          total = event.total;
          if (total === 0) io.err('every release published here has its archive kept');
          return;
        }
        const at = `[${event.index}/${total}]`;
        if (event.kind === 'kept')
          io.err(
            `${at} kept ${releaseLabel(event.release)} (${sizeText(event.release.size)}${event.downloaded ? '' : ', stored already'})`,
          );
        else io.err(`${at} not kept: ${releaseLabel(event.release)}: ${event.reason}`);
      }),
    );
    io.out(
      `${counted(report.kept, 'archive', 'archives')} kept${report.failed > 0 ? `, ${report.failed} not (see above; run again once fixed)` : ''}`,
    );
    return report.failed > 0 ? 1 : 0;
  },
};

export const archivesCheckCommand: Command = {
  path: ['archives', 'check'],
  usage: 'appstore archives check [--delete]',
  options: { delete: { type: 'boolean' } },
  summary: 'find archives in storage that no release names, and releases whose archive is missing',
  help: `Lists the archive storage (the data directory's archives/, or APPSTORE_ARCHIVES_S3_*) and
compares it with the releases: an archive that no release names is an orphan (left by a failure
halfway, or by a mirror sync that replaced a release); a release whose archive this store serves
but storage lacks is missing (appstore archives keep, or mirror sync --recheck, fetches what can
be fetched again). Archives stored in the last hour are left out: a publish or sync under way
stores its archive before it saves the release. --delete deletes the orphans. Exit status 1
when orphans remain or archives are missing.`,
  async run(input, io) {
    const remove = input.values.delete === true;
    const { check, deleted, description } = await withContainer(
      io,
      async (container) => {
        const archives = container.keptArchives.archives;
        const found = await checkArchives(archives, container.now());
        const gone = remove ? await deleteOrphans(found.orphans, archives) : 0;
        return { check: found, deleted: gone, description: archives.storage.description };
      },
      { reads: true },
    );
    io.out(`${description}: ${counted(check.stored, 'archive', 'archives')} stored`);
    for (const sha256 of check.orphans) io.out(`  orphan: ${sha256}${remove ? ' (deleted)' : ''}`);
    for (const sha256 of check.missing) io.out(`  missing: ${sha256}`);
    if (check.recent > 0)
      io.out(
        `  ${counted(check.recent, 'archive', 'archives')} stored in the last ${ORPHAN_GRACE_MS / 60_000} minutes and named by no release yet: left alone`,
      );
    const orphansLeft = check.orphans.length - deleted;
    io.out(
      `${counted(check.orphans.length, 'orphan', 'orphans')}${remove ? ` (${deleted} deleted)` : orphansLeft > 0 ? ' (--delete deletes them)' : ''}, ${check.missing.length} missing`,
    );
    return orphansLeft > 0 || check.missing.length > 0 ? 1 : 0;
  },
};
