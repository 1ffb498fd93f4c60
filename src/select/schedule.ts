// The schedule IR as TypeScript sees it: the shape the addon's buildSchedule() returns (from
// native/engine/schedule.h) and the tests' reference builders write, for the symbolic replay and
// `explain`. The timing model takes schedules in C++ (native/engine/model/hockney.h).
import { collectiveInfo, type CollectiveName } from './registry';

/** `shm`: the data area of the node's shared-memory segment, shared by the ranks of a node. */
export type BufferName = 'send' | 'recv' | 'tmp' | 'shm';

/** A run of consecutive blocks of one buffer (a block is one rank's count elements; for bcast and reductions, one element). */
export interface BlockSpan {
  buf: BufferName;
  first: number;
  count: number;
}

export type ScheduleOp =
  | { kind: 'send'; peer: number; src: BlockSpan }
  | { kind: 'recv'; peer: number; dst: BlockSpan }
  | { kind: 'copy'; src: BlockSpan; dst: BlockSpan }
  /**
   * Combines src into dst element by element with the call's op: `src_first` dst = src op dst
   * (MPI_Reduce_local(src, dst)), `dst_first` dst = dst op src. Runs with the copies, in order.
   */
  | { kind: 'reduce'; src: BlockSpan; dst: BlockSpan; order: 'src_first' | 'dst_first' }
  /** Sets flag `slot` of rank `peer` (same node) to `stage` of this call, after the round's copies. */
  | { kind: 'flag_signal'; peer: number; slot: number; stage: number }
  /** Waits until flag `slot` of rank `peer` (same node) holds `stage` or more of this call, before the round's copies. */
  | { kind: 'flag_wait'; peer: number; slot: number; stage: number };

/**
 * The builders' count (and reduce_scatter's parts) for a call of `units` as the tools state a
 * size: a block collective's is one rank's block, so a reduce_scatter of `units` gives every rank
 * a part of `units` elements out of a vector of p × units (as the bench runs it).
 */
export function countsOf(coll: string, units: number, p: number): Pick<ScheduleParams, 'count' | 'recvCounts'> {
  return coll === 'reduce_scatter' ? { count: units * p, recvCounts: Array<number>(p).fill(units) } : { count: units };
}

/**
 * The builders' parameters for `algorithm` with ranks on `nodes` (per rank; absent: one node):
 * shared-memory algorithms also get the nodes and the node's data area (`shmElements`), remapped
 * ones the nodes (pi keeps their heavy edges inside nodes); the others are pure functions of
 * (p, rank), and per-rank node lists would only slow their builds down.
 */
export function placedParams(coll: CollectiveName, algorithm: string, base: ScheduleParams, nodes: number[] | undefined, shmElements: number): ScheduleParams {
  const entry = collectiveInfo(coll)?.algorithms.find((a) => a.name === algorithm);
  if (entry?.shm) return { ...base, nodes, shmElements };
  if (entry?.remapped) return { ...base, nodes };
  return base;
}

/** How a schedule uses the node's shared memory (the same for every rank of a call). */
export type ShmUse = 'none' | 'flags' | 'data';

/**
 * All ops of a round start together; copies and reductions run after the round's receives
 * complete, in schedule order. In a round: sends/receives are posted, flag waits pass, copies and
 * reductions run, then flags are signalled.
 */
export type ScheduleRound = ScheduleOp[];

export interface ScheduleParams {
  /** Elements per block (allgather/alltoall, reduce_scatter_block) or of the whole vector (bcast, allreduce, reduce, reduce_scatter: the sum). Default 1. */
  count?: number;
  root?: number;
  inPlace?: boolean;
  maxOutstanding?: number;
  segmentBlocks?: number;
  /** Per rank: node, socket (as for ranks bound to it), NUMA node (a hierarchy; without any, one node). */
  nodes?: number[];
  sockets?: number[];
  numa?: number[];
  /** Memory one element spans (its extent); 0 = unknown. */
  elementBytes?: number;
  /** Elements the node's shared data area holds per call; 0 = no shared memory. */
  shmElements?: number;
  bcastConcurrency?: number;
  tileBytes?: number;
  /** Reductions: false for an op that is not commutative (default true). */
  commutative?: boolean;
  /** reduce_scatter: the elements of every rank's part. */
  recvCounts?: number[];
}

export interface Schedule {
  collective: CollectiveName;
  algorithm: string;
  p: number;
  rank: number;
  count: number;
  root: number;
  inPlace: boolean;
  /** Scratch buffer size, in blocks. */
  tmpBlocks: number;
  /** A fallback the algorithm took (e.g. a power-of-two algorithm on another size). */
  note: string;
  /** Spans count units of 1/unitsPerBlock block (tiles, segments); 1 = blocks. */
  unitsPerBlock: number;
  shm: ShmUse;
  rounds: ScheduleRound[];
}
