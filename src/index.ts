// topocoll: real MPI for Node.js, with topology- and multi-core-aware collectives.
import { ANY_SOURCE, ANY_TAG, Comm, getSelf, getWorld, IN_PLACE, PROC_NULL, UNDEFINED } from './mpi/comm';
import { Datatype } from './mpi/datatype';
import { MpiError } from './mpi/errors';
import { File } from './mpi/file';
import { Group } from './mpi/group';
import { abort, finalize, init, initialized, isFinalized, isThreadMain, queryThread } from './mpi/lifecycle';
import { addon } from './mpi/native';
import { BAND, BOR, BXOR, LAND, LOR, LXOR, MAX, MIN, OPS, PROD, SUM } from './mpi/ops';
import { attachBuffer, detachBuffer, Message, PersistentRequest, startAll } from './mpi/p2p';
import { Request, testAll, testAny, testSome, waitAll, waitAllSync, waitAny, waitSome } from './mpi/request';
import { dimsCreate } from './mpi/topology';
import { MAXLOC, MINLOC } from './mpi/user-op';

export type { BlockOf, BufferLike, Comparison, DataSendBuffer, SendBuffer, Status, VectorBuffer } from './mpi/comm';
export type { BufferSpec, DataBuffer, TypeLayout } from './mpi/datatype';
export type { Datarep, FileHints, FileMode, FileModeName, FileView, Whence } from './mpi/file';
export type { CartInfo, DistGraphOptions, Neighbors, Shift, TopologyKind } from './mpi/topology';
export type { InitOptions, InitResult, ThreadLevel } from './mpi/lifecycle';
export type { ObjectOp, Op } from './mpi/ops';
export type { BufferOp, PairOp, TypedArray, UserOp } from './mpi/user-op';
export type { SomeCompleted } from './mpi/request';
export { Comm, IN_PLACE, ANY_SOURCE, ANY_TAG, PROC_NULL, UNDEFINED, MpiError, Request, abort, finalize, init, initialized, waitAll, waitAllSync, waitAny };
export { isFinalized, queryThread, isThreadMain };
export { waitSome, testAll, testAny, testSome };
export { Message, PersistentRequest, startAll, attachBuffer, detachBuffer };
export { SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR, OPS, MINLOC, MAXLOC };
export { Datatype, Group, dimsCreate };
export { File };

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
/** MPI_BSEND_OVERHEAD: the bytes each buffered send takes in the attached buffer beyond its message (the MPI's own value). */
export declare const BSEND_OVERHEAD: number;

for (const [name, get] of [
  ['world', getWorld],
  ['COMM_WORLD', getWorld],
  ['COMM_SELF', getSelf],
  ['rank', () => getWorld().rank],
  ['size', () => getWorld().size],
  ['BSEND_OVERHEAD', () => addon().BSEND_OVERHEAD],
] as const) {
  Object.defineProperty(exports, name, { enumerable: true, get });
}

/** The name of the processor (host) this rank runs on. */
export function processorName(): string {
  init();
  return addon().processorName();
}

/** MPI_Get_library_version: the MPI library's own description ("Open MPI v4.1.4, ..."). */
export function libraryVersion(): string {
  return addon().buildInfo().libraryVersion.trim();
}

/** MPI_Wtime: seconds since an arbitrary time in the past. */
export function wtime(): number {
  return addon().wtime();
}

/** MPI_Wtick: the resolution of wtime(), in seconds. */
export function wtick(): number {
  return addon().wtick();
}

/** The MPI standard version the library implements, and the library's own description. */
export interface MpiVersion {
  /** MPI_Get_version: e.g. 3 and 1 for MPI 3.1 (Open MPI 4.1), 4 and 0 for MPI 4.0 (MPICH 4.0). */
  major: number;
  minor: number;
  /** MPI_Get_library_version, as libraryVersion() returns it. */
  libraryVersion: string;
}

/** MPI_Get_version and MPI_Get_library_version (no MPI_Init needed, as MPI allows). */
export function version(): MpiVersion {
  const v = addon().version();
  return { major: v.major, minor: v.minor, libraryVersion: v.libraryVersion.trim() };
}
