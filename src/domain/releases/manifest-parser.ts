import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import { webAddressProblem } from '../encodings.ts';
import type { WebSchemes } from '../encodings.ts';
import { AppError } from '../../errors.ts';
import type { SaidFieldErrors } from '../../errors.ts';
import { LANGUAGE_CODE_PATTERN } from '../catalog/catalog.ts';
import { appIdProblem } from '../app-id.ts';
import { parseExternalApp } from './external-app.ts';
import { normaliseLicence } from './licences.ts';
import type { AppTranslation, Author, Dependency, Donation, Manifest, Screenshot } from './release-data.ts';
import {
  NO_REQUIREMENT,
  SEMVER_PATTERN,
  VERSION_ATTRIBUTE_PATTERN,
  compareNumericVersions,
  versionRequirement,
} from '../versions/semantic-version.ts';
import type { VersionRequirement } from '../versions/semantic-version.ts';
import type { XmlNode } from './xml-document.ts';

/**
 * info.xml, element by element (contract §6 step 3, reference §5.2). Every problem is collected
 * with its element and line; the file is refused if there is any. Unknown elements are ignored.
 */

const DEPRECATED = ['standalone', 'default_enable', 'shipped', 'public', 'remote', 'requiremin', 'requiremax'];
const DATABASES = ['sqlite', 'mysql', 'pgsql'];
const MAIL_PATTERN = /^[^@\s]+@[^.\s]+\..+$/;
const COMMAND_PATTERN = /^[a-zA-Z_-]+$/;
const PHP_CLASS_PATTERN = /^[a-zA-Z_][0-9a-zA-Z_]*(?:\\[a-zA-Z_][0-9a-zA-Z_]*)*$/;
const ROUTE_PATTERN = /^[0-9a-zA-Z_]+(?:\.[0-9a-zA-Z_]+){2}$/;
const MAX_SCREENSHOTS = 10;
const MAX_SHORT_TEXT = 128;
const MAX_TEXT = 256;

class Problems {
  readonly errors: SaidFieldErrors = {};
  add(node: XmlNode | null, message: Said, element?: string): void {
    const key = node === null ? `<${element ?? 'info'}>` : `<${element ?? node.name}> line ${node.line}`;
    (this.errors[key] ??= []).push(message);
  }
  get count(): number {
    return Object.keys(this.errors).length;
  }
}

const text = (node: XmlNode): string => node.text.trim();
const childrenNamed = (node: XmlNode, name: string): XmlNode[] => node.children.filter((c) => c.name === name);

function checkedUrl(node: XmlNode, value: string, schemes: WebSchemes, problems: Problems, what: string): string {
  const problem = value.length > MAX_TEXT ? `is longer than ${MAX_TEXT} characters` : webAddressProblem(value, schemes);
  if (problem !== null) {
    problems.add(node, said`${what} '${value.slice(0, 80)}' ${problem}`);
    return '';
  }
  return value;
}

function optionalUrl(info: XmlNode, name: string, problems: Problems): string {
  const nodes = childrenNamed(info, name);
  if (nodes.length > 1) problems.add(nodes[1] ?? null, said`only one <${name}> is allowed`);
  const node = nodes[0];
  return node === undefined ? '' : checkedUrl(node, text(node), 'http or https', problems, `<${name}>`);
}

/** name / summary / description: per language, `lang` defaulting to en, one per language. */
function translated(info: XmlNode, name: string, maxLength: number | null, problems: Problems): Map<string, string> {
  const values = new Map<string, string>();
  for (const node of childrenNamed(info, name)) {
    const language = node.attributes['lang'] ?? 'en';
    const value = text(node);
    if (!LANGUAGE_CODE_PATTERN.test(language))
      problems.add(node, said`lang="${language.slice(0, 20)}" is not a language code`);
    else if (values.has(language)) problems.add(node, said`a second <${name}> for lang="${language}"`);
    if (value === '') problems.add(node, said`is empty`);
    else if (maxLength !== null && value.length > maxLength)
      problems.add(node, said`is ${value.length} characters long; at most ${maxLength} are allowed`);
    values.set(language, value);
  }
  return values;
}

