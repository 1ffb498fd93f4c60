// The published JSON Schema (schemas/topology.schema.json) and the reader agree: the examples and
// normalized files validate, and documents the schema can judge are accepted or rejected by both.
// A small validator for the keywords the schema uses (no new packages); it throws on any other
// keyword, so the schema cannot silently outgrow it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { normalizeTopology, topologyFromObject } from '../../src/topology';

type Schema = Record<string, unknown> | boolean;
const root = path.resolve(__dirname, '../..');
const SCHEMA = JSON.parse(readFileSync(path.join(root, 'schemas/topology.schema.json'), 'utf8')) as Record<string, unknown>;
const ANNOTATIONS = new Set(['$schema', '$id', 'title', 'description']);

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Errors of `value` against `schema` ("path: what"), empty when valid. */
function validate(schema: Schema, value: unknown, at = '$'): string[] {
  if (schema === true) return [];
  if (schema === false) return [`${at}: no value is allowed`];
  const errors: string[] = [];
  const sub = (s: unknown, v: unknown, p = at) => validate(s as Schema, v, p);
  for (const [key, arg] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || key === '$defs' || key === 'then' || key === 'else') continue;
    const obj = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    const arr = Array.isArray(value) ? value : undefined;
    switch (key) {
      case '$ref': {
        const m = /^#\/\$defs\/(\w+)$/.exec(arg as string);
        if (!m) throw new Error(`unsupported $ref ${arg}`);
        errors.push(...sub((SCHEMA.$defs as Record<string, Schema>)[m[1]], value));
        break;
      }
      case 'type': {
        const t = typeOf(value);
        const ok = (arg as string) === t || (arg === 'number' && t === 'integer');
        if (!ok) errors.push(`${at}: must be ${arg}, is ${t}`);
        break;
      }
      case 'properties':
        if (obj) for (const [k, s] of Object.entries(arg as object)) if (k in obj) errors.push(...sub(s, obj[k], `${at}.${k}`));
        break;
      case 'additionalProperties':
        if (obj) {
          const known = Object.keys((schema.properties as object) ?? {});
          for (const k of Object.keys(obj)) if (!known.includes(k)) errors.push(...sub(arg, obj[k], `${at}.${k}`));
        }
        break;
      case 'required':
        if (obj) for (const k of arg as string[]) if (!(k in obj)) errors.push(`${at}: ${k} is required`);
        break;
      case 'minProperties':
        if (obj && Object.keys(obj).length < (arg as number)) errors.push(`${at}: needs ${arg} properties`);
        break;
      case 'items':
        arr?.forEach((v, i) => errors.push(...sub(arg, v, `${at}[${i}]`)));
        break;
      case 'minItems':
        if (arr && arr.length < (arg as number)) errors.push(`${at}: needs ${arg} items`);
        break;
      case 'maxItems':
        if (arr && arr.length > (arg as number)) errors.push(`${at}: at most ${arg} items`);
        break;
      case 'contains':
        if (arr && !arr.some((v) => sub(arg, v).length === 0)) errors.push(`${at}: contains no match`);
        break;
      case 'enum':
        if (!(arg as unknown[]).includes(value)) errors.push(`${at}: not one of ${(arg as unknown[]).join(', ')}`);
        break;
      case 'const':
        if (value !== arg) errors.push(`${at}: must be ${arg}`);
        break;
      case 'pattern':
        if (typeof value === 'string' && !new RegExp(arg as string, 'u').test(value)) errors.push(`${at}: does not match ${arg}`);
        break;
      case 'minimum':
        if (typeof value === 'number' && value < (arg as number)) errors.push(`${at}: below ${arg}`);
        break;
      case 'maximum':
        if (typeof value === 'number' && value > (arg as number)) errors.push(`${at}: above ${arg}`);
        break;
      case 'exclusiveMinimum':
        if (typeof value === 'number' && value <= (arg as number)) errors.push(`${at}: not above ${arg}`);
        break;
      case 'oneOf': {
        const n = (arg as Schema[]).filter((s) => sub(s, value).length === 0).length;
        if (n !== 1) errors.push(`${at}: matches ${n} of oneOf`);
        break;
      }
      case 'allOf':
        for (const s of arg as Schema[]) errors.push(...sub(s, value));
        break;
      case 'not':
        if (sub(arg, value).length === 0) errors.push(`${at}: matches not`);
        break;
      case 'if': {
        const branch = sub(arg, value).length === 0 ? schema.then : schema.else;
        if (branch !== undefined) errors.push(...sub(branch, value));
        break;
      }
      default:
        throw new Error(`the test validator does not know the keyword "${key}"`);
    }
  }
  return errors;
}

const schemaValid = (doc: unknown) => validate(SCHEMA, doc).length === 0;
function readerValid(doc: unknown): boolean {
  try {
    topologyFromObject(doc);
    return true;
  } catch {
    return false;
  }
}

const L = (over: Record<string, unknown> = {}) => ({ name: 'net', scope: 'system', latency: '15 us', bandwidth: '1 Gbit/s', ...over });
const H = (over: Record<string, unknown> = {}) => ({ name: 'node', scope: 'host', latency: 2e-6, bandwidth: 4e9, ...over });
const G = { name: 'rack', scope: 'group', latency: '3 us', bandwidth: '25 Gbit/s' };
const V = { name: 'socket', scope: 'virtual_node', latency: 0, bandwidth: '20 GB/s' };

