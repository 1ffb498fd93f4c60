// The published JSON Schemas (schemas/*.json, draft 2020-12), read by one validator (ajv): the
// CLI checks bench reports with it at run time (one read back by --render, --from, --compare, or
// about to be written), and tests hold the engine's readers and the files topocoll writes to the
// same schemas with it. Rules and topology files themselves are read by the engine's C++ reader.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';

export type SchemaName = 'bench' | 'rules' | 'topology';

const SCHEMA_DIR = path.resolve(__dirname, '..', '..', 'schemas');
const compiled = new Map<SchemaName, ValidateFunction>();

function validator(name: SchemaName): ValidateFunction {
  let validate = compiled.get(name);
  if (!validate) {
    // Loaded on first use: only bench's report commands and tests validate.
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const Ajv2020 = require('ajv/dist/2020').default as typeof import('ajv/dist/2020').default;
    // strictSchema: a keyword ajv does not know is an error, so a schema cannot say what no
    // validator checks. The other strict checks are style (`required` inside an if/then,
    // `pattern` on an anyOf branch's string), which these schemas use on purpose.
    const ajv = new Ajv2020({ allErrors: true, strictSchema: true, strictTypes: false, strictRequired: false, strictTuples: false });
    validate = ajv.compile(JSON.parse(readFileSync(path.join(SCHEMA_DIR, `${name}.schema.json`), 'utf8')));
    compiled.set(name, validate);
  }
  return validate;
}

/** "/records/0/bytes" as "$.records[0].bytes". */
function jsonPath(pointer: string): string {
  return '$' + pointer.split('/').slice(1).map((k) => (/^\d+$/.test(k) ? `[${k}]` : `.${k.replace(/~1/g, '/').replace(/~0/g, '~')}`)).join('');
}

function describe(e: ErrorObject): string {
  const at = jsonPath(e.instancePath);
  if (e.keyword === 'required') return `${at}: missing ${(e.params as { missingProperty: string }).missingProperty}`;
  if (e.keyword === 'additionalProperties') return `${at}: unknown key ${(e.params as { additionalProperty: string }).additionalProperty}`;
  if (e.keyword === 'enum') return `${at}: must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
  return `${at}: ${e.message}`;
}

/** Errors of `value` against schemas/<name>.schema.json ("$.path: what"), empty when valid. */
export function schemaErrors(name: SchemaName, value: unknown): string[] {
  const validate = validator(name);
  return validate(value) ? [] : (validate.errors ?? []).map(describe);
}