function versionAttribute(node: XmlNode, attribute: string, problems: Problems): string | undefined {
  const value = node.attributes[attribute];
  if (value === undefined) return undefined;
  if (!VERSION_ATTRIBUTE_PATTERN.test(value)) {
    problems.add(
      node,
      said`${attribute}="${value.slice(0, 40)}" is not a version Nextcloud servers can read: 1 to 3 numbers separated by dots, such as 30 or 8.1`,
    );
    return undefined;
  }
  return value;
}

function requirement(node: XmlNode, problems: Problems, required = false): VersionRequirement {
  const min = versionAttribute(node, 'min-version', problems);
  const max = versionAttribute(node, 'max-version', problems);
  for (const attribute of required ? ['min-version', 'max-version'] : []) {
    if (node.attributes[attribute] === undefined) problems.add(node, said`${attribute} is required`);
  }
  if (min !== undefined && max !== undefined && compareNumericVersions(min, max) > 0)
    problems.add(node, said`min-version ${min} is above max-version ${max}`);
  return versionRequirement(min, max);
}

function parseAuthors(info: XmlNode, problems: Problems): Author[] {
  const nodes = childrenNamed(info, 'author');
  if (nodes.length === 0) problems.add(null, said`at least one <author> is required`, 'author');
  return nodes.map((node) => {
    const name = text(node);
    if (name === '' || name.length > MAX_TEXT)
      problems.add(node, said`the author's name must be 1 to ${MAX_TEXT} characters`);
    const mail = node.attributes['mail']?.trim() ?? '';
    if (mail !== '' && !MAIL_PATTERN.test(mail))
      problems.add(node, said`mail="${mail.slice(0, 80)}" is not an e-mail address`);
    const homepage = node.attributes['homepage']?.trim() ?? '';
    if (homepage !== '') checkedUrl(node, homepage, 'http or https', problems, 'homepage');
    return { name, mail, homepage };
  });
}

/** Documentation links: https URLs are kept; `user-…`/`admin-…`/`developer-…` ids are valid but dropped. */
function parseDocumentation(info: XmlNode, problems: Problems): { user: string; admin: string; developer: string } {
  const docs = { user: '', admin: '', developer: '' };
  const node = childrenNamed(info, 'documentation')[0];
  if (node === undefined) return docs;
  for (const kind of ['user', 'admin', 'developer'] as const) {
    const child = childrenNamed(node, kind)[0];
    if (child === undefined) continue;
    const value = text(child);
    if (new RegExp(`^${kind}-[a-z]+[-a-z]*[a-z]+$`).test(value)) continue;
    docs[kind] = checkedUrl(child, value, 'https', problems, `<${kind}> documentation`);
  }
  return docs;
}

function parseCategories(info: XmlNode, validCategories: ReadonlySet<string>, problems: Problems): string[] {
  const categories: string[] = [];
  for (const node of childrenNamed(info, 'category')) {
    const raw = text(node);
    const id = raw === 'auth' ? 'security' : raw;
    if (!validCategories.has(id))
      problems.add(
        node,
        said`category '${raw.slice(0, 40)}' does not exist; valid ones: ${[...validCategories].sort().join(', ')}`,
      );
    else if (categories.includes(id)) problems.add(node, said`category '${id}' is given twice`);
    else categories.push(id);
  }
  return categories.length > 0 || childrenNamed(info, 'category').length > 0 ? categories : ['tools'];
}

