// Rank mapping of seed 004 (Kurnosov) for TypeScript: information graphs of the algorithms,
// the multilevel partitioner and the permutation pi, all computed by the native engine (the same
// code the remapped allgathers run at communicator creation).
import type { InformationGraph, MachineLevels, PartitionOptions, RankMapping } from './addon';
import { addon } from './native';
import { collectiveInfo, type CollectiveName } from '../select/registry';

export type { InformationGraph, MachineLevels };

/** The remapped allgathers (registry: `remapped`). */
export const REMAPPED_ALLGATHERS: readonly string[] = collectiveInfo('allgather')!
  .algorithms.filter((a) => a.remapped)
  .map((a) => a.name);

/**
 * The information graph of a registered algorithm on p ranks (edge weight = bytes with blocks of
 * `blockBytes`): allgather bruck and recursive doubling by closed forms in O(n log n), any other
 * algorithm from the schedules of all its ranks.
 */
export function informationGraph(
  collective: CollectiveName,
  algorithm: string,
  p: number,
  opts: { blockBytes?: number; count?: number; root?: number } = {},
): InformationGraph {
  return addon().informationGraph(collective, algorithm, p, opts);
}

/** Part of every vertex, parts of exactly partSizes[u] vertices, minimising the cut. */
export function partitionGraph(graph: InformationGraph, partSizes: readonly number[], opts: PartitionOptions = {}): Int32Array {
  return addon().partitionGraph(graph, partSizes, opts);
}

/** Bytes on edges whose ends lie in different parts (seed 004's F with one link level). */
export function cutWeight(graph: InformationGraph, part: ArrayLike<number>): number {
  return addon().cutWeight(graph, Array.from(part));
}

/** pi for ranks on nodes nodeOfRank (ids 0..h-1): part u of the graph goes to node u. */
export function rankMapping(graph: InformationGraph, nodeOfRank: readonly number[], opts: PartitionOptions = {}): RankMapping {
  return addon().rankMapping(graph, nodeOfRank, opts);
}

/**
 * The pi a remapped allgather runs under for ranks on these nodes, as the engine computes it;
 * with machine levels it minimises seed 004's F over them, else the cut between nodes.
 */
export function allgatherRankMapping(
  algorithm: string,
  nodeOfRank: readonly number[],
  machine?: MachineLevels,
): RankMapping & { base: string } {
  return addon().allgatherRankMapping(algorithm, nodeOfRank, machine);
}

/** Seed 004's F: bytes of every edge between nodes divided by the bandwidth where they meet. */
export function machineCost(graph: InformationGraph, nodeOfVertex: ArrayLike<number>, machine: MachineLevels): number {
  return addon().machineCost(graph, Array.from(nodeOfVertex), machine);
}
