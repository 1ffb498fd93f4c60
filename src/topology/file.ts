// Topology files (TOPOCOLL_TOPOLOGY, YAML or JSON): the machine as seed 004 sees it, a tree of
// levels from the widest (the network joining everything) to the narrowest, each with the time
// and bandwidth of its links (t_l, b_l). Which ranks share a module at a level comes from the
// job: hostnames, the optional host groups (racks, switches), and the optional rank -> virtual
// node map that imposes a hierarchy on the ranks of one host. Published schema:
// schemas/topology.schema.json; the native engine reads the same files (JSON) in
// native/engine/topology/. A bad file is an error naming the file, line, key and valid choices.
import { parseYamlFile, readTextFile, type Fail, type KeyPath } from '../config/document';
import { parseQuantity } from '../config/quantity';

/** What the modules of a level are: ranks share a module when they share this. */
export type LevelScope = 'system' | 'group' | 'host' | 'virtual_node';
/** Widest first; a file's levels follow this order, each scope at most once. */
const LEVEL_SCOPES: readonly LevelScope[] = ['system', 'group', 'host', 'virtual_node'];

export interface TopologyLevel {
  readonly name: string;
  readonly scope: LevelScope;
  /** t_l for a zero-byte message, seconds. */
  readonly latency: number;
  /** b_l, bytes per second. */
  readonly bandwidth: number;
  /** Bytes per second per direction while two ranks send to each other at once (the model's exchanges); absent: `bandwidth`. */
  readonly exchangeBandwidth?: number;
  /** Line of the level's entry in the file (0 when built from an object). */
  readonly line: number;
}

/** Rank -> virtual node, in the forms TOPOCOLL_VIRTUAL_NODES accepts. Ranks are world ranks. */
export type VirtualNodeMap =
  | { readonly kind: 'block'; readonly ranksPerNode: number }
  | { readonly kind: 'cyclic'; readonly nodes: number }
  | { readonly kind: 'list'; readonly nodes: readonly number[] };

export interface Topology {
  /** The file it was read from, for messages. */
  readonly source: string;
  readonly name?: string;
  readonly description?: string;
  /** Widest first. */
  readonly levels: readonly TopologyLevel[];
  /** Hostname -> group name; present exactly when a level has scope `group`. */
  readonly groups?: Readonly<Record<string, string>>;
  /** Present exactly when a level has scope `virtual_node`. */
  readonly virtualNodes?: VirtualNodeMap;
  /** Bytes a reduce op combines per second on one rank (the model's 1/γ; `bench --calibrate` measures it); absent: the model's default. */
  readonly reduceBandwidth?: number;
  /** Line of a top-level key, for errors found when the topology meets a job. */
  readonly lines: Readonly<Record<string, number>>;
}

export class TopologyError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly key: string,
    readonly detail: string,
  ) {
    super(`${file}${line ? `:${line}` : ''}: ${key ? `${key}: ` : ''}${detail}`);
    this.name = 'TopologyError';
  }
}

const TOP_KEYS = ['$schema', 'name', 'description', 'levels', 'groups', 'virtual_nodes', 'reduce_bandwidth'] as const;
const LEVEL_KEYS = ['name', 'scope', 'latency', 'bandwidth', 'exchange_bandwidth'] as const;
const VIRTUAL_NODE_FORMS = 'block:K (K consecutive ranks per node), cyclic:N (ranks dealt round-robin to N nodes), or a list with the node of each rank ([0, 0, 1, 1])';

export function keyName(path: KeyPath): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

/** Reads values out of a parsed document; errors carry file, line and key path. */
class Reader {
  constructor(
    readonly file: string,
    private readonly root: unknown,
    readonly lineOf: (path: KeyPath) => number | undefined,
  ) {}

  fail(path: KeyPath, detail: string): never {
    throw new TopologyError(this.file, this.lineOf(path), keyName(path), detail);
  }

  get(path: KeyPath): unknown {
    let v: unknown = this.root;
    for (const k of path) {
      if (v === null || typeof v !== 'object') return undefined;
      v = (v as Record<string | number, unknown>)[k];
    }
    return v;
  }

  mapping(path: KeyPath, allowed?: readonly string[]): Record<string, unknown> {
    const v = this.get(path);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(path, `must be a mapping, got ${describe(v)}`);
    if (allowed) {
      for (const key of Object.keys(v as object)) {
        if (!allowed.includes(key)) this.fail([...path, key], `unknown key; valid keys: ${allowed.join(', ')}`);
      }
    }
    return v as Record<string, unknown>;
  }

  string(path: KeyPath, required: boolean): string | undefined {
    const v = this.get(path);
    if (v === undefined || v === null) {
      if (required) this.fail(path, 'is required');
      return undefined;
    }
    if (typeof v !== 'string' || v.trim() === '') this.fail(path, `must be a non-empty string, got ${describe(v)}`);
    return v;
  }

