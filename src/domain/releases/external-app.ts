import { said } from '../../i18n/said.ts';
import type { Said } from '../../i18n/said.ts';
import type { XmlNode } from './xml-document.ts';

/**
 * `<external-app>` in info.xml: an ExApp, run by Nextcloud's AppAPI as a container (reference
 * §5.2, the original's AppAPI import tests). Its releases are listed in appapi_apps.json, never in
 * apps.json. `<routes>` and other children AppAPI reads from the archive itself are not the
 * store's business: they are left as they are, as the original's pre-transform drops them.
 */
export interface EnvironmentVariable {
  readonly name: string;
  readonly displayName: string;
  readonly description: string;
  /** Null when info.xml gives none. */
  readonly default: string | null;
}

export interface ExternalApp {
  /** `<system>true</system>`: AppAPI gives the app system rights. */
  readonly isSystem: boolean;
  readonly dockerInstall: { readonly registry: string; readonly image: string; readonly imageTag: string };
  /** API scopes, in the order given. */
  readonly scopes: readonly string[];
  readonly environmentVariables: readonly EnvironmentVariable[];
}

export type Report = (node: XmlNode | null, message: Said, element?: string) => void;

const REGISTRY_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::\d{1,5})?$/;
/** Docker's repository name: lower-case path components separated by /, each of letters and digits joined by . _ or -. */
const IMAGE_PATTERN = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;
const TAG_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const SCOPE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
const VARIABLE_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const MAX_TEXT = 256;
const MAX_DESCRIPTION = 4096;

const text = (node: XmlNode): string => node.text.trim();
const childrenNamed = (node: XmlNode, name: string): XmlNode[] => node.children.filter((c) => c.name === name);

/** The one child `name` of `parent`, reported when missing or repeated. */
function one(parent: XmlNode, name: string, report: Report): XmlNode | null {
  const nodes = childrenNamed(parent, name);
  if (nodes.length === 0) report(parent, said`<${name}> is required in <${parent.name}>`);
  if (nodes.length > 1) report(nodes[1] ?? null, said`only one <${name}> is allowed in <${parent.name}>`);
  return nodes[0] ?? null;
}

function checked(node: XmlNode | null, pattern: RegExp, rule: Said, report: Report): string {
  if (node === null) return '';
  const value = text(node);
  if (value.length > MAX_TEXT || !pattern.test(value)) {
    report(node, said`'${value.slice(0, 80)}' is not ${rule}`);
    return '';
  }
  return value;
}

