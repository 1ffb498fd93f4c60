// Topology files (TOPOCOLL_TOPOLOGY, YAML or JSON): the machine as seed 004 sees it, a tree of
// levels from the widest (the network joining everything) to the narrowest, each with the time
// and bandwidth of its links (t_l, b_l). Which ranks share a module at a level comes from the
// job: hostnames, the optional host groups (racks, switches), and the optional rank -> virtual
// node map that imposes a hierarchy on the ranks of one host. Published schema:
// schemas/topology.schema.json. The one reader is the engine's (native/engine/topology/), which
// the Node side calls through the addon (src/mpi/files.ts); this module holds the format's types
// and its normalized form. A bad file is an error naming the file, line, key and valid choices.

/** What the modules of a level are: ranks share a module when they share this (widest first: system, group, host, virtual_node). */
export type LevelScope = 'system' | 'group' | 'host' | 'virtual_node';

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
  /** Lines of the top-level keys groups and virtual_nodes, for errors found when the topology meets a job. */
  readonly lines: { readonly groups?: number; readonly virtual_nodes?: number };
}

/** A topology file the reader refused: "file[:line]: message" (the message names the key). */
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
