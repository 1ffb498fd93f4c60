// Machine descriptions for the models: the hierarchy levels a message can cross (each with
// Hockney α/β and LogGP o/g), how many processes share a node's network port, the switch
// parameters of seed 002's contention model, and the local work: copies and the combining of
// reductions (γ, seconds per byte). A machine is read from a topology file (docs/topology.md),
// the engine's format, by the engine's reader (src/mpi/files.ts): the shipped profiles
// (profiles/*.yaml) are topology files with the node's shape, and a bad file stops with its
// name, line and key.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { loadTopology, topologyFromObject } from '../mpi/files';
import { TopologyError, type LevelScope, type Topology, type TopologyLevel } from '../topology/file';

/** Where two processes meet: same socket, same node, or only through the network. */
export type Scope = 'socket' | 'node' | 'system';
const SCOPES: readonly Scope[] = ['socket', 'node', 'system'];

export interface Level {
  readonly name: string;
  /** The widest scope this level serves; a message uses the first level that covers its scope. */
  readonly scope: Scope;
  /** Hockney latency α, seconds. */
  readonly alpha: number;
  /** Hockney inverse bandwidth β, seconds per byte. */
  readonly beta: number;
  /** LogGP overhead o, seconds (0 when not measured). */
  readonly overhead: number;
  /** LogGP gap g between consecutive sends of one process, seconds (0 when not measured). */
  readonly gap: number;
  /** Messages at this level pass through the node's network port, which its processes share. */
  readonly usesNic: boolean;
  /** Seconds for a shared-memory flag set by one rank to be seen by another of this level (a cache line's trip); α unless the file says. */
  readonly signalAlpha: number;
  /** β of a message to a rank that sends to the sender in the same round (both directions of one pair at once); β unless the file says. */
  readonly exchangeBeta: number;
}

/** The node's shape: sockets, cores per socket, and network ports (ppn / nics processes share each, seed 002 §4.2). */
export type NodeParams = NonNullable<Topology['node']>;
/** The switch fabric, for seed 002's contention model. */
export type NetworkParams = NonNullable<Topology['network']>;

export interface Machine {
  readonly name: string;
  readonly description: string;
  /** The file it was read from, for messages. */
  readonly source: string;
  readonly node: NodeParams;
  /** Innermost first; the last one has scope `system`. */
  readonly levels: readonly Level[];
  readonly network?: NetworkParams;
  /** Seconds per byte of a local copy; the narrowest level's β when the file does not say (the engine's rule). */
  readonly copyBeta: number;
  /**
   * γ: seconds per byte combined by a reduce op of a schedule (both operands read, the result
   * written: the whole op, not on top of a copy); the engine's default when the file does not say.
   */
  readonly gamma: number;
  /** Seconds a rank's executor spends entering one round of a schedule (software); 0 when the file does not say. */
  readonly roundOverhead: number;
}

/** The model scope of each topology scope; a group (racks, leaf switches) has none. */
const MODEL_SCOPE: Record<LevelScope, Scope | undefined> = { system: 'system', group: undefined, host: 'node', virtual_node: 'socket' };

export interface ConvertedMachine {
  readonly machine: Machine;
  /** What the models' levels cannot say, in words (a group level). */
  readonly leftOut: string[];
}

/**
 * The models' machine of a topology file: its levels innermost first. The node's shape is the
 * file's `node`; without one, `ranksPerNode` ranks per node (--ppn): with a virtual_node level
 * of `block:K`, sockets of K cores, otherwise one socket. Between nodes, messages use the widest
 * level (system, else group).
 */
