// Rules files (TOPOCOLL_RULES, YAML or JSON, version 1): the tuning `topocoll tune` writes and the
// engine reads between a forced algorithm and the built-in defaults. This reader checks a file
// with its own lines (YAML's included) and hands the engine the JSON form (installRules); the
// engine's reader (native/engine/rules.cc) applies the same checks to JSON files: when no Node
// runs the program, and for a Node program's .json file. Schema: schemas/rules.schema.json.
import { isJsonFile, parseYamlFile, readTextFile, type Fail } from '../config/document';
import { envValue } from '../config/env';
import { COLLECTIVES, NATIVE, type CollectiveName, type MpiFlavour, type Rule, type SizeBasis } from './registry';

const RULES_ENV = 'TOPOCOLL_RULES';
export const RULES_VERSION = 1;

/** `native:<name>`: the system MPI's own algorithm <name> (Open MPI's or MPICH's name for it). */
export const NATIVE_PREFIX = 'native:';

/**
 * A rule of a file: the registry's Rule (`native` allowed as the algorithm, and `native:<name>`
 * with `mpi`), and conditions on the communicator's placement: the nodes it spans and its ranks
 * per node (its ranks over its nodes, rounded up), bounds inclusive.
 */
export interface FileRule {
  collective: CollectiveName;
  algorithm: string;
  basis?: SizeBasis;
  minBytes?: number;
  maxBytes?: number;
  minRanks?: number;
  maxRanks?: number;
  powerOfTwo?: boolean;
  multiNode?: boolean;
  minNodes?: number;
  maxNodes?: number;
  minRanksPerNode?: number;
  maxRanksPerNode?: number;
  mpi?: MpiFlavour;
  why?: string;
}

/** A call as rules see it: the communicator (size, nodes it spans, this MPI) and the message. */
export interface RuleCall {
  collective: CollectiveName;
  ranks: number;
  blockBytes: number;
  totalBytes: number;
  /** Nodes (shared-memory or virtual) the communicator spans; 1 when unknown. */
  nodes?: number;
  mpi?: MpiFlavour;
}

export function isPowerOfTwo(p: number): boolean {
  return p > 0 && (p & (p - 1)) === 0;
}

/** Whether a rule's conditions (a file's or a built-in default's) hold for a call: the engine's test (native/engine/rules.cc, select.h). */
export function matchesCall(r: FileRule | Rule, call: RuleCall): boolean {
  if (r.collective !== call.collective) return false;
  const p = call.ranks;
  const bytes = r.basis === 'block' ? call.blockBytes : call.totalBytes;
  if (r.minBytes !== undefined && bytes < r.minBytes) return false;
  if (r.maxBytes !== undefined && bytes >= r.maxBytes) return false;
  if (r.minRanks !== undefined && p < r.minRanks) return false;
  if (r.maxRanks !== undefined && p > r.maxRanks) return false;
  if (r.powerOfTwo !== undefined && isPowerOfTwo(p) !== r.powerOfTwo) return false;
  if (r.mpi !== undefined && r.mpi !== call.mpi) return false;
  const nodes = Math.max(1, call.nodes ?? 1);
  if (r.multiNode !== undefined && (nodes > 1 && nodes < p) !== r.multiNode) return false;
  const f = r as FileRule;
  const perNode = Math.ceil(p / nodes);
  if (f.minNodes !== undefined && nodes < f.minNodes) return false;
  if (f.maxNodes !== undefined && nodes > f.maxNodes) return false;
  if (f.minRanksPerNode !== undefined && perNode < f.minRanksPerNode) return false;
  if (f.maxRanksPerNode !== undefined && perNode > f.maxRanksPerNode) return false;
  return true;
}

export interface RulesFile {
  $schema?: string;
  version: 1;
  generator?: string;
  /** ISO 8601 time the measurements were taken. */
  created?: string;
  /** Where they were taken: hostname, CPU, cores... (free form). */
  machine?: Record<string, unknown>;
  /** The MPI library: flavour and version (free form). */
  mpi?: Record<string, unknown>;
  /** The job shape measured: ranks, nodes, ranksPerNode (free form). */
  job?: Record<string, unknown>;
  notes?: string;
  rules: FileRule[];
}

/** A rules file as read: its rules, with the line of each in the file. */
export interface LoadedRules {
  source: string;
  file: RulesFile;
  lines: number[];
}

export class RulesError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly key: string,
    readonly what: string,
  ) {
    super(`${file}${line ? `:${line}` : ''}: ${key ? `${key}: ` : ''}${what}`);
    this.name = 'RulesError';
  }
}

