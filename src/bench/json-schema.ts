// A small JSON Schema (2020-12) validator for the keywords schemas/bench.schema.json uses: bench
// reports are checked at run time (a report read back with --render, --from, --compare; one about
// to be written), and a runtime dependency for that is not worth it. Tests check every schema
// with a real validator (ajv, test/helpers/schema.ts). It throws on any other keyword, so the
// bench schema cannot silently outgrow it.

export type Schema = Record<string, unknown> | boolean;

const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description', '$comment', 'examples', 'default']);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function typeMatches(v: unknown, t: string): boolean {
  const actual = typeOf(v);
  return actual === t || (t === 'number' && actual === 'integer');
}

function equal(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Errors of `value` against `schema` ("$.path: what"), empty when valid. */
export function validateSchema(root: Schema, value: unknown): string[] {
  const defs = (typeof root === 'object' ? (root.$defs as Record<string, Schema> | undefined) : undefined) ?? {};
  const check = (schema: Schema, v: unknown, at: string): string[] => {
    if (schema === true) return [];
    if (schema === false) return [`${at}: no value is allowed here`];
    const errors: string[] = [];
    const obj = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    const arr = Array.isArray(v) ? v : undefined;
    for (const [key, arg] of Object.entries(schema)) {
      if (ANNOTATIONS.has(key) || key === '$defs') continue;
      switch (key) {
        case '$ref': {
          const m = /^#\/\$defs\/([\w-]+)$/.exec(String(arg));
          if (!m || !(m[1] in defs)) throw new Error(`unsupported $ref ${String(arg)}`);
          errors.push(...check(defs[m[1]], v, at));
          break;
        }
        case 'type': {
          const types = Array.isArray(arg) ? (arg as string[]) : [arg as string];
          if (!types.some((t) => typeMatches(v, t))) errors.push(`${at}: must be ${types.join(' or ')} (got ${typeOf(v)})`);
          break;
        }
        case 'enum':
          if (!(arg as unknown[]).some((e) => equal(e, v))) errors.push(`${at}: must be one of ${JSON.stringify(arg)}`);
          break;
        case 'const':
          if (!equal(arg, v)) errors.push(`${at}: must be ${JSON.stringify(arg)}`);
          break;
        case 'minimum':
          if (typeof v === 'number' && v < (arg as number)) errors.push(`${at}: must be >= ${arg}`);
          break;
        case 'maximum':
          if (typeof v === 'number' && v > (arg as number)) errors.push(`${at}: must be <= ${arg}`);
          break;
        case 'exclusiveMinimum':
          if (typeof v === 'number' && v <= (arg as number)) errors.push(`${at}: must be > ${arg}`);
          break;
        case 'pattern':
          if (typeof v === 'string' && !new RegExp(arg as string, 'u').test(v)) errors.push(`${at}: must match ${arg}`);
          break;
        case 'minLength':
          if (typeof v === 'string' && v.length < (arg as number)) errors.push(`${at}: must have at least ${arg} characters`);
          break;
        case 'minItems':
          if (arr && arr.length < (arg as number)) errors.push(`${at}: must have at least ${arg} items`);
          break;
        case 'items':
          if (arr) arr.forEach((item, i) => errors.push(...check(arg as Schema, item, `${at}[${i}]`)));
          break;
        case 'required':
          if (obj) for (const k of arg as string[]) if (!(k in obj)) errors.push(`${at}: missing ${k}`);
          break;
        case 'properties':
          if (obj) {
            for (const [k, s] of Object.entries(arg as Record<string, Schema>)) if (k in obj) errors.push(...check(s, obj[k], `${at}.${k}`));
          }
          break;
        case 'additionalProperties':
          if (obj) {
            const known = new Set(Object.keys((schema.properties as Record<string, unknown>) ?? {}));
            for (const k of Object.keys(obj)) if (!known.has(k)) errors.push(...(arg === false ? [`${at}: unknown key ${k}`] : check(arg as Schema, obj[k], `${at}.${k}`)));
          }
          break;
        case 'dependentRequired':
          if (obj) {
            for (const [k, needs] of Object.entries(arg as Record<string, string[]>)) {
              if (k in obj) for (const n of needs) if (!(n in obj)) errors.push(`${at}: ${k} needs ${n}`);
            }
          }
          break;
        case 'anyOf':
          if (!(arg as Schema[]).some((s) => check(s, v, at).length === 0)) errors.push(`${at}: matches none of the allowed forms`);
          break;
        case 'oneOf': {
          const n = (arg as Schema[]).filter((s) => check(s, v, at).length === 0).length;
          if (n !== 1) errors.push(`${at}: must match exactly one of the allowed forms (matches ${n})`);
          break;
        }
        default:
          throw new Error(`json-schema: unsupported keyword ${key}`);
      }
    }
    return errors;
  };
  return check(root, value, '$');
}