function parseScreenshots(info: XmlNode, problems: Problems): Screenshot[] {
  const nodes = childrenNamed(info, 'screenshot');
  if (nodes.length > MAX_SCREENSHOTS)
    problems.add(
      nodes[MAX_SCREENSHOTS] ?? null,
      said`at most ${MAX_SCREENSHOTS} screenshots are allowed; there are ${nodes.length}`,
    );
  return nodes.slice(0, MAX_SCREENSHOTS).map((node) => {
    const url = checkedUrl(node, text(node), 'https', problems, 'the screenshot');
    const thumbnail = node.attributes['small-thumbnail']?.trim() ?? '';
    return {
      url,
      smallThumbnail: thumbnail === '' ? '' : checkedUrl(node, thumbnail, 'https', problems, 'small-thumbnail'),
    };
  });
}

interface Dependencies {
  php: VersionRequirement;
  minIntSize: number;
  platform: VersionRequirement;
  databases: Dependency[];
  phpExtensions: Dependency[];
  shellCommands: string[];
}

function parseDependencies(info: XmlNode, problems: Problems): Dependencies {
  const result: Dependencies = {
    php: NO_REQUIREMENT,
    minIntSize: 32,
    platform: NO_REQUIREMENT,
    databases: [],
    phpExtensions: [],
    shellCommands: [],
  };
  const nodes = childrenNamed(info, 'dependencies');
  const node = nodes[0];
  if (node === undefined) {
    problems.add(null, said`is required, with <nextcloud min-version="…" max-version="…"/> inside`, 'dependencies');
    return result;
  }
  if (nodes.length > 1) problems.add(nodes[1] ?? null, said`only one <dependencies> is allowed`);
  const php = childrenNamed(node, 'php');
  if (php.length > 1) problems.add(php[1] ?? null, said`only one <php> is allowed`);
  if (php[0] !== undefined) {
    result.php = requirement(php[0], problems);
    const intSize = php[0].attributes['min-int-size'];
    if (intSize !== undefined && intSize !== '32' && intSize !== '64')
      problems.add(php[0], said`min-int-size="${intSize.slice(0, 10)}" must be 32 or 64`);
    else if (intSize !== undefined) result.minIntSize = Number(intSize);
  }
  for (const database of childrenNamed(node, 'database')) {
    const id = text(database);
    if (!DATABASES.includes(id))
      problems.add(database, said`database '${id.slice(0, 40)}' is not one of ${DATABASES.join(', ')}`);
    else if (result.databases.some((d) => d.id === id)) problems.add(database, said`database '${id}' is given twice`);
    else result.databases.push({ id, ...requirement(database, problems) });
  }
  for (const command of childrenNamed(node, 'command')) {
    const name = text(command);
    if (!COMMAND_PATTERN.test(name))
      problems.add(command, said`command '${name.slice(0, 40)}' may hold only letters, - and _`);
    else result.shellCommands.push(name);
  }
  for (const lib of childrenNamed(node, 'lib')) {
    const id = text(lib);
    if (id === '' || id.length > MAX_TEXT)
      problems.add(lib, said`a PHP extension name must be 1 to ${MAX_TEXT} characters`);
    else result.phpExtensions.push({ id, ...requirement(lib, problems) });
  }
  const nextcloud = childrenNamed(node, 'nextcloud');
  if (nextcloud[0] === undefined)
    problems.add(null, said`is required inside <dependencies>, with min-version and max-version`, 'nextcloud');
  else result.platform = requirement(nextcloud[0], problems, true);
  return result;
}