export function machineFromTopology(t: Topology, ranksPerNode?: number): ConvertedMachine {
  const fail = (level: TopologyLevel | undefined, key: string, detail: string): never => {
    throw new TopologyError(t.source, level?.line || (key === 'virtual_nodes' ? t.lines.virtual_nodes : undefined), key, detail);
  };
  const leftOut: string[] = [];
  // Messages between nodes: the widest level, even a group when the file has no system level.
  const between = t.levels.filter((l) => l.scope === 'system' || l.scope === 'group');
  if (between.length === 0) fail(t.levels[0], 'levels', 'no level joins hosts (scope system or group): the models need one for messages between nodes');
  for (const l of between.slice(1)) leftOut.push(`level ${l.name} (scope ${l.scope}): the models have one level between nodes, the widest (${between[0].name})`);
  const kept = t.levels.filter((l) => l === between[0] || (l.scope !== 'system' && l.scope !== 'group'));
  let node = t.node;
  if (!node) {
    if (ranksPerNode === undefined) return fail(undefined, 'node', 'is not given, so the file does not say how many ranks a node holds: add node (sockets, cores_per_socket) or give the ranks per node');
    node = { sockets: 1, coresPerSocket: ranksPerNode, nics: 1 };
  }
  if (kept.some((l) => l.scope === 'virtual_node')) {
    const v = t.virtualNodes!;
    if (v.kind !== 'block') return fail(undefined, 'virtual_nodes', `${v.kind} maps to no sockets of the models: only block:K (sockets of K cores) does`);
    if (t.node && v.ranksPerNode !== t.node.coresPerSocket) return fail(undefined, 'virtual_nodes', `block:${v.ranksPerNode} disagrees with node.cores_per_socket (${t.node.coresPerSocket})`);
    if (!t.node) node = { sockets: Math.max(1, Math.ceil(ranksPerNode! / v.ranksPerNode)), coresPerSocket: v.ranksPerNode, nics: 1 };
  }
  const levels: Level[] = kept.reverse().map((l) => {
    const scope = l === between[0] ? 'system' : MODEL_SCOPE[l.scope]!;
    const beta = 1 / l.bandwidth;
    return {
      name: l.name,
      scope,
      alpha: l.latency,
      beta,
      exchangeBeta: l.exchangeBandwidth ? 1 / l.exchangeBandwidth : beta,
      signalAlpha: l.signalLatency ?? l.latency,
      overhead: l.overhead ?? 0,
      gap: l.gap ?? 0,
      usesNic: l.nic ?? scope === 'system',
    };
  });
  const machine: Machine = {
    name: t.name ?? path.basename(t.source).replace(/\.(ya?ml|json)$/, ''),
    description: t.description ?? '',
    source: t.source,
    node,
    levels,
    network: t.network,
    // The engine's figures: the file's, else its defaults.
    copyBeta: t.localWork.copyBeta,
    gamma: t.localWork.gamma,
    roundOverhead: t.roundOverhead ?? 0,
  };
  return { machine, leftOut };
}

/** A machine from a topology file's object (a test fixture, JSON.parse output). */
export function machineFromObject(obj: unknown, source = '<object>', ranksPerNode?: number): Machine {
  return machineFromTopology(topologyFromObject(obj, source), ranksPerNode).machine;
}

/** The profiles shipped with the package (profiles/<name>.yaml). */
const PROFILES_DIR = path.resolve(__dirname, '..', '..', 'profiles');

/** The file of shipped profile `name`. */
export function profilePath(name: string): string {
  return path.join(PROFILES_DIR, `${name}.yaml`);
}

/** The names of the shipped profiles. */
export function profileNames(): string[] {
  return readdirSync(PROFILES_DIR).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -'.yaml'.length)).sort();
}

/** Whether loadProfile takes `nameOrPath` as a file (else as a shipped profile's name). */
export function isProfilePath(nameOrPath: string): boolean {
  return nameOrPath.includes('/') || nameOrPath.includes(path.sep) || /\.(ya?ml|json)$/.test(nameOrPath);
}

/** A shipped profile by name ("bxj"), or a topology file by path; `ranksPerNode` shapes the node of a file without `node`. */
export function loadProfile(nameOrPath: string, ranksPerNode?: number): Machine {
  return machineFromTopology(loadTopology(isProfilePath(nameOrPath) ? nameOrPath : profilePath(nameOrPath)), ranksPerNode).machine;
}

/** The level a message from a process to another uses when they meet at `scope`. */
export function levelForScope(machine: Machine, scope: Scope): number {
  const want = SCOPES.indexOf(scope);
  return machine.levels.findIndex((l) => SCOPES.indexOf(l.scope) >= want);
}

/** The outermost level: between nodes. The closed-form models use it for every message. */
export function networkLevel(machine: Machine): Level {
  return machine.levels[machine.levels.length - 1];
}
