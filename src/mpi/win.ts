// One-sided communication (MPI windows): memory of each rank that the other ranks of a
// communicator read and write with put, get and accumulate, inside epochs that fence, lock/unlock
// or lockAll/unlockAll open and close; and node-shared windows (Win.allocateShared), whose
// segments every rank of a node reads and writes in place through sharedQuery. The addon
// (native/addon/mpi_win.cc) checks every rank, displacement and buffer before MPI sees it.
//
// MPI reads and writes the buffers of an RMA call after the call returns, until a
// synchronisation call completes it: a Win keeps them (and a Win.create buffer, for as long as
// the window lives) referenced, so that the GC cannot free memory MPI still uses.
import type { BufferLike, Comm } from './comm';
import type { DataBuffer } from './datatype';
import { addon } from './native';
import { OPS, opIndex, type Op } from './ops';

/** Lock types of lock(): several 'shared' locks on a rank may be held at once, an 'exclusive' one alone. */
export type LockType = 'exclusive' | 'shared';
/** Assertions of fence() (MPI_MODE_NOSTORE, …_NOPUT, …_NOPRECEDE, …_NOSUCCEED). */
export type FenceAssert = 'nostore' | 'noput' | 'noprecede' | 'nosucceed';
/** The assertion of lock() and lockAll(): no other rank holds or asks for a conflicting lock (MPI_MODE_NOCHECK). */
export type LockAssert = 'nocheck';

/** Replaces the target's elements (MPI_REPLACE): an accumulate that is an atomic put. */
export const REPLACE = 'REPLACE';
/** The ops of accumulate: the predefined reductions and REPLACE (MPI applies them at the target, so not functions). */
export type AccumulateOp = Op | typeof REPLACE;

export interface WinOptions {
  /**
   * Bytes of one unit of a target displacement (MPI's disp_unit) on this rank: default the
   * buffer's element size for Win.create, 1 for Win.allocate and Win.allocateShared.
   */
  dispUnit?: number;
  /** MPI_Info hints, e.g. { alloc_shared_noncontig: 'true' }. */
  info?: Record<string, string>;
}

// The bits of the assertions, as native/addon/mpi_win.cc maps them to the MPI's MPI_MODE_*.
const ASSERT_BITS = { nocheck: 1, nostore: 2, noput: 4, noprecede: 8, nosucceed: 16 } as const;
const FENCE_ASSERTS: readonly FenceAssert[] = ['nostore', 'noput', 'noprecede', 'nosucceed'];
const LOCK_ASSERTS: readonly LockAssert[] = ['nocheck'];
const LOCK_TYPES: readonly LockType[] = ['exclusive', 'shared'];
// The addon's index of REPLACE (the other ops: their index in OPS).
const REPLACE_INDEX = -1;

function assertBits<A extends keyof typeof ASSERT_BITS>(what: string, assert: A | readonly A[] | undefined, valid: readonly A[]): number {
  let bits = 0;
  const list: readonly A[] = assert === undefined ? [] : Array.isArray(assert) ? (assert as readonly A[]) : [assert as A];
  for (const a of list) {
    if (!valid.includes(a)) throw new TypeError(`${what}: assert ${JSON.stringify(a)} is not valid; valid choices: ${valid.join(', ')}`);
    bits |= ASSERT_BITS[a];
  }
  return bits;
}

function accumulateOpIndex(op: AccumulateOp): number {
  if (op === REPLACE) return REPLACE_INDEX;
  if (typeof op === 'function') {
    throw new TypeError('accumulate: op cannot be a function: MPI applies the op at the target, where no JS runs; use one of ' + [...OPS, REPLACE].join(', '));
  }
  if (!(OPS as readonly unknown[]).includes(op)) throw new TypeError(`accumulate: op ${JSON.stringify(op)} is not valid; valid choices: ${[...OPS, REPLACE].join(', ')}`);
  return opIndex(op, 'accumulate');
}

// A buffer spec's buffer, or the buffer itself: what must stay alive while MPI uses it.
function bufferOf(buf: DataBuffer): BufferLike {
  return Array.isArray(buf) ? buf[0] : (buf as BufferLike);
}

// Every window not yet freed: a window is collective state the other ranks still reach, so its
// buffers must outlive the JS object even when the program drops it without free().
const LIVE = new Set<Win<BufferLike>>();

