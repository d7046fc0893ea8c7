// Prints the markdown table of docs/release-reader.md: every real info.xml of the corpus
// (../shared/realdata/infoxml, or $APPSTORE_REALDATA_DIR/infoxml) and how the store judges it.
// Run: node --import tsx scripts/infoxml-corpus-table.ts
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_CATEGORY_IDS } from '../src/domain/catalog/default-categories.ts';
import { parseManifest } from '../src/domain/releases/manifest-parser.ts';
import { loadXmlParser } from '../src/domain/releases/xml-document.ts';

const parseXmlDocument = await loadXmlParser();

const root = process.env.APPSTORE_REALDATA_DIR ?? path.join(import.meta.dirname, '..', '..', 'shared', 'realdata');
const dir = path.join(root, 'infoxml');
const categories = new Set(DEFAULT_CATEGORY_IDS);
console.log('| file | outcome | version | rawPlatformVersionSpec | licences | categories |');
console.log('|---|---|---|---|---|---|');
for (const file of fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.xml'))
  .sort()) {
  try {
    const { app, release } = parseManifest(
      parseXmlDocument(fs.readFileSync(path.join(dir, file)), 'info.xml'),
      categories,
    );
    console.log(
      `| ${file} | accepted | ${release.version} | \`${release.rawPlatformVersionSpec}\` | ${release.licenses.join(', ')} | ${app.categories.join(', ')} |`,
    );
  } catch (error) {
    const detail = (error as { detail?: string }).detail ?? String(error);
    console.log(
      `| ${file} | **refused**: ${detail.replace(/\|/g, '\\|').replace(/; valid ones: [^(]*/, ' ')} | | | | |`,
    );
  }
}