/** Elements whose values name PHP classes, wherever they appear. */
function checkPhpClasses(info: XmlNode, problems: Problems): void {
  const containers: Array<[string, string]> = [
    ['background-jobs', 'job'],
    ['two-factor-providers', 'provider'],
    ['commands', 'command'],
  ];
  for (const [container, child] of containers) {
    for (const parent of childrenNamed(info, container)) {
      for (const node of childrenNamed(parent, child)) {
        if (!PHP_CLASS_PATTERN.test(text(node)))
          problems.add(node, said`'${text(node).slice(0, 80)}' is not a PHP class name`);
      }
    }
  }
  for (const steps of childrenNamed(info, 'repair-steps')) {
    for (const phase of steps.children) {
      for (const step of childrenNamed(phase, 'step')) {
        if (!PHP_CLASS_PATTERN.test(text(step)))
          problems.add(step, said`'${text(step).slice(0, 80)}' is not a PHP class name`);
      }
    }
  }
  for (const navigations of childrenNamed(info, 'navigations')) {
    for (const navigation of childrenNamed(navigations, 'navigation')) {
      const role = navigation.attributes['role'];
      if (role !== undefined && role !== 'all' && role !== 'admin')
        problems.add(navigation, said`role="${role.slice(0, 20)}" must be all or admin`);
      const route = childrenNamed(navigation, 'route')[0];
      if (route !== undefined && !ROUTE_PATTERN.test(text(route)))
        problems.add(route, said`route '${text(route).slice(0, 80)}' must look like app.controller.method`);
      const type = childrenNamed(navigation, 'type')[0];
      if (type !== undefined && !['link', 'settings'].includes(text(type)))
        problems.add(type, said`navigation type '${text(type).slice(0, 20)}' must be link or settings`);
    }
  }
}

function single(info: XmlNode, name: string, problems: Problems): XmlNode | null {
  const nodes = childrenNamed(info, name);
  if (nodes.length === 0) problems.add(null, said`is required`, name);
  if (nodes.length > 1) problems.add(nodes[1] ?? null, said`only one <${name}> is allowed`);
  return nodes[0] ?? null;
}

/** Up to three `<donation>` links, https only; the type (paypal, stripe, other) and a title optional. */
function parseDonations(info: XmlNode, problems: Problems): Donation[] {
  const nodes = childrenNamed(info, 'donation');
  if (nodes.length > 3) problems.add(nodes[3] ?? null, said`at most three <donation> links are allowed`);
  return nodes.slice(0, 3).flatMap((node): Donation[] => {
    const url = checkedUrl(node, text(node), 'https', problems, '<donation>');
    const rawType = node.attributes['type'] ?? 'other';
    const type = rawType === 'paypal' || rawType === 'stripe' || rawType === 'other' ? rawType : null;
    if (type === null) problems.add(node, said`type '${rawType.slice(0, 20)}' is not paypal, stripe or other`);
    const title = (node.attributes['title'] ?? '').trim();
    if (title.length > 100) problems.add(node, said`title is longer than 100 characters`);
    return url === '' || type === null ? [] : [{ url, type, title: title.slice(0, 100) }];
  });
}

/** Fills each text's missing languages from its English value (the union of all languages given). */
function translations(
  name: Map<string, string>,
  summary: Map<string, string>,
  description: Map<string, string>,
): Record<string, AppTranslation> {
  const languages = new Set([...name.keys(), ...summary.keys(), ...description.keys()]);
  const result: Record<string, AppTranslation> = {};
  for (const language of [...languages].sort()) {
    result[language] = {
      name: name.get(language) ?? name.get('en') ?? '',
      summary: summary.get(language) ?? summary.get('en') ?? '',
      description: description.get(language) ?? description.get('en') ?? '',
    };
  }
  return result;
}

