// One machine, two descriptions of its levels: a machine profile (profiles/*.yaml, the models':
// innermost level first, scopes socket, node, system, with the node's shape) and a topology file
// (TOPOCOLL_TOPOLOGY, the engine's: widest first, scopes system, group, host, virtual_node).
// These convert one into the other, so that `simulate --machine` and `explain --topology` take
// either. A level keeps its name, latency, bandwidth and exchange bandwidth both ways; what only
// one side describes is left out (see docs/topology.md): LogGP overheads, flag latencies, the
// switch fabric and copy bandwidth of a profile; host groups of a topology file.
import path from 'node:path';
import { parseYamlFile, readTextFile } from '../config/document';
import { parseTopology } from '../mpi/files';
import { TopologyError, type LevelScope, type Topology, type TopologyLevel } from '../topology/file';
import { DEFAULT_GAMMA, MachineError, parseMachine, type Level, type Machine, type Scope } from './machine';

/** The profile scope of each topology scope; a group (racks, leaf switches) has none. */
const PROFILE_SCOPE: Record<LevelScope, Scope | undefined> = { system: 'system', group: undefined, host: 'node', virtual_node: 'socket' };
const TOPOLOGY_SCOPE: Record<Scope, LevelScope> = { system: 'system', node: 'host', socket: 'virtual_node' };

export interface ConvertedMachine {
  readonly machine: Machine;
  /** What the profile cannot say, in words (a group level). */
  readonly leftOut: string[];
}

/**
 * A machine profile from a topology file. `ranksPerNode` sizes the node (a topology file has no
 * cores): with a virtual_node level of `block:K`, sockets of K cores; otherwise one socket.
 * Between nodes, messages use the widest level (system, else group).
 */
export function machineFromTopology(t: Topology, ranksPerNode: number): ConvertedMachine {
  const fail = (level: TopologyLevel | undefined, key: string, detail: string): never => {
    throw new TopologyError(t.source, level?.line || (key === 'virtual_nodes' ? t.lines.virtual_nodes : undefined), key, detail);
  };
  const leftOut: string[] = [];
  // Messages between nodes: the widest level, even a group when the file has no system level.
  const between = t.levels.filter((l) => l.scope === 'system' || l.scope === 'group');
  if (between.length === 0) fail(t.levels[0], 'levels', 'no level joins hosts (scope system or group): a machine profile needs one for messages between nodes');
  for (const l of between.slice(1)) leftOut.push(`level ${l.name} (scope ${l.scope}): a machine profile has one level between nodes, the widest (${between[0].name})`);
  const kept = t.levels.filter((l) => l === between[0] || (PROFILE_SCOPE[l.scope] && l.scope !== 'system' && l.scope !== 'group'));
  let coresPerSocket = ranksPerNode;
  if (kept.some((l) => l.scope === 'virtual_node')) {
    const v = t.virtualNodes!;
    if (v.kind !== 'block') return fail(undefined, 'virtual_nodes', `${v.kind} maps to no machine profile: only block:K (sockets of K cores) does`);
    coresPerSocket = v.ranksPerNode;
  }
  const levels: Level[] = kept.reverse().map((l) => {
    const scope = l === between[0] ? 'system' : PROFILE_SCOPE[l.scope]!;
    const beta = 1 / l.bandwidth;
    return {
      name: l.name,
      scope,
      alpha: l.latency,
      beta,
      exchangeBeta: l.exchangeBandwidth ? 1 / l.exchangeBandwidth : beta,
      signalAlpha: l.latency,
      overhead: 0,
      gap: 0,
      usesNic: scope === 'system',
    };
  });
  const machine: Machine = {
    name: t.name ?? path.basename(t.source).replace(/\.(ya?ml|json)$/, ''),
    description: t.description ?? '',
    source: t.source,
    node: { sockets: Math.max(1, Math.ceil(ranksPerNode / coresPerSocket)), coresPerSocket, nics: 1 },
    levels,
    // The engine's model copies at its narrowest level's speed (native/engine/model/select_model.cc).
    copyBeta: levels[0].beta,
    gamma: t.reduceBandwidth ? 1 / t.reduceBandwidth : DEFAULT_GAMMA,
    roundOverhead: 0,
  };
  return { machine, leftOut };
}

/** The topology file (as topologyFromObject reads it, normalized units) of a machine profile's levels. */
export function topologyFromMachine(m: Machine): Record<string, unknown> {
  const socket = m.levels.some((l) => l.scope === 'socket');
  return {
    name: m.name,
    ...(m.description && { description: m.description }),
    levels: [...m.levels].reverse().map((l) => ({
      name: l.name,
      scope: TOPOLOGY_SCOPE[l.scope],
      latency: l.alpha,
      bandwidth: 1 / l.beta,
      ...(l.exchangeBeta !== l.beta && { exchange_bandwidth: 1 / l.exchangeBeta }),
    })),
    ...(socket && { virtual_nodes: `block:${m.node.coresPerSocket}` }),
    ...(m.gamma !== DEFAULT_GAMMA && { reduce_bandwidth: 1 / m.gamma }),
  };
}

/** Whether a machine file is a topology file (no `node` section, topology scopes) rather than a profile. */
function isTopologyDocument(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || 'node' in value) return false;
  const levels = (value as { levels?: unknown }).levels;
  return Array.isArray(levels) && levels.some((l) => ['host', 'group', 'virtual_node'].includes((l as { scope?: string })?.scope ?? ''));
}

/** A machine file of either kind: a profile, or a topology file (machineFromTopology converts it, given the ranks per node). */
export function loadMachineFile(file: string): { kind: 'profile'; machine: Machine } | { kind: 'topology'; topology: Topology } {
  const text = readTextFile(file, 'machine file', (line, detail) => {
    throw new MachineError(file, '', line, detail);
  });
  let value: unknown;
  try {
    value = parseYamlFile(text, () => {
      throw new Error('not YAML');
    });
  } catch {
    value = undefined; // parseMachine reports the syntax error with its line
  }
  return isTopologyDocument(value) ? { kind: 'topology', topology: parseTopology(text, file) } : { kind: 'profile', machine: parseMachine(text, file) };
}