const TOP_KEYS = ['$schema', 'version', 'generator', 'created', 'machine', 'mpi', 'job', 'notes', 'rules'];
const RULE_KEYS = ['collective', 'algorithm', 'basis', 'minBytes', 'maxBytes', 'minRanks', 'maxRanks', 'powerOfTwo', 'multiNode', 'minNodes', 'maxNodes', 'minRanksPerNode', 'maxRanksPerNode', 'mpi', 'why'];
const BASES: readonly SizeBasis[] = ['block', 'total'];
const MPIS: readonly MpiFlavour[] = ['openmpi', 'mpich'];

type Path = (string | number)[];

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'boolean') return 'a boolean';
  if (typeof v === 'number') return 'a number';
  return 'a string';
}

function pathText(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** Checks a parsed document; `lineOf(path)` finds lines for messages. */
function readRules(file: string, doc: unknown, lineOf: (path: Path) => number | undefined): LoadedRules {
  const fail = (path: Path, what: string): never => {
    throw new RulesError(file, lineOf(path), path.length ? pathText(path) : '(top level)', what);
  };
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) fail([], `must be an object (got ${describe(doc)})`);
  const top = doc as Record<string, unknown>;
  for (const k of Object.keys(top)) if (!TOP_KEYS.includes(k)) fail([k], `unknown key; valid keys: ${TOP_KEYS.join(', ')}`);
  if (top.version === undefined) fail([], 'version: missing (this topocoll reads rules files of version 1)');
  if (top.version !== RULES_VERSION) fail(['version'], 'must be 1 (the only version this topocoll reads)');
  for (const k of ['generator', 'created', 'notes']) {
    if (top[k] !== undefined && typeof top[k] !== 'string') fail([k], `must be a string (got ${describe(top[k])})`);
  }
  for (const k of ['machine', 'mpi', 'job']) {
    const v = top[k];
    if (v !== undefined && (v === null || typeof v !== 'object' || Array.isArray(v))) fail([k], `must be an object (got ${describe(v)})`);
  }
  if (top.rules === undefined) fail([], 'rules: missing (the list of rules, first match wins)');
  if (!Array.isArray(top.rules)) fail(['rules'], `must be a list (got ${describe(top.rules)})`);
  const rules = top.rules as unknown[];
  rules.forEach((r, i) => checkRule(r, ['rules', i], fail));
  return { source: file, file: top as unknown as RulesFile, lines: rules.map((_, i) => lineOf(['rules', i]) ?? 0) };
}

function checkRule(value: unknown, at: Path, fail: (path: Path, what: string) => never): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(at, `must be an object (got ${describe(value)})`);
  const r = value as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!RULE_KEYS.includes(k)) fail([...at, k], `unknown key; valid keys: ${RULE_KEYS.join(', ')}`);
  if (r.collective === undefined) fail(at, 'collective: missing (every rule names its collective)');
  if (typeof r.collective !== 'string') fail([...at, 'collective'], `must be a string (got ${describe(r.collective)})`);
  const coll = COLLECTIVES.find((c) => c.name === r.collective);
  if (!coll) fail([...at, 'collective'], `"${r.collective}" is not a collective; valid choices: ${COLLECTIVES.map((c) => c.name).join(', ')}`);
  if (r.algorithm === undefined) fail(at, 'algorithm: missing (every rule names its algorithm)');
  if (typeof r.algorithm !== 'string') fail([...at, 'algorithm'], `must be a string (got ${describe(r.algorithm)})`);
  const algorithm = r.algorithm as string;
  const mpiOwn = algorithm.startsWith(NATIVE_PREFIX);
  if (mpiOwn && !/^[a-z][a-z0-9_]*$/.test(algorithm.slice(NATIVE_PREFIX.length))) {
    fail([...at, 'algorithm'], `"${algorithm}": native:<name> names one of the MPI's own algorithms in lowercase letters, digits and _ (native:ring)`);
  }
  if (mpiOwn && r.mpi === undefined) fail([...at, 'mpi'], `missing: a rule choosing ${algorithm} must say whose algorithm it is ("openmpi" or "mpich")`);
  const valid = [NATIVE, `${NATIVE_PREFIX}<name>`, ...coll!.algorithms.map((a) => a.name)];
  if (!mpiOwn && !valid.includes(algorithm)) {
    fail([...at, 'algorithm'], `"${algorithm}" is not an algorithm of ${coll!.name}; valid choices: ${valid.join(', ')}`);
  }
  if (r.basis !== undefined && (typeof r.basis !== 'string' || !BASES.includes(r.basis as SizeBasis))) {
    fail([...at, 'basis'], `${typeof r.basis === 'string' ? `"${r.basis}"` : describe(r.basis)} is not a size basis; valid choices: block, total`);
  }
  const whole = (k: string, min: number, max: number) => {
    const v = r[k];
    if (v === undefined) return;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      fail([...at, k], `must be a whole number in [${min}, ${max}]${typeof v === 'number' ? '' : ` (got ${describe(v)})`}`);
    }
  };
  whole('minBytes', 0, Number.MAX_SAFE_INTEGER);
  whole('maxBytes', 0, Number.MAX_SAFE_INTEGER);
  if ((r.minBytes !== undefined || r.maxBytes !== undefined) && r.basis === undefined) {
    fail([...at], 'basis: missing: a rule with minBytes or maxBytes must say whether they count one rank\'s block ("block") or all a rank receives ("total")');
  }
  if (r.minBytes !== undefined && r.maxBytes !== undefined && (r.maxBytes as number) <= (r.minBytes as number)) {
    fail([...at, 'maxBytes'], 'must be greater than minBytes (the range is [minBytes, maxBytes))');
  }
  // In the engine's order (native/engine/rules.cc): the first error is the same on both sides.
  const bounds = (min: string, max: string) => {
    whole(min, 1, 2 ** 30);
    whole(max, 1, 2 ** 30);
    if (r[min] !== undefined && r[max] !== undefined && (r[max] as number) < (r[min] as number)) fail([...at, max], `must not be less than ${min}`);
  };
  bounds('minRanks', 'maxRanks');
  for (const k of ['powerOfTwo', 'multiNode']) {
    if (r[k] !== undefined && typeof r[k] !== 'boolean') fail([...at, k], `must be true or false (got ${describe(r[k])})`);
  }
  bounds('minNodes', 'maxNodes');
  bounds('minRanksPerNode', 'maxRanksPerNode');
  if (r.mpi !== undefined) {
    if (typeof r.mpi !== 'string') fail([...at, 'mpi'], `must be a string (got ${describe(r.mpi)})`);
    if (!MPIS.includes(r.mpi as MpiFlavour)) fail([...at, 'mpi'], `"${r.mpi}" is not an MPI; valid choices: ${MPIS.join(', ')}`);
  }
  if (r.why !== undefined && typeof r.why !== 'string') fail([...at, 'why'], `must be a string (got ${describe(r.why)})`);
}