// Win.allocate and Win.allocateShared: a window over memory MPI allocates.
function allocated(comm: Comm, bytes: number, options: WinOptions, shared: boolean): Win<ArrayBuffer> {
  const dispUnit = options.dispUnit ?? 1;
  const { handle, buffer } = addon().winAllocate(comm.handle, bytes, dispUnit, options.info, shared);
  return winOf(comm, handle, buffer, dispUnit, true);
}

let winOf: <B extends BufferLike>(comm: Comm, handle: number, buffer: B, dispUnit: number, mpiMemory: boolean) => Win<B>;

/**
 * A window: this rank's `buffer` exposed to the ranks of `comm` for one-sided access.
 * `B` is the buffer's type: the buffer given to Win.create, an ArrayBuffer over MPI's memory
 * for Win.allocate and Win.allocateShared.
 */
export class Win<B extends BufferLike = ArrayBuffer> {
  /** @internal index into the addon's window table (never reused, so a freed one stays invalid) */
  readonly handle: number;
  /** The communicator the window was made on. */
  readonly comm: Comm;
  /**
   * This rank's memory in the window: Win.create's buffer, or (Win.allocate, allocateShared) an
   * ArrayBuffer over memory MPI owns, detached (0 bytes) once the window is freed.
   */
  readonly buffer: B;
  /** This rank's displacement unit in bytes. */
  readonly dispUnit: number;
  // buffer is an ArrayBuffer over MPI's memory (allocate, allocateShared), to detach at free().
  readonly #mpiMemory: boolean;
  // sharedQuery's views, one per rank: detached by free().
  readonly #views = new Map<number, ArrayBuffer>();
  // The origin and result buffers of RMA calls not yet completed, by target rank.
  readonly #pending = new Map<number, BufferLike[]>();

  private constructor(comm: Comm, handle: number, buffer: B, dispUnit: number, mpiMemory: boolean) {
    this.comm = comm;
    this.handle = handle;
    this.buffer = buffer;
    this.dispUnit = dispUnit;
    this.#mpiMemory = mpiMemory;
    LIVE.add(this);
  }

  static {
    winOf = (comm, handle, buffer, dispUnit, mpiMemory) => new Win(comm, handle, buffer, dispUnit, mpiMemory);
  }

  /**
   * A window over `buffer` (MPI_Win_create), collective over `comm`. Target displacements count
   * elements of the buffer (dispUnit: its element size) unless `options.dispUnit` says otherwise.
   * The window keeps `buffer` referenced until free(); do not transfer or detach it meanwhile.
   */
  static create<B extends BufferLike>(comm: Comm, buffer: B, options: WinOptions = {}): Win<B> {
    const unit = options.dispUnit ?? (ArrayBuffer.isView(buffer) && !(buffer instanceof DataView) ? (buffer as unknown as Uint8Array).BYTES_PER_ELEMENT : 1);
    return winOf(comm, addon().winCreate(comm.handle, buffer, unit, options.info), buffer, unit, false);
  }

  /** A window over `bytes` that MPI allocates on this rank (MPI_Win_allocate), collective over `comm`. */
  static allocate(comm: Comm, bytes: number, options: WinOptions = {}): Win<ArrayBuffer> {
    return allocated(comm, bytes, options, false);
  }

  /**
   * A window of node-shared memory (MPI_Win_allocate_shared), collective over `comm`, which must
   * hold the ranks of one node only (`world.splitShared()`): each rank contributes `bytes` (0
   * allowed), `buffer` is its own segment, and sharedQuery(r) rank r's, all read and written in
   * place with loads and stores, synchronised by fence, lock/unlock or lockAll/sync/barrier.
   */
  static allocateShared(comm: Comm, bytes: number, options: WinOptions = {}): Win<ArrayBuffer> {
    return allocated(comm, bytes, options, true);
  }

  /**
   * Rank `rank`'s segment of a shared window (MPI_Win_shared_query), an ArrayBuffer over the
   * other rank's memory: stores through it are seen by that rank (after a synchronisation).
   * The same ArrayBuffer each call; detached (0 bytes) once the window is freed. An ArrayBuffer,
   * not a SharedArrayBuffer: Node-API cannot make a SharedArrayBuffer over memory it did not
   * allocate. Atomics work on it too, except Atomics.wait.
   */
  sharedQuery(rank: number): ArrayBuffer {
    let view = this.#views.get(rank);
    if (view === undefined) {
      view = addon().winSharedQuery(this.handle, rank).buffer;
      this.#views.set(rank, view);
    }
    return view;
  }

