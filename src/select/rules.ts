// Rules files (TOPOCOLL_RULES, YAML or JSON, version 1): the tuning `topocoll tune` writes and the
// engine reads between a forced algorithm and the built-in defaults. Their one reader is the
// engine's (native/engine/rules.cc), which the Node side calls through the addon
// (src/mpi/files.ts); this module holds the format's types, how a rule matches a call, and the
// JSON form `tune` writes. Schema: schemas/rules.schema.json.
import type { CollectiveName, MpiFlavour, Rule, SizeBasis } from './registry';

/** The only version of the format this topocoll reads and writes. */
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
  nonblocking?: boolean;
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
  /** A nonblocking call (MPI_I…); blocking when absent. */
  nonblocking?: boolean;
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
  if (r.nonblocking !== undefined && (call.nonblocking ?? false) !== r.nonblocking) return false;
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

/** A rules file the reader refused: "file[:line]: message" (the message names the key). */
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

// In the schema's order: the order rulesToJson writes.
const TOP_KEYS = ['$schema', 'version', 'generator', 'created', 'machine', 'mpi', 'job', 'notes', 'rules'];
const RULE_KEYS = ['collective', 'algorithm', 'basis', 'minBytes', 'maxBytes', 'minRanks', 'maxRanks', 'powerOfTwo', 'multiNode', 'nonblocking', 'minNodes', 'maxNodes', 'minRanksPerNode', 'maxRanksPerNode', 'mpi', 'why'];

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
