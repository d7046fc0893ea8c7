// The "may import" table of docs/architecture.md, kept by the linter: a file under one of these
// folders may import, from the rest of src/, only what its row names (its own folder always), and
// none of the packages its row forbids. Relative imports are resolved against the file, so the
// rule sees where an import lands, however it is spelled.
import path from 'node:path';

const ROOT = path.dirname(new URL(import.meta.url).pathname);

/** Folder (or file) under src/ → what it may import from src/ besides itself, and why. */
export const LAYERS = {
  i18n: {
    may: ['project-files.ts'],
    packages: ['fastify', 'kysely', 'better-sqlite3', 'pg', 'undici', 'nodemailer'],
    why: 'the message catalogues are text and language rules, below everything that speaks',
  },
  domain: {
    may: ['domain', 'errors.ts', 'i18n', 'import-package.ts'],
    packages: ['fastify', 'kysely', 'better-sqlite3', 'pg', 'undici', 'nodemailer'],
    why: 'domain code is free of HTTP, SQL and adapters',
  },
  storage: {
    may: ['domain', 'errors.ts', 'metrics.ts', 'config/database.ts'],
    packages: ['fastify'],
    why: 'storage implements the domain’s stores and knows nothing of HTTP, the CLI or the configuration but where its database is',
  },
  web: {
    may: ['domain', 'errors.ts', 'i18n'],
    packages: ['fastify', 'kysely'],
    why: 'pages are rendered from domain values',
  },
  http: {
    may: [
      'domain',
      'errors.ts',
      'i18n',
      'container.ts',
      'metrics.ts',
      'project-files.ts',
      'web',
      'config/connections.ts',
    ],
    packages: ['kysely', 'better-sqlite3', 'pg'],
    why: 'routes call use cases through the container, never the database',
  },
  downloads: {
    may: ['domain', 'errors.ts', 'i18n/said.ts'],
    packages: ['fastify', 'kysely'],
    why: 'an adapter implements a domain port',
  },
  archives: {
    may: ['domain', 'errors.ts', 'config/archives.ts'],
    packages: ['fastify', 'kysely'],
    why: 'an adapter implements a domain port',
  },
  mail: {
    may: ['domain', 'errors.ts', 'i18n/said.ts'],
    packages: ['fastify', 'kysely'],
    why: 'an adapter implements a domain port',
  },
  images: {
    may: ['domain', 'errors.ts', 'i18n/said.ts'],
    packages: ['fastify', 'kysely'],
    why: 'an adapter implements a domain port',
  },
  'external-login': {
    may: ['domain', 'errors.ts', 'i18n/said.ts', 'config/external-login.ts'],
    packages: ['fastify', 'kysely'],
    why: 'an adapter implements a domain port',
  },
  cli: {
    may: [
      'domain',
      'errors.ts',
      'container.ts',
      'config',
      'archives',
      'storage',
      'mirror.ts',
      'process-acting.ts',
      'project-files.ts',
      'server.ts',
      'store-log.ts',
    ],
    packages: ['fastify'],
    why: 'commands are thin adapters over the container’s use cases',
  },
};

/** A path relative to src/ with forward slashes, or null outside src/. */
function underSrc(file) {
  const relative = path.relative(path.join(ROOT, 'src'), file);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return null;
  return relative.split(path.sep).join('/');
}

/** The layer a path under src/ belongs to (its first folder, or the file itself at the top). */
function layerOf(file) {
  return underSrc(file)?.split('/')[0] ?? null;
}

/** Whether a row's entry (a folder or file under src/) covers the path. */
const covers = (entry, relative) => relative === entry || relative.startsWith(`${entry}/`);

const allowedImports = {
  meta: {
    type: 'problem',
    docs: { description: 'keeps the layers of docs/architecture.md: what each folder of src/ may import' },
    schema: [],
    messages: {
      layer:
        "src/{{from}} may not import src/{{to}} ({{why}}; docs/architecture.md, 'may import'). It may import: {{may}}.",
      package: "src/{{from}} may not import the package '{{name}}' ({{why}}; docs/architecture.md).",
    },
  },
  create(context) {
    const file = context.filename;
    const from = layerOf(file);
    const rule = from === null ? undefined : LAYERS[from];
    if (rule === undefined || file.endsWith('.test.ts')) return {};
    const check = (node) => {
      const specifier = node.source?.type === 'Literal' ? node.source.value : null;
      if (typeof specifier !== 'string') return;
      if (!specifier.startsWith('.')) {
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
        if (rule.packages.includes(name))
          context.report({ node: node.source, messageId: 'package', data: { from, name, why: rule.why } });
        return;
      }
      const target = underSrc(path.resolve(path.dirname(file), specifier));
      const targetLayer = target?.split('/')[0];
      if (target === null || targetLayer === from || rule.may.some((entry) => covers(entry, target))) return;
      const to = rule.may.some((entry) => entry.startsWith(`${targetLayer}/`)) ? target : targetLayer;
      context.report({
        node: node.source,
        messageId: 'layer',
        data: { from, to, why: rule.why, may: rule.may.map((layer) => `src/${layer}`).join(', ') },
      });
    };
    return {
      ImportDeclaration: check,
      ImportExpression: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
    };
  },
};

export const layersPlugin = { rules: { 'allowed-imports': allowedImports } };
