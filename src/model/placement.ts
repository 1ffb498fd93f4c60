// Where ranks run: node, socket and network port of every rank, and from that the level a
// message between two ranks uses and how many switches it crosses.
import { levelForScope, type Level, type Machine } from './machine';

export interface Placement {
  readonly nodes: number;
  /** rank -> node */
  readonly node: Int32Array;
  /** rank -> socket, numbered across the machine (node x sockets + local socket) */
  readonly socket: Int32Array;
  /** rank -> network port, numbered across the machine (node x nics + local port) */
  readonly nic: Int32Array;
}

/**
 * A placement from the node of every rank. Within a node, ranks fill sockets and ports in
 * order of rank, evenly: with 8 ranks on 2 sockets, the first 4 sit on socket 0.
 */
export function placementFromNodes(nodeOfRank: ArrayLike<number>, machine: Machine): Placement {
  const p = nodeOfRank.length;
  const node = Int32Array.from(nodeOfRank);
  let nodes = 0;
  for (let r = 0; r < p; r++) {
    if (!Number.isInteger(node[r]) || node[r] < 0) throw new RangeError(`placement: rank ${r} is on node ${nodeOfRank[r]}`);
    nodes = Math.max(nodes, node[r] + 1);
  }
  const perNode = new Int32Array(nodes);
  for (let r = 0; r < p; r++) perNode[node[r]]++;
  const seen = new Int32Array(nodes);
  const socket = new Int32Array(p);
  const nic = new Int32Array(p);
  const { sockets, nics } = machine.node;
  for (let r = 0; r < p; r++) {
    const n = node[r];
    const local = seen[n]++;
    socket[r] = n * sockets + Math.floor((local * sockets) / perNode[n]);
    nic[r] = n * nics + Math.floor((local * nics) / perNode[n]);
  }
  return { nodes, node, socket, nic };
}

/** Ranks 0..ppn-1 on node 0, the next ppn on node 1, and so on (mpirun --map-by core). */
export function blockPlacement(p: number, ppn: number, machine: Machine): Placement {
  if (!Number.isInteger(ppn) || ppn < 1) throw new RangeError(`processes per node must be a positive integer, got ${ppn}`);
  return placementFromNodes(Array.from({ length: p }, (_, r) => Math.floor(r / ppn)), machine);
}

/** Rank r on node r mod nodes (mpirun --map-by node). */
export function roundRobinPlacement(p: number, nodes: number, machine: Machine): Placement {
  return placementFromNodes(Array.from({ length: p }, (_, r) => r % nodes), machine);
}

/** The machine seen through a placement: which level and how many switches a message crosses. */
export class Topology {
  private readonly levelByScope: Int32Array;

  constructor(
    readonly machine: Machine,
    readonly placement: Placement,
  ) {
    this.levelByScope = Int32Array.of(levelForScope(machine, 'socket'), levelForScope(machine, 'node'), levelForScope(machine, 'system'));
  }

  get levels(): readonly Level[] {
    return this.machine.levels;
  }

  /** Index into machine.levels of the level a message from rank a to rank b uses. */
  levelIndex(a: number, b: number): number {
    const { node, socket } = this.placement;
    if (node[a] !== node[b]) return this.levelByScope[2];
    return this.levelByScope[socket[a] === socket[b] ? 0 : 1];
  }

  /** Switches between the nodes of a and b: 0 on one node, 1 under one leaf switch, else the network's hops. */
  hops(a: number, b: number): number {
    const { node } = this.placement;
    if (node[a] === node[b]) return 0;
    const net = this.machine.network;
    if (!net) return 1;
    if (net.nodesPerSwitch && Math.floor(node[a] / net.nodesPerSwitch) === Math.floor(node[b] / net.nodesPerSwitch)) return 1;
    return net.hops;
  }
}
