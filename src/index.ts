// topocoll: real MPI for Node.js, with topology- and multi-core-aware collectives.
import { Comm, getSelf, getWorld, IN_PLACE } from './mpi/comm';
import { abort, finalize, init, initialized } from './mpi/lifecycle';
import { addon } from './mpi/native';
import { Request, waitAll, waitAny } from './mpi/request';

export type { BufferLike, SendBuffer } from './mpi/comm';
export type { InitOptions, InitResult, ThreadLevel } from './mpi/lifecycle';
export { Comm, IN_PLACE, Request, abort, finalize, init, initialized, waitAll, waitAny };

/** MPI_COMM_WORLD (MPI is initialized on first access). */
export declare const world: Comm;
/** Alias of `world`, for mpi4py users. */
export declare const COMM_WORLD: Comm;
/** MPI_COMM_SELF. */
export declare const COMM_SELF: Comm;
/** Rank of this process in `world`. */
export declare const rank: number;
/** Number of processes in `world`. */
export declare const size: number;

for (const [name, get] of [
  ['world', getWorld],
  ['COMM_WORLD', getWorld],
  ['COMM_SELF', getSelf],
  ['rank', () => getWorld().rank],
  ['size', () => getWorld().size],
] as const) {
  Object.defineProperty(exports, name, { enumerable: true, get });
}

/** The name of the processor (host) this rank runs on. */
export function processorName(): string {
  init();
  return addon().processorName();
}

/** MPI_Wtime: seconds since an arbitrary time in the past. */
export function wtime(): number {
  return addon().wtime();
}