  /** A number in base units, or a string with a unit ("15 us", "1 Gbit/s"). */
  quantity(path: KeyPath, dim: 'time' | 'bandwidth'): number {
    const v = this.get(path);
    const example = dim === 'time' ? '"15 us"' : '"1 Gbit/s"';
    const base = dim === 'time' ? 'seconds' : 'bytes per second';
    if (v === undefined || v === null) this.fail(path, `is required (a number in ${base}, or a string with a unit such as ${example})`);
    let value: number;
    if (typeof v === 'number') {
      value = v;
    } else if (typeof v === 'string') {
      try {
        value = parseQuantity(v, dim);
      } catch (err) {
        this.fail(path, (err as Error).message);
      }
    } else {
      this.fail(path, `must be a number in ${base} or a string with a unit such as ${example}, got ${describe(v)}`);
    }
    if (!Number.isFinite(value) || value < 0 || (dim === 'bandwidth' && value === 0)) {
      this.fail(path, `must be a finite ${dim === 'bandwidth' ? 'positive' : 'non-negative'} ${dim}, got ${JSON.stringify(v)}`);
    }
    return value;
  }
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v} ${JSON.stringify(v)}`;
}

const WHOLE = /^(0|[1-9]\d{0,8})$/;

/** Parses the string forms of a virtual node map, exactly as TOPOCOLL_VIRTUAL_NODES does. */
function parseVirtualNodeText(text: string): VirtualNodeMap | string {
  for (const [prefix, kind] of [['block:', 'block'], ['cyclic:', 'cyclic']] as const) {
    if (!text.startsWith(prefix)) continue;
    const n = text.slice(prefix.length);
    if (!WHOLE.test(n) || Number(n) < 1) return `needs a whole number >= 1 after "${prefix}"`;
    return kind === 'block' ? { kind, ranksPerNode: Number(n) } : { kind, nodes: Number(n) };
  }
  const parts = text.split(',');
  if (!parts.every((p) => WHOLE.test(p))) return 'is not valid';
  return { kind: 'list', nodes: parts.map(Number) };
}

function readVirtualNodes(r: Reader): VirtualNodeMap {
  const path = ['virtual_nodes'];
  const v = r.get(path);
  if (typeof v === 'string') {
    const m = parseVirtualNodeText(v);
    if (typeof m === 'string') r.fail(path, `"${v}" ${m}; valid forms: ${VIRTUAL_NODE_FORMS}`);
    return m;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) r.fail(path, `is an empty list; valid forms: ${VIRTUAL_NODE_FORMS}`);
    v.forEach((n, i) => {
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 999_999_999) {
        r.fail([...path, i], `must be a virtual node number >= 0, got ${describe(n)}`);
      }
    });
    return { kind: 'list', nodes: v as number[] };
  }
  r.fail(path, `must be a string or a list, got ${describe(v)}; valid forms: ${VIRTUAL_NODE_FORMS}`);
}

function readTopology(r: Reader): Topology {
  r.mapping([], TOP_KEYS);
  const rawLevels = r.get(['levels']);
  if (rawLevels === undefined || rawLevels === null) r.fail(['levels'], 'is required: a list of levels, widest first');
  if (!Array.isArray(rawLevels) || rawLevels.length === 0) r.fail(['levels'], `must be a non-empty list of levels, widest first, got ${describe(rawLevels)}`);
  const names = new Set<string>();
  const levels = rawLevels.map((_, i): TopologyLevel => {
    r.mapping(['levels', i], LEVEL_KEYS);
    const name = r.string(['levels', i, 'name'], true)!;
    if (names.has(name)) r.fail(['levels', i, 'name'], `"${name}" names two levels; level names must differ`);
    names.add(name);
    const scope = r.string(['levels', i, 'scope'], true)!;
    if (!LEVEL_SCOPES.includes(scope as LevelScope)) r.fail(['levels', i, 'scope'], `"${scope}" is not valid; valid choices: ${LEVEL_SCOPES.join(', ')}`);
    return {
      name,
      scope: scope as LevelScope,
      latency: r.quantity(['levels', i, 'latency'], 'time'),
      bandwidth: r.quantity(['levels', i, 'bandwidth'], 'bandwidth'),
      ...(r.get(['levels', i, 'exchange_bandwidth']) !== undefined && { exchangeBandwidth: r.quantity(['levels', i, 'exchange_bandwidth'], 'bandwidth') }),
      line: r.lineOf(['levels', i]) ?? 0,
    };
  });
  for (let i = 1; i < levels.length; i++) {
    const [prev, cur] = [LEVEL_SCOPES.indexOf(levels[i - 1].scope), LEVEL_SCOPES.indexOf(levels[i].scope)];
    if (cur <= prev) {
      r.fail(['levels', i, 'scope'], `"${levels[i].scope}" cannot follow "${levels[i - 1].scope}": levels go from the widest to the narrowest, each scope at most once, in the order ${LEVEL_SCOPES.join(', ')}`);
    }
  }

  const hasScope = (s: LevelScope) => levels.some((l) => l.scope === s);
  let groups: Record<string, string> | undefined;
  if (r.get(['groups']) !== undefined) {
    if (!hasScope('group')) r.fail(['groups'], 'is given but no level has scope group; add one, or remove groups');
    const g = r.mapping(['groups']);
    if (Object.keys(g).length === 0) r.fail(['groups'], 'must map at least one hostname to its group');
    groups = {};
    for (const host of Object.keys(g)) groups[host] = r.string(['groups', host], true)!;
  } else if (hasScope('group')) {
    const i = levels.findIndex((l) => l.scope === 'group');
    r.fail(['levels', i, 'scope'], 'a level with scope group needs `groups` (hostname -> group name)');
  }

  let virtualNodes: VirtualNodeMap | undefined;
  if (r.get(['virtual_nodes']) !== undefined) {
    if (!hasScope('virtual_node')) r.fail(['virtual_nodes'], 'is given but no level has scope virtual_node; add one, or remove virtual_nodes');
    virtualNodes = readVirtualNodes(r);
  } else if (hasScope('virtual_node')) {
    const i = levels.findIndex((l) => l.scope === 'virtual_node');
    r.fail(['levels', i, 'scope'], `a level with scope virtual_node needs \`virtual_nodes\`: ${VIRTUAL_NODE_FORMS}`);
  }

  const lines: Record<string, number> = {};
  for (const k of TOP_KEYS) {
    const line = r.get([k]) !== undefined ? r.lineOf([k]) : undefined;
    if (line) lines[k] = line;
  }
  return {
    source: r.file,
    name: r.string(['name'], false),
    description: r.string(['description'], false),
    levels,
    groups,
    virtualNodes,
    ...(r.get(['reduce_bandwidth']) !== undefined && { reduceBandwidth: r.quantity(['reduce_bandwidth'], 'bandwidth') }),
    lines,
  };
}