/** The external app info.xml describes, or null for an ordinary app; problems go to `report`. */
export function parseExternalApp(info: XmlNode, report: Report): ExternalApp | null {
  const nodes = childrenNamed(info, 'external-app');
  if (nodes.length === 0) return null;
  if (nodes.length > 1) report(nodes[1] ?? null, said`only one <external-app> is allowed`);
  const external = nodes[0] as XmlNode;

  const docker = one(external, 'docker-install', report);
  const dockerInstall = {
    registry:
      docker === null
        ? ''
        : checked(
            one(docker, 'registry', report),
            REGISTRY_PATTERN,
            said`a registry host name such as ghcr.io or registry.example.com:5000`,
            report,
          ),
    image:
      docker === null
        ? ''
        : checked(
            one(docker, 'image', report),
            IMAGE_PATTERN,
            said`an image name such as nextcloud/ui_example (lower-case, / between path parts)`,
            report,
          ),
    imageTag:
      docker === null
        ? ''
        : checked(
            one(docker, 'image-tag', report),
            TAG_PATTERN,
            said`an image tag such as 1.0.0 or latest (letters, digits, _ . -; at most 128)`,
            report,
          ),
  };

  const scopes: string[] = [];
  const scopeLists = childrenNamed(external, 'scopes');
  if (scopeLists.length > 1) report(scopeLists[1] ?? null, said`only one <scopes> is allowed in <external-app>`);
  for (const list of scopeLists.slice(0, 1)) {
    for (const child of list.children) {
      if (child.name === 'required' || child.name === 'optional') {
        report(
          child,
          said`<scopes> lists each scope in a <value> (<value>FILES</value>); <${child.name}> is from an older AppAPI schema`,
        );
        continue;
      }
      if (child.name !== 'value') continue;
      const scope = checked(
        child,
        SCOPE_PATTERN,
        said`an API scope name such as FILES or NOTIFICATIONS (upper-case letters, digits and _)`,
        report,
      );
      if (scope === '') continue;
      if (scopes.includes(scope)) report(child, said`scope ${scope} is given twice`);
      else scopes.push(scope);
    }
  }

  const systemNodes = childrenNamed(external, 'system');
  if (systemNodes.length > 1) report(systemNodes[1] ?? null, said`only one <system> is allowed in <external-app>`);
  const system = systemNodes[0] === undefined ? 'false' : text(systemNodes[0]).toLowerCase();
  if (system !== 'true' && system !== 'false' && systemNodes[0] !== undefined)
    report(systemNodes[0], said`'${text(systemNodes[0]).slice(0, 20)}' must be true or false`);

  const environmentVariables: EnvironmentVariable[] = [];
  const variableLists = childrenNamed(external, 'environment-variables');
  if (variableLists.length > 1)
    report(variableLists[1] ?? null, said`only one <environment-variables> is allowed in <external-app>`);
  for (const list of variableLists.slice(0, 1)) {
    for (const variable of childrenNamed(list, 'variable')) {
      const name = checked(
        one(variable, 'name', report),
        VARIABLE_PATTERN,
        said`an environment variable name (letters, digits and _, not starting with a digit)`,
        report,
      );
      const displayName = one(variable, 'display-name', report);
      const description = childrenNamed(variable, 'description')[0];
      const fallback = childrenNamed(variable, 'default')[0];
      if (displayName !== null && (text(displayName) === '' || text(displayName).length > MAX_TEXT))
        report(displayName, said`must be a text of 1 to ${MAX_TEXT} characters`);
      if (description !== undefined && text(description).length > MAX_DESCRIPTION)
        report(description, said`must be at most ${MAX_DESCRIPTION} characters`);
      if (fallback !== undefined && fallback.text.length > MAX_TEXT)
        report(fallback, said`must be at most ${MAX_TEXT} characters`);
      if (name !== '' && environmentVariables.some((known) => known.name === name))
        report(variable, said`variable ${name} is declared twice`);
      environmentVariables.push({
        name,
        displayName: displayName === null ? '' : text(displayName),
        description: description === undefined ? '' : text(description),
        default: fallback === undefined ? null : fallback.text,
      });
    }
  }

  return { isSystem: system === 'true', dockerInstall, scopes, environmentVariables };
}

/**
 * The release fields appapi_apps.json adds, as the original serves them: `installData` is the
 * JSON text Python's json.dumps makes of {registry, image, image_tag} (", " and ": " between
 * items), which AppAPI decodes.
 */
export function appApiFields(app: ExternalApp): {
  aaIsSystem: boolean;
  deployMethods: Array<{ installType: 'docker_install'; installData: string }>;
  apiScopes: Array<{ scopeName: string }>;
  environmentVariables: Array<{ name: string; displayName: string; description: string; default: string | null }>;
} {
  const data: Array<[string, string]> = [
    ['registry', app.dockerInstall.registry],
    ['image', app.dockerInstall.image],
    ['image_tag', app.dockerInstall.imageTag],
  ];
  const installData = `{${data.map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`).join(', ')}}`;
  return {
    aaIsSystem: app.isSystem,
    deployMethods: [{ installType: 'docker_install', installData }],
    apiScopes: app.scopes.map((scopeName) => ({ scopeName })),
    environmentVariables: app.environmentVariables.map((variable) => ({ ...variable })),
  };
}