  /** MPI_Win_fence: completes every RMA call of the window and opens the next epoch (collective). */
  fence(assert?: FenceAssert | readonly FenceAssert[]): void {
    addon().winFence(this.handle, assertBits('fence', assert, FENCE_ASSERTS));
    this.#pending.clear();
  }

  /** MPI_Win_lock: starts a passive-target epoch on `rank`'s memory. */
  lock(rank: number, type: LockType = 'exclusive', assert?: LockAssert): void {
    if (!LOCK_TYPES.includes(type)) throw new TypeError(`lock: type ${JSON.stringify(type)} is not valid; valid choices: ${LOCK_TYPES.join(', ')}`);
    addon().winLock(this.handle, rank, type === 'exclusive', assertBits('lock', assert, LOCK_ASSERTS));
  }

  /** MPI_Win_unlock: completes the calls on `rank` and ends the epoch lock() started. */
  unlock(rank: number): void {
    addon().winUnlock(this.handle, rank);
    this.#pending.delete(rank);
  }

  /** MPI_Win_lock_all: a shared lock on every rank. */
  lockAll(assert?: LockAssert): void {
    addon().winLockAll(this.handle, assertBits('lockAll', assert, LOCK_ASSERTS));
  }

  /** MPI_Win_unlock_all: completes every call and ends the epoch lockAll() started. */
  unlockAll(): void {
    addon().winUnlockAll(this.handle);
    this.#pending.clear();
  }

  /** MPI_Win_sync: makes this rank's loads and stores of the window and MPI's view of it agree. */
  sync(): void {
    addon().winSync(this.handle);
  }

  /** MPI_Win_flush: completes this rank's calls on `rank`, inside a lock epoch. */
  flush(rank: number): void {
    addon().winFlush(this.handle, rank);
    this.#pending.delete(rank);
  }

  /** MPI_Win_flush_all: completes this rank's calls on every rank, inside a lock epoch. */
  flushAll(): void {
    addon().winFlush(this.handle);
    this.#pending.clear();
  }

  /**
   * MPI_Put: `origin`'s elements into `targetRank`'s window from `targetDisp` (in units of the
   * target's dispUnit), with the origin's element type (or [buffer, count, datatype]: its count
   * and datatype at the target too). Complete at the next fence, unlock or flush; `origin` must
   * not change until then.
   */
  put(origin: DataBuffer, targetRank: number, targetDisp = 0): void {
    addon().winPut(this.handle, origin, targetRank, targetDisp);
    this.#keep(targetRank, origin);
  }

  /** MPI_Get: fills `into` from `targetRank`'s window at `targetDisp`; its bytes are there after the next fence, unlock or flush. Returns `into`. */
  get<T extends DataBuffer>(into: T, targetRank: number, targetDisp = 0): T {
    addon().winGet(this.handle, into, targetRank, targetDisp);
    this.#keep(targetRank, into);
    return into;
  }

  /**
   * MPI_Accumulate: combines `origin`'s elements into `targetRank`'s window at `targetDisp` with
   * `op` (SUM, …, or REPLACE), element by element and atomically per element with respect to
   * other accumulates. Complete at the next fence, unlock or flush.
   */
  accumulate(origin: DataBuffer, targetRank: number, targetDisp: number, op: AccumulateOp): void {
    addon().winAccumulate(this.handle, origin, targetRank, targetDisp, accumulateOpIndex(op));
    this.#keep(targetRank, origin);
  }

  /**
   * MPI_Win_free (collective; every epoch must be closed). The ArrayBuffers over MPI's memory
   * (buffer of allocate/allocateShared, sharedQuery's views) are detached: 0 bytes from now on,
   * so that no view reads freed memory. Any later call throws `win is a freed window`.
   */
  free(): void {
    const views = [...this.#views.values()];
    if (this.#mpiMemory) views.push(this.buffer as ArrayBuffer);
    addon().winFree(this.handle, views);
    this.#views.clear();
    this.#pending.clear();
    LIVE.delete(this as unknown as Win<BufferLike>);
  }

  #keep(targetRank: number, buf: DataBuffer): void {
    const list = this.#pending.get(targetRank);
    if (list) list.push(bufferOf(buf));
    else this.#pending.set(targetRank, [bufferOf(buf)]);
  }
}