const fileError = (file: string): Fail => (line, detail) => {
  throw new TopologyError(file, line, '', detail);
};

/** Parses a topology file's text (YAML or JSON); `file` names it in errors. */
export function parseTopology(text: string, file: string): Topology {
  const { value, lineOf } = parseYamlFile(text, fileError(file));
  if (value === undefined) throw new TopologyError(file, undefined, '', 'is empty; a topology needs at least `levels`');
  return readTopology(new Reader(file, value, lineOf));
}

/** A topology from an already parsed object (a test fixture, JSON.parse output). */
export function topologyFromObject(obj: unknown, source = '<object>'): Topology {
  return readTopology(new Reader(source, obj, () => undefined));
}

export function loadTopology(file: string): Topology {
  return parseTopology(readTopologyText(file), file);
}

/** A topology file's text; errors as the engine's (a directory, an unreadable file). */
export function readTopologyText(file: string): string {
  return readTextFile(file, 'topology file', fileError(file));
}

/**
 * The normalized form: JSON the native engine reads (what `topocoll topology --json` prints):
 * every key explicit, latencies in seconds and bandwidths in bytes per second.
 */
export function normalizeTopology(t: Topology): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (t.name !== undefined) out.name = t.name;
  if (t.description !== undefined) out.description = t.description;
  // Unit conversion leaves float noise (15 us -> 1.4999999999999999e-5): 15 digits are exact enough.
  const clean = (x: number) => Number(x.toPrecision(15));
  out.levels = t.levels.map((l) => ({
    name: l.name,
    scope: l.scope,
    latency: clean(l.latency),
    bandwidth: clean(l.bandwidth),
    ...(l.exchangeBandwidth !== undefined && { exchange_bandwidth: clean(l.exchangeBandwidth) }),
  }));
  if (t.groups) out.groups = { ...t.groups };
  if (t.virtualNodes) out.virtual_nodes = t.virtualNodes.kind === 'list' ? [...t.virtualNodes.nodes] : virtualNodeText(t.virtualNodes);
  if (t.reduceBandwidth !== undefined) out.reduce_bandwidth = clean(t.reduceBandwidth);
  return out;
}

/** The TOPOCOLL_VIRTUAL_NODES form of a map (lists as "0,0,1,1"). */
function virtualNodeText(m: VirtualNodeMap): string {
  return m.kind === 'block' ? `block:${m.ranksPerNode}` : m.kind === 'cyclic' ? `cyclic:${m.nodes}` : m.nodes.join(',');
}