describe('schemas/topology.schema.json', () => {
  it('uses only keywords the validator knows (it throws otherwise) and accepts a minimal file', () => {
    expect(validate(SCHEMA, { levels: [L()] })).toEqual([]);
  });

  it.each(['two-level.yaml', 'rack-node-socket.yaml'])('examples/topology/%s validates, and so does its normalized JSON', (name) => {
    const text = readFileSync(path.join(root, 'examples/topology', name), 'utf8');
    const doc = parseYaml(text);
    expect(validate(SCHEMA, doc)).toEqual([]);
    expect(validate(SCHEMA, normalizeTopology(topologyFromObject(doc)))).toEqual([]);
  });

  // Documents the schema judges: both must agree.
  const accepted: Array<[string, unknown]> = [
    ['numbers in base units', { levels: [L({ latency: 0, bandwidth: 1 }), H()] }],
    ['every scope, with groups and virtual nodes', { levels: [L(), G, H(), V], groups: { a: 'r' }, virtual_nodes: 'block:2' }],
    ['cyclic virtual nodes', { levels: [L(), V], virtual_nodes: 'cyclic:3' }],
    ['a virtual node list as a string', { levels: [L(), V], virtual_nodes: '0,1,0' }],
    ['a virtual node list', { levels: [L(), V], virtual_nodes: [0, 1, 0] }],
    ['a description, a name and $schema', { $schema: 'x', name: 'n', description: 'd', levels: [L()] }],
  ];
  const rejected: Array<[string, unknown]> = [
    ['no levels', { name: 'x' }],
    ['empty levels', { levels: [] }],
    ['an unknown top-level key', { levels: [L()], level: 1 }],
    ['an unknown level key', { levels: [L({ speed: 1 })] }],
    ['a level without a name', { levels: [{ scope: 'system', latency: 0, bandwidth: 1 }] }],
    ['an empty name', { levels: [L({ name: ' ' })] }],
    ['a bad scope', { levels: [L({ scope: 'rack' })] }],
    ['a latency without a unit', { levels: [L({ latency: '15' })] }],
    ['a latency in bandwidth units', { levels: [L({ latency: '15 MB/s' })] }],
    ['a negative latency', { levels: [L({ latency: -1 })] }],
    ['a negative latency with a unit', { levels: [L({ latency: '-1 us' })] }],
    ['a zero bandwidth', { levels: [L({ bandwidth: 0 })] }],
    ['a zero bandwidth with a unit', { levels: [L({ bandwidth: '0.0 Gbit/s' })] }],
    ['a bandwidth in time units', { levels: [L({ bandwidth: '1 us' })] }],
    ['a boolean latency', { levels: [L({ latency: true })] }],
    ['groups without a group level', { levels: [L()], groups: { a: 'r' } }],
    ['a group level without groups', { levels: [L(), G] }],
    ['empty groups', { levels: [L(), G], groups: {} }],
    ['a group that is not a string', { levels: [L(), G], groups: { a: 1 } }],
    ['virtual nodes without a level', { levels: [L()], virtual_nodes: 'block:2' }],
    ['a virtual node level without a map', { levels: [L(), V] }],
    ['block:0', { levels: [L(), V], virtual_nodes: 'block:0' }],
    ['cyclic:x', { levels: [L(), V], virtual_nodes: 'cyclic:x' }],
    ['a bad list string', { levels: [L(), V], virtual_nodes: '0,,1' }],
    ['an empty list', { levels: [L(), V], virtual_nodes: [] }],
    ['a negative node', { levels: [L(), V], virtual_nodes: [0, -1] }],
    ['a fractional node', { levels: [L(), V], virtual_nodes: [0.5] }],
    ['a virtual node mapping', { levels: [L(), V], virtual_nodes: { a: 1 } }],
  ];
  it.each(accepted)('accepts %s, as the reader does', (_, doc) => {
    expect(validate(SCHEMA, doc)).toEqual([]);
    expect(readerValid(doc)).toBe(true);
  });
  it.each(rejected)('rejects %s, as the reader does', (_, doc) => {
    expect(schemaValid(doc)).toBe(false);
    expect(readerValid(doc)).toBe(false);
  });

  it('every unit the reader accepts passes the schema pattern, and the reverse', () => {
    for (const latency of ['1 s', '2 ms', '3 us', '3 µs', '3 μs', '4 ns', ' .5 us ', '1e3 ns', '1.5E-2 s']) {
      const doc = { levels: [L({ latency })] };
      expect([latency, schemaValid(doc)]).toEqual([latency, readerValid(doc)]);
      expect(schemaValid(doc)).toBe(true);
    }
    for (const bandwidth of ['1 B/s', '1 KB/s', '1 MB/s', '1 GB/s', '1 KiB/s', '1 MiB/s', '1 GiB/s', '8 bit/s', '1 Kbit/s', '1 Mbit/s', '10 Gbit/s', '0.5 GB/s']) {
      const doc = { levels: [L({ bandwidth })] };
      expect(schemaValid(doc)).toBe(true);
      expect(readerValid(doc)).toBe(true);
    }
    for (const bad of ['1 sec', '1 Gbps', '1 gbit/s', 'fast', '1 us us']) {
      expect(schemaValid({ levels: [L({ latency: bad, bandwidth: bad })] })).toBe(false);
      expect(readerValid({ levels: [L({ latency: bad, bandwidth: bad })] })).toBe(false);
    }
  });

  it('rules only the reader checks are stated in the schema description', () => {
    // Scope order and distinct names are beyond JSON Schema: the reader rejects what the schema lets through.
    const outOfOrder = { levels: [H(), L()] };
    const sameNames = { levels: [L(), H({ name: 'net' })] };
    for (const doc of [outOfOrder, sameNames]) {
      expect(schemaValid(doc)).toBe(true);
      expect(readerValid(doc)).toBe(false);
    }
    expect(SCHEMA.description).toMatch(/order system, group, host, virtual_node/);
    expect(SCHEMA.description).toMatch(/level names differ/);
  });
});
