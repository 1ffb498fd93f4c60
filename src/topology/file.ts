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
  /** LogGP o and g, seconds; absent: not measured (0). */
  readonly overhead?: number;
  readonly gap?: number;
  /** Seconds for a shared-memory flag set by one rank to be seen by another (a cache line's trip); absent: `latency`. */
  readonly signalLatency?: number;
  /** Whether messages pass through the node's network port, which its ranks share; absent: when the level joins hosts. */
  readonly nic?: boolean;
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
  /** Bytes per second of a local copy; absent: the narrowest level's bandwidth. */
  readonly copyBandwidth?: number;
  /** Seconds the executor spends entering one round of a schedule; absent: 0. */
  readonly roundOverhead?: number;
  /**
   * The models' cost of local work as the engine's reader resolves it (native/engine/model/
   * select_model.h's localWorkOf): seconds per byte of a copy (1 / copyBandwidth, else the
   * narrowest level's β) and of a reduce op (γ: 1 / reduceBandwidth, else the engine's default).
   */
  readonly localWork: { readonly copyBeta: number; readonly gamma: number };
  /** The shape of a node, for the models (`simulate` places ranks on it); absent: --ppn ranks on one socket. */
  readonly node?: {
    readonly sockets: number;
    readonly coresPerSocket: number;
    /** Network ports per node; ppn / nics processes share each (seed 002 §4.2). */
    readonly nics: number;
  };
  /** The switch fabric, for seed 002's contention model. */
  readonly network?: {
    /** k of the k x k crossbar switches. */
    readonly switchRadix: number;
    /** Switches a message between two nodes crosses (the maximum, unless nodesPerSwitch is known). */
    readonly hops: number;
    /** Nodes under one leaf switch: messages between them cross 1 switch. Unknown: every message crosses `hops`. */
    readonly nodesPerSwitch?: number;
    readonly clockHz: number;
    /** Bytes of the network's transfer unit (k_p). */
    readonly packetBytes: number;
  };
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
    ...(l.overhead !== undefined && { overhead: clean(l.overhead) }),
    ...(l.gap !== undefined && { gap: clean(l.gap) }),
    ...(l.signalLatency !== undefined && { signal_latency: clean(l.signalLatency) }),
    ...(l.nic !== undefined && { nic: l.nic }),
  }));
  if (t.groups) out.groups = { ...t.groups };
  if (t.virtualNodes) out.virtual_nodes = t.virtualNodes.kind === 'list' ? [...t.virtualNodes.nodes] : virtualNodeText(t.virtualNodes);
  if (t.node) out.node = { sockets: t.node.sockets, cores_per_socket: t.node.coresPerSocket, nics: t.node.nics };
  if (t.network) {
    const n = t.network;
    out.network = {
      switch_radix: n.switchRadix,
      hops: n.hops,
      ...(n.nodesPerSwitch !== undefined && { nodes_per_switch: n.nodesPerSwitch }),
      clock: clean(n.clockHz),
      packet: clean(n.packetBytes),
    };
  }
  if (t.copyBandwidth !== undefined) out.copy_bandwidth = clean(t.copyBandwidth);
  if (t.reduceBandwidth !== undefined) out.reduce_bandwidth = clean(t.reduceBandwidth);
  if (t.roundOverhead !== undefined) out.round_overhead = clean(t.roundOverhead);
  return out;
}

/** The TOPOCOLL_VIRTUAL_NODES form of a map (lists as "0,0,1,1"). */
function virtualNodeText(m: VirtualNodeMap): string {
  return m.kind === 'block' ? `block:${m.ranksPerNode}` : m.kind === 'cyclic' ? `cyclic:${m.nodes}` : m.nodes.join(',');
}
