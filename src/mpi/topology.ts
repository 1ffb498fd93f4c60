// Process topologies (Cartesian grids, distributed graphs): the types their Comm methods return,
// and dimsCreate, which needs no communicator.
import { init } from './lifecycle';
import { addon } from './native';

/** What a communicator's topology is (MPI_Topo_test): null for none. */
export type TopologyKind = 'cart' | 'graph' | 'distGraph';

/** A Cartesian communicator's grid and this rank's place in it (MPI_Cart_get). */
export interface CartInfo {
  dims: number[];
  periods: boolean[];
  coords: number[];
}

/** The ranks a shift along one dimension reaches: PROC_NULL off the edge of a non-periodic one. */
export interface Shift {
  /** The rank this one receives from (disp steps back). */
  source: number;
  /** The rank this one sends to (disp steps forward). */
  dest: number;
}

/**
 * The neighbours of this rank, in the order the neighbour collectives use: a distributed graph's
 * as given; a Cartesian grid's per dimension, the rank below then the rank above (PROC_NULL off
 * the edge of a non-periodic dimension).
 */
export interface Neighbors {
  /** In-neighbours: block i of a neighbour collective's recvbuf comes from sources[i]. */
  sources: number[];
  /** Out-neighbours: block j of neighborAlltoall's sendbuf goes to destinations[j]. */
  destinations: number[];
}

/** createDistGraphAdjacent's options. */
export interface DistGraphOptions {
  /** One weight per source and per destination (both or neither; default unweighted). */
  sourceWeights?: ArrayLike<number>;
  destWeights?: ArrayLike<number>;
  /** Whether MPI may renumber the ranks to fit the machine (default false). */
  reorder?: boolean;
}

/**
 * A balanced grid of `nnodes` processes (MPI_Dims_create): `dims` is the number of dimensions,
 * or an array in which nonzero entries are kept and zeros filled in (in decreasing order).
 */
export function dimsCreate(nnodes: number, dims: number | ArrayLike<number>): number[] {
  init();
  const given = typeof dims === 'number' ? new Array<number>(dims).fill(0) : dims;
  return addon().dimsCreate(nnodes, given);
}
