import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { REALDATA } from './certificate-fixtures.ts';

/**
 * The original store's JSON Schema for discover.json (../shared/realdata/discover), as a test
 * oracle: null when the real data is absent. Not strict: the schema uses a keyword of its own
 * (`requiredProperties`), which validators ignore.
 */
export function discoverSchemaValidator(): ((document: unknown) => string[]) | null {
  if (REALDATA === null) return null;
  const schema = JSON.parse(
    fs.readFileSync(path.join(REALDATA, 'discover', 'app-discover.schema.json'), 'utf8'),
  ) as object;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  const validate = ajv.compile(schema);
  return (document) =>
    validate(document) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
}
