import { createExportFile, openExportFile } from '../../archives/export-file.ts';
import { exportMirror } from '../../domain/mirror/export-mirror.ts';
import { importMirror } from '../../domain/mirror/import-mirror.ts';
import { mirrorStatus } from '../../domain/mirror/mirror-status.ts';
import { planMirror } from '../../domain/mirror/plan-mirror.ts';
import { syncMirror } from '../../domain/mirror/sync-mirror.ts';
import type { MirrorDeps, SyncReport } from '../../domain/mirror/mirror-ports.ts';
import type { CliIo } from '../io.ts';
import { mirrorNotConfigured } from '../../mirror.ts';
import type { Container } from '../../container.ts';
import type { Command } from '../command.ts';
import { cliActingFor, withContainer } from '../context.ts';
import { counted, sizeText } from '../text.ts';

function mirrorDeps(container: Container): MirrorDeps {
  if (container.mirror.deps === null) throw mirrorNotConfigured();
  return container.mirror.deps;
}

export const mirrorSyncCommand: Command = {
  path: ['mirror', 'sync'],
  usage: 'appstore mirror sync [--recheck]',
  options: { recheck: { type: 'boolean' } },
  summary: 'bring the store up to date with its upstream (mirror mode)',
  help: `Reads the upstream's categories, platforms, apps, appapi_apps and discover documents (with
If-None-Match: an unchanged one costs a 304), takes the releases APPSTORE_MIRROR_* choose,
downloads each new archive, checks its certificate against APPSTORE_MIRROR_ROOT_CERT (and CRL)
and its signature, stores it, and applies everything in one transaction. A release that fails
a check is not listed and is printed with the reason. An upstream that is down or answers
garbage changes nothing: the previous state stays served (and the failure is recorded: see
appstore mirror status). A release refused before is checked again when the trust settings
(root, CRL) or the archive's size upstream changed; --recheck checks every refused release
again. The server also syncs on its own every APPSTORE_MIRROR_INTERVAL_MINUTES. See
docs/mirror.md.`,
  async run(input, io) {
    printSync(
      io,
      await withContainer(io, (container) =>
        syncMirror(
          cliActingFor(io),
          mirrorDeps(container),
          'mirror.synced',
          {},
          { recheck: input.values.recheck === true },
        ),
      ),
    );
    return 0;
  },
};

function printSync(io: CliIo, report: SyncReport): void {
  const documents = Object.entries(report.documents)
    .map(([name, state]) => `${name} ${state}`)
    .join(', ');
  io.out(`upstream ${report.upstream}: ${documents}`);
  io.out(
    `${counted(report.apps, 'app', 'apps')}; ${counted(report.taken, 'release', 'releases')} taken (${sizeText(report.bytes)}), ${report.unchanged} unchanged, ${report.skipped} left out by the policy, ${report.refused.length} not listed, ${report.removed} removed; ${(report.durationMs / 1000).toFixed(1)} s`,
  );
  for (const refusal of report.refused) io.out(`  not listed: ${refusal.release}: ${refusal.reason}`);
  for (const problem of report.problems) io.out(`  problem: ${problem}`);
}

export const mirrorExportCommand: Command = {
  path: ['mirror', 'export'],
  usage: 'appstore mirror export FILE [--since EARLIER-FILE]',
  positionals: ['FILE'],
  options: { since: { type: 'string' } },
  summary: 'write what this store synced (listings, archives, manifest) into one file, for an air-gapped store',
  help: `Writes FILE (a tar): the upstream documents this store last read, the archive of every
release it lists, and a manifest with the SHA-256 and size of each, itself checksummed. Nothing
is downloaded: run appstore mirror sync first. --since EARLIER-FILE leaves out the archives
that earlier export held (the importing store has them), so a regular transfer carries only
what is new. The file appears complete or not at all. See docs/mirror.md, set-up 3.`,
  async run(input, io) {
    const [file = ''] = input.positionals;
    const since = typeof input.values.since === 'string' ? input.values.since : null;
    const report = await withContainer(
      io,
      async (container) => {
        const deps = mirrorDeps(container);
        // The earlier file opened first: a refusal then leaves no partial file behind.
        const base = since === null ? null : await openExportFile(since);
        return exportMirror(cliActingFor(io), deps, createExportFile(file), base);
      },
      { reads: true },
    );
    io.out(
      `exported ${file}: export ${report.id}${report.base === null ? '' : `, incremental against ${report.base}`}`,
    );
    io.out(
      `${report.documents} documents, ${counted(report.archives, 'archive', 'archives')} (${sizeText(report.bytes)})${report.leftOut > 0 ? `, ${report.leftOut} left out (in the earlier export)` : ''}`,
    );
    return 0;
  },
};

