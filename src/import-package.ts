/** Where scripts/load-bundle.mjs leaves its import() for the bundle. */
const BRIDGE = Symbol.for('appstore.importPackage');

/**
 * Imports a package that is an ES module with top-level await (libxml2-wasm), which require()
 * cannot load. The bundle users run is CommonJS (scripts/build.mjs), where esbuild writes every
 * import() as a require(), and it runs as a script with V8's code cache, where an import() of its
 * own would lose Node's loader: there it uses the import() its loader gives it. Elsewhere (the
 * tests, the sources through tsx) it is import() itself.
 */
export function importPackage<T>(specifier: string): Promise<T> {
  const bridge = (globalThis as { [BRIDGE]?: (specifier: string) => Promise<unknown> })[BRIDGE];
  return (bridge === undefined ? import(specifier) : bridge(specifier)) as Promise<T>;
}
