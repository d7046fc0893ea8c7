// Compiles the test files, and the sources they import, once with esbuild into .test-build/ (the
// same paths, .mjs): each test file's process then loads a few JavaScript modules instead of
// compiling several hundred TypeScript files through tsx's loader (about 2 s of CPU per file, most
// of the suite's time before). Code shared by several test files goes into chunks. The service's
// packages are bundled as in the bundle users run (loading fastify, Ajv, Kysely … file by file took
// 0.5 s per test file); those only the tests use, and those with native code, load from
// node_modules. `import.meta.url`, `.dirname` and `.filename` keep naming the source file, so a
// test finds its fixtures, and a source file its project, where they are.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { EXTERNAL } from './build.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const TEST_BUILD = path.join(ROOT, '.test-build');

/** Every *.test.ts under src/ and test/, relative to the project, sorted. */
export function allTestFiles() {
  const files = [];
  for (const dir of ['src', 'test']) {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { recursive: true })) {
      if (String(entry).endsWith('.test.ts')) files.push(path.join(dir, String(entry)));
    }
  }
  return files.sort();
}

/** Where the compiled form of a test file (relative to the project) is written. */
export function compiledTestFile(file) {
  return path.join(TEST_BUILD, file.replace(/\.ts$/, '.mjs'));
}

/** The packages only the tests and tools use (package.json's devDependencies). */
function testOnlyPackages() {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  return Object.keys(manifest.devDependencies ?? {});
}

/** Replaces import.meta's location fields by the source file's own, as literals. */
const keepSourceLocation = {
  name: 'keep-source-location',
  setup(build) {
    build.onLoad({ filter: /\.(ts|m?js)$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const loader = args.path.endsWith('.ts') ? 'ts' : 'js';
      const source = await fs.promises.readFile(args.path, 'utf8');
      if (!source.includes('import.meta')) return { contents: source, loader };
      const contents = source
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
        .replaceAll('import.meta.filename', JSON.stringify(args.path))
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents, loader };
    });
  },
};

/**
 * Compiles the given test files (relative to the project) into .test-build/, replacing what was
 * there. Returns the files among them that reach the test database: those whose compiled code,
 * with every chunk it imports, includes test/helpers/test-database.ts.
 */
export async function buildTests(files) {
  const { build } = await import('esbuild');
  fs.rmSync(TEST_BUILD, { recursive: true, force: true });
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: files.map((file) => path.join(ROOT, file)),
    outbase: ROOT,
    outdir: TEST_BUILD,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    external: [...EXTERNAL, ...testOnlyPackages().flatMap((name) => [name, `${name}/*`])],
    // Packages written as CommonJS call require(): the bundle, ES modules, gives them one.
    banner: {
      js: "import { createRequire as appstoreRequire } from 'node:module'; const require = appstoreRequire(import.meta.url);",
    },
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    plugins: [keepSourceLocation],
    logLevel: 'warning',
    metafile: true,
  });
  return filesReaching(metafile, path.join('test', 'helpers', 'test-database.ts'));
}

/** The entry points (relative to the project) of an esbuild metafile whose code includes `input`. */
function filesReaching(metafile, input) {
  const wanted = input.split(path.sep).join('/');
  const { outputs } = metafile;
  /** The output and every output it imports, at any depth. */
  const closure = (output, seen = new Set()) => {
    if (seen.has(output) || outputs[output] === undefined) return seen;
    seen.add(output);
    for (const imported of outputs[output].imports) closure(imported.path, seen);
    return seen;
  };
  return Object.entries(outputs)
    .filter(
      ([output, meta]) =>
        meta.entryPoint !== undefined && [...closure(output)].some((o) => wanted in outputs[o].inputs),
    )
    .map(([, meta]) => path.normalize(meta.entryPoint));
}

/**
 * Writes one module that imports the given compiled test files, for node's test runner to run in
 * one process: the unit tests, pure and quick, each paid 0.2 s to start a process of its own.
 */
export function writeGroup(name, files) {
  const group = path.join(TEST_BUILD, `${name}.test.mjs`);
  const imports = files.map(
    (file) =>
      `import ${JSON.stringify(`./${path.relative(TEST_BUILD, compiledTestFile(file)).split(path.sep).join('/')}`)};`,
  );
  fs.writeFileSync(
    group,
    `// The ${name} test files, run in one process (scripts/build-tests.mjs).\n${imports.join('\n')}\n`,
  );
  return group;
}
