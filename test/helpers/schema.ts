// The published JSON Schemas (schemas/*.json, draft 2020-12) as a real validator reads them (ajv,
// a dev dependency): tests hold the engine's readers and the files topocoll writes to them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';

// strictSchema: a keyword ajv does not know is an error, so a schema cannot say what no validator
// checks. The other strict checks are style (\`required\` inside an if/then, \`pattern\` on an anyOf
// branch's string), which these schemas use on purpose.
const ajv = new Ajv2020({ allErrors: true, strictSchema: true, strictTypes: false, strictRequired: false, strictTuples: false });
const compiled = new Map<string, ValidateFunction>();

/** Errors of `value` against schemas/<name>.schema.json ("/path: message"), empty when valid. */
export function schemaErrors(name: 'bench' | 'rules' | 'topology', value: unknown): string[] {
  let validate = compiled.get(name);
  if (!validate) {
    const file = path.resolve(__dirname, '../../schemas', `${name}.schema.json`);
    validate = ajv.compile(JSON.parse(readFileSync(file, 'utf8')));
    compiled.set(name, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message}`);
}