export const mirrorImportCommand: Command = {
  path: ['mirror', 'import'],
  usage: 'appstore mirror import FILE [--older]',
  positionals: ['FILE'],
  options: { older: { type: 'boolean' } },
  summary: 'apply an export of a connected store here, checking all of it first (air-gapped)',
  help: `Checks FILE whole before changing anything: the manifest's checksum, every entry's size
and SHA-256, and, for an incremental export, that the earlier one was imported. A damaged file
is refused whole. Then applies it as a sync from it would: the releases APPSTORE_MIRROR_*
choose, each archive's certificate checked against APPSTORE_MIRROR_ROOT_CERT (and CRL) and its
signature, everything in one transaction. No network is used. A file made before the one
imported last is refused (it would take the store back) unless --older is given. See
docs/mirror.md, set-up 3.`,
  async run(input, io) {
    const [file = ''] = input.positionals;
    const report = await withContainer(io, async (container) =>
      importMirror(cliActingFor(io), mirrorDeps(container), await openExportFile(file), {
        maxArchiveBytes: container.config.limits.maxArchiveBytes,
        allowOlder: input.values.older === true,
      }),
    );
    printSync(io, report);
    return 0;
  },
};

export const mirrorPlanCommand: Command = {
  path: ['mirror', 'plan'],
  usage: 'appstore mirror plan [--recheck]',
  options: { recheck: { type: 'boolean' } },
  summary: 'show what a sync would fetch now (apps, releases, bytes), changing nothing',
  help: "Reads the upstream's documents and applies the policy as `appstore mirror sync` would, then asks each archive's size (HEAD). Each release to fetch says why: new, changed upstream, its archive missing here, unavailable before, or a refusal checked again (the trust settings or the archive's size changed, or --recheck). Nothing is downloaded or changed.",
  async run(input, io) {
    const plan = await withContainer(io, (container) =>
      planMirror(cliActingFor(io), mirrorDeps(container), { recheck: input.values.recheck === true }),
    );
    io.out(
      `upstream ${plan.upstream}: ${counted(plan.apps, 'app', 'apps')} taken, ${plan.skipped} releases left out by the policy`,
    );
    io.out(
      `to fetch: ${counted(plan.releases.length, 'release', 'releases')}, ${sizeText(plan.bytes)}${plan.unknownSizes > 0 ? ` (and ${plan.unknownSizes} of unknown size)` : ''}`,
    );
    if (plan.refusedBefore > 0)
      io.out(
        `not fetched again: ${counted(plan.refusedBefore, 'release', 'releases')} refused before, offered unchanged under the same trust settings (appstore mirror status says why; --recheck checks them again)`,
      );
    if (plan.rejudged > 0)
      io.out(
        `judged again without a download: ${counted(plan.rejudged, 'listed release', 'listed releases')} (the trust settings changed: their certificates are checked against the new root and CRL)`,
      );
    for (const release of plan.releases)
      io.out(
        `  ${release.release} (${release.why}): ${release.bytes === null ? 'size unknown' : sizeText(release.bytes)}`,
      );
    for (const problem of plan.problems) io.out(`  problem: ${problem}`);
    return 0;
  },
};

export const mirrorStatusCommand: Command = {
  path: ['mirror', 'status'],
  usage: 'appstore mirror status',
  summary: 'the upstream documents last read, and every release not listed with the reason',
  help: 'Prints when each upstream document was last read (and its ETag), how many releases are listed, and each release that is not: refused by a check, or unavailable (its archive could not be downloaded), with the reason.',
  async run(_input, io) {
    const status = await withContainer(
      io,
      (container) => mirrorStatus(cliActingFor(io), { store: mirrorDeps(container).store }),
      { reads: true },
    );
    if (status.lastChecked !== null)
      io.out(
        `upstream last checked ${status.lastChecked.at}${status.lastChecked.event === 'mirror.imported' ? ' (an import)' : ''}`,
      );
    if (status.lastFailure !== null)
      io.out(`the last sync failed at ${status.lastFailure.at}: ${status.lastFailure.reason}`);
    if (status.documents.length === 0) io.out('never synced: run appstore mirror sync');
    for (const document of status.documents)
      io.out(
        `${document.name}.json read ${document.fetchedAt}${document.etag === null ? '' : ` (ETag ${document.etag})`}`,
      );
    const listed = status.releases.filter((r) => r.status === 'listed');
    io.out(
      `${counted(listed.length, 'release', 'releases')} listed (${sizeText(listed.reduce((sum, r) => sum + r.size, 0))})`,
    );
    for (const release of status.releases.filter((r) => r.status !== 'listed'))
      io.out(
        `  ${release.status}: ${release.appId}@${release.version}${release.nightly ? ' (nightly)' : ''}: ${release.reason}`,
      );
    return 0;
  },
};
