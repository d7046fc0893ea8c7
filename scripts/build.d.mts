/** Packages the store loads on first use only, left out of the bundle (build.mjs says which and why). */
export const LOADED_LATER: readonly string[];
/** Left out of the bundle: packages with native code or WebAssembly files, and LOADED_LATER. */
export const EXTERNAL: readonly string[];
/** What the bundle is made from, hashed: every source file's path, size and time, the packages, build.mjs. */
export function sourceFingerprint(): string;
/** The bundle's entry for the sources as they are now (it may not be built yet). */
export function bundleFor(fingerprint?: string): string;
/** Builds the bundle of the sources as they are now and returns its entry. */
export function build(): Promise<string>;
/** Runs the bundle's entry and loads every part it loads on first use; returns how many loaded. */
export function verify(entry: string): Promise<number>;