export function parseManifest(info: XmlNode, validCategories: ReadonlySet<string>): Manifest {
  const problems = new Problems();
  if (info.name !== 'info') {
    throw new AppError(
      'invalid_info_xml',
      said`info.xml: the root element is <${info.name.slice(0, 40)}>; it must be <info>`,
    );
  }
  for (const node of info.children) {
    if (DEPRECATED.includes(node.name))
      problems.add(
        node,
        said`<${node.name}> is no longer supported (it belongs to the old ownCloud schema); remove it`,
      );
    if (node.name === 'license') problems.add(node, said`spell it <licence>`);
  }

  const idNode = single(info, 'id', problems);
  const id = idNode === null ? '' : text(idNode);
  const idProblem = idNode === null ? null : appIdProblem(id);
  if (idNode !== null && idProblem !== null)
    problems.add(idNode, said`'${id.slice(0, 64)}' is not a valid app id: ${idProblem}`);

  const name = translated(info, 'name', MAX_SHORT_TEXT, problems);
  const description = translated(info, 'description', null, problems);
  const givenSummary = translated(info, 'summary', MAX_SHORT_TEXT, problems);
  const summary = givenSummary.size > 0 ? givenSummary : new Map(description);
  for (const [element, values] of [
    ['name', name],
    ['summary', givenSummary],
    ['description', description],
  ] as const) {
    if (element === 'summary' && values.size === 0) continue;
    if (!values.has('en'))
      problems.add(null, said`an English <${element}> (lang="en" or no lang) is required`, element);
  }

  const versionNode = single(info, 'version', problems);
  const version = versionNode === null ? '' : text(versionNode);
  if (versionNode !== null && (version.length > MAX_TEXT || !SEMVER_PATTERN.test(version))) {
    problems.add(
      versionNode,
      said`'${version.slice(0, 40)}' is not a semantic version such as 1.2.3 or 1.2.3-beta.1 (three numbers; no build metadata)`,
    );
  }

  const licenceNodes = childrenNamed(info, 'licence');
  if (licenceNodes.length === 0)
    problems.add(null, said`at least one <licence> is required (an SPDX id such as AGPL-3.0-or-later)`, 'licence');
  const licenses: string[] = [];
  for (const node of licenceNodes) {
    const licence = normaliseLicence(text(node));
    if (licence === null)
      problems.add(
        node,
        said`'${text(node).slice(0, 40)}' is not a licence this store knows; use an SPDX id such as AGPL-3.0-or-later`,
      );
    else if (licenses.includes(licence)) problems.add(node, said`licence '${licence}' is given twice`);
    else licenses.push(licence);
  }

  const authors = parseAuthors(info, problems);
  const docs = parseDocumentation(info, problems);
  const categories = parseCategories(info, validCategories, problems);
  const website = optionalUrl(info, 'website', problems);
  const discussion = optionalUrl(info, 'discussion', problems);
  const bugsNode = single(info, 'bugs', problems);
  const issueTracker =
    bugsNode === null ? '' : checkedUrl(bugsNode, text(bugsNode), 'http or https', problems, '<bugs>');
  const screenshots = parseScreenshots(info, problems);
  const donations = parseDonations(info, problems);
  const dependencies = parseDependencies(info, problems);
  checkPhpClasses(info, problems);
  const externalApp = parseExternalApp(info, (node, message, element) => problems.add(node, message, element));

  if (problems.count > 0) {
    const [where = 'info.xml', messages = []] = Object.entries(problems.errors)[0] ?? [];
    const first = messages[0] ?? said`is invalid`;
    const more = problems.count - 1;
    throw new AppError(
      'invalid_info_xml',
      more === 0
        ? said`info.xml: ${where}: ${first}`
        : more === 1
          ? said`info.xml: ${where}: ${first} (and 1 more problem)`
          : said`info.xml: ${where}: ${first} (and ${more} more problems)`,
      problems.errors,
    );
  }

  return {
    donations,
    app: {
      id,
      categories,
      authors,
      userDocs: docs.user,
      adminDocs: docs.admin,
      developerDocs: docs.developer,
      issueTracker,
      website,
      discussion,
      screenshots,
      translations: translations(name, summary, description),
    },
    release: {
      version,
      phpExtensions: dependencies.phpExtensions,
      databases: dependencies.databases,
      shellCommands: dependencies.shellCommands,
      phpVersionSpec: dependencies.php.versionSpec,
      rawPhpVersionSpec: dependencies.php.rawVersionSpec,
      platformVersionSpec: dependencies.platform.versionSpec,
      rawPlatformVersionSpec: dependencies.platform.rawVersionSpec,
      minIntSize: dependencies.minIntSize,
      licenses,
      externalApp,
    },
  };
}
