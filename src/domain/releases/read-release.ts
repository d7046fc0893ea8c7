import { said } from '../../i18n/said.ts';
import { AppError, isAppError } from '../../errors.ts';
import { DEFAULT_ARCHIVE_LIMITS, readAppArchive } from './archive-reader.ts';
import type { AppArchive, ArchiveLimits } from './archive-reader.ts';
import { changelogSection } from './changelog.ts';
import { parseManifest } from './manifest-parser.ts';
import type { ReleaseCandidate } from './release-data.ts';
import { sanitiseIcon } from './app-icon.ts';
import type { AppIcon } from './app-icon.ts';
import type { XmlNode } from './xml-document.ts';
import { loadXmlParser } from './xml-document.ts';

export interface ReadReleaseOptions {
  readonly nightly: boolean;
  /** The store's category ids: info.xml may name only these. */
  readonly validCategories: ReadonlySet<string>;
  readonly limits?: Partial<ArchiveLimits>;
}

/**
 * The release reader (contract §6 steps 2–3): archive bytes in, the app and release as the
 * listings will show them out, or a precise refusal. No network, no database.
 */
/** app.svg (drawn light) first; app-dark.svg when there is no usable app.svg. */
function pickIcon(
  archive: AppArchive,
  maxIconBytes: number,
  parse: (bytes: Buffer, file: string) => XmlNode,
): { icon: AppIcon | null; problems: string[] } {
  const problems: string[] = [];
  let icon: AppIcon | null = null;
  for (const [bytesOfIcon, dark] of [
    [archive.icon, false],
    [archive.darkIcon, true],
  ] as const) {
    if (bytesOfIcon === undefined || icon !== null) continue;
    const result = sanitiseIcon(bytesOfIcon, dark, maxIconBytes, parse);
    if ('problem' in result) problems.push(result.problem);
    else icon = result;
  }
  return { icon, problems };
}

/**
 * The icon of an archive taken from an upstream store (mirror mode): rebuilt as a published
 * one's, or null when the archive has none that can be used, or cannot be read as an app
 * archive. Nothing here refuses the release: the upstream's archives are its business.
 */
export async function iconOfArchive(bytes: Buffer): Promise<AppIcon | null> {
  let archive: AppArchive;
  try {
    archive = await readAppArchive(bytes, DEFAULT_ARCHIVE_LIMITS);
  } catch (error) {
    if (isAppError(error)) return null;
    throw error;
  }
  if (archive.icon === undefined && archive.darkIcon === undefined) return null;
  const parseXmlDocument = await loadXmlParser();
  return pickIcon(archive, DEFAULT_ARCHIVE_LIMITS.maxIconBytes, parseXmlDocument).icon;
}

export async function readRelease(bytes: Buffer, options: ReadReleaseOptions): Promise<ReleaseCandidate> {
  const limits = { ...DEFAULT_ARCHIVE_LIMITS, ...options.limits };
  const archive = await readAppArchive(bytes, limits);
  // libxml2 (WebAssembly, about 25 MB once instantiated) is loaded when a release is first read.
  const parseXmlDocument = await loadXmlParser();
  const manifest = parseManifest(parseXmlDocument(archive.infoXml, 'info.xml'), options.validCategories);
  if (manifest.app.id !== archive.folder) {
    throw new AppError(
      'invalid_archive',
      said`the archive's folder is '${archive.folder}' but info.xml's <id> is '${manifest.app.id}'; they must be the same`,
    );
  }
  const translations: Record<string, { changelog: string }> = { en: { changelog: '' } };
  for (const [language, bytesOfChangelog] of [...archive.changelogs].sort(([a], [b]) => a.localeCompare(b))) {
    const file = language === 'en' ? 'CHANGELOG(.en).md' : `CHANGELOG.${language}.md`;
    let markdown: string;
    try {
      markdown = new TextDecoder('utf-8', { fatal: true }).decode(bytesOfChangelog);
    } catch {
      throw new AppError('invalid_archive', said`${archive.folder}/${file} is not valid UTF-8`);
    }
    const changelog = changelogSection(markdown, manifest.release.version, options.nightly);
    if (changelog !== '' || language === 'en') translations[language] = { changelog };
  }
  const { icon, problems } = pickIcon(archive, limits.maxIconBytes, parseXmlDocument);
  return {
    app: manifest.app,
    release: { ...manifest.release, isNightly: options.nightly, translations },
    icon,
    donations: manifest.donations,
    ...(problems.length === 0 || icon !== null ? {} : { iconProblem: `the icon was left out: ${problems.join('; ')}` }),
  };
}