const fileError = (file: string): Fail => (line, detail) => {
  throw new RulesError(file, line, '', detail);
};

/** Parses a rules file's text (YAML or JSON); `file` names it in errors. */
export function parseRules(text: string, file: string): LoadedRules {
  const { value, lineOf } = parseYamlFile(text, fileError(file));
  if (value === undefined) throw new RulesError(file, undefined, '', 'is empty; a rules file needs at least `version: 1` and `rules`');
  return readRules(file, value, lineOf);
}

/** Checks an object (a rules file about to be written, a test fixture). */
export function rulesFromObject(obj: unknown, source = '<object>'): LoadedRules {
  return readRules(source, obj, () => undefined);
}

export function loadRules(file: string): LoadedRules {
  return parseRules(readRulesText(file), file);
}

/** A rules file's text; errors as the engine's (a directory, an unreadable file). */
function readRulesText(file: string): string {
  return readTextFile(file, 'rules file', fileError(file));
}

/** The JSON form the engine reads (and a preloaded program needs): the file as written, keys in schema order. */
export function rulesToJson(file: RulesFile): string {
  const rules = file.rules.map((r) => {
    const out: Record<string, unknown> = {};
    for (const k of RULE_KEYS) if ((r as unknown as Record<string, unknown>)[k] !== undefined) out[k] = (r as unknown as Record<string, unknown>)[k];
    return out;
  });
  const out: Record<string, unknown> = {};
  for (const k of TOP_KEYS) if (k !== 'rules' && (file as unknown as Record<string, unknown>)[k] !== undefined) out[k] = (file as unknown as Record<string, unknown>)[k];
  out.rules = rules;
  // One rule per line: the engine's own lines then point at rules, and diffs stay readable.
  const head = JSON.stringify(out, null, 2).replace(/"rules": \[[\s\S]*\]\n}$/, '"rules": [');
  return `${head}\n${rules.map((r) => `    ${JSON.stringify(r)}`).join(',\n')}\n  ]\n}\n`;
}

/**
 * TOPOCOLL_RULES, installed in the engine before loadConfig(), so that the engine keeps these
 * rules (with the file's own lines) instead of reading the file as JSON. A .json file goes over
 * as it is, to the engine's reader (isJsonFile); others are read here as YAML.
 */
export function installRulesFromEnvironment(
  native: { installRules(json: string, source: string, lines: number[]): void },
  env: NodeJS.ProcessEnv = process.env,
): void {
  const file = envValue(RULES_ENV, env);
  if (!file) return;
  try {
    const text = readRulesText(file);
    if (isJsonFile(file)) {
      native.installRules(text, file, []);
      return;
    }
    const loaded = parseRules(text, file);
    native.installRules(rulesToJson(loaded.file), file, loaded.lines);
  } catch (e) {
    if (e instanceof RulesError) throw new Error(`${RULES_ENV}: ${e.message}`);
    throw e;
  }
}
