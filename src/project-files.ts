import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's directory (where package.json is), found from this module's place: the same
 * whether the sources run through tsx (src/) or bundled into dist/appstore.mjs, where every
 * module shares one address and paths relative to a module would point elsewhere.
 */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

const ROOT = projectRoot();

/** A file of the project by its path from the project's directory (`src/web/static/site.css`). */
export function projectFile(relative: string): string {
  return path.join(ROOT, relative);
}
