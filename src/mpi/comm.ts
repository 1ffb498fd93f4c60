// Communicators. Buffers are TypedArrays, Buffers, DataViews or ArrayBuffers, passed to MPI
// without copying; counts come from their lengths, the MPI datatype from the element type
// (DataView/ArrayBuffer: bytes). Every method has a nonblocking twin (i-prefixed) returning an
// awaitable Request, and an object-mode twin (…Object) for plain JS values, in v8.serialize's format.
//
// barrier, bcast, allgather, alltoall and the reductions (reduce, allreduce, reduceScatterBlock,
// reduceScatter) run in the topocoll engine (algorithm chosen per call); the other collectives and
// point-to-point run in the system MPI. Point-to-point and the block collectives (bcast, gather,
// scatter, allgather, alltoall, the neighbour collectives) also take a buffer as
// [buffer, count, datatype] (src/mpi/datatype.ts).
import { totalBytes, type CollectiveName } from '../select/registry';
import type { BufferSpec, DataBuffer } from './datatype';
import { Group, groupOfHandle } from './group';
import type { NativeRequest, SendMode } from './addon';
import { addon } from './native';
import type { CartInfo, DistGraphOptions, Neighbors, Shift, TopologyKind } from './topology';
import { init } from './lifecycle';
import { objectOpFunction, ObjectOp, Op, opIndex } from './ops';
import { matchedMessage, persistentRequest, type Message, type PersistentRequest } from './p2p';
import { jsOpFunction, userReduction, type BufferOp, type ReductionKind } from './user-op';
import { engineRequest, newRequest, Request, startReceive, startSend } from './request';
import { statusArray, statusAt } from './status';
import { deserialize, serialize, serializeTransient } from './serialize';

export type BufferLike = ArrayBufferView | ArrayBuffer;

/** Pass as the send buffer of a collective to use the receive buffer in place (MPI_IN_PLACE). */
export const IN_PLACE: unique symbol = Symbol('topocoll.IN_PLACE');
export type SendBuffer = BufferLike | typeof IN_PLACE;
/** A send buffer of the block collectives: a buffer, a [buffer, count, datatype] spec, or IN_PLACE. */
export type DataSendBuffer = DataBuffer | typeof IN_PLACE;

// The sentinels below are the addon's too: scripts/gen-native-registry.mjs writes them into
// native/addon/generated/sentinels.h (`npm run gen`), which translates them to the MPI's values.
/** Receive from any rank (MPI_ANY_SOURCE). */
export const ANY_SOURCE = -1;
/** Receive any tag (MPI_ANY_TAG). */
export const ANY_TAG = -1;
/** The null process: sends to it and receives from it complete at once and move nothing. */
export const PROC_NULL = -2;
/** split(): the colour of a rank that joins no new communicator (MPI_UNDEFINED). */
export const UNDEFINED = -32766;

/** What a receive (or probe) found. */
export interface Status {
  /** The sender's rank (PROC_NULL for a receive from PROC_NULL). */
  source: number;
  /** The message's tag. */
  tag: number;
  /**
   * Elements received, in the receive buffer's element type (probe: bytes; a [buffer, count,
   * datatype]: whole items of the datatype, as MPI_Get_count counts them). UNDEFINED (-32766,
   * MPI_UNDEFINED, as MPI_Get_count gives it) when the bytes received are not a whole number of
   * elements, e.g. 6 bytes into a Float64Array; `bytes` is exact in every case.
   */
  count: number;
  /** Bytes received. */
  bytes: number;
  /**
   * Whether the operation was cancelled (MPI_Test_cancelled) rather than completed; false for
   * every status of a probe and of an operation that was not cancelled.
   */
  cancelled: boolean;
  /**
   * The MPI error class of the status's MPI_ERROR: MPI_SUCCESS (0) here in every case, since an
   * operation that fails throws (or rejects with) an MpiError instead of returning a status, and
   * MPI itself sets MPI_ERROR only in multiple-completion calls. For code that reads it
   * (mpi4py's `Status.Get_error()`).
   */
  error: number;
}

/** A buffer of a v-collective: counts[i] elements for rank i at displs[i] (default: packed in rank order). */
export interface VectorBuffer<T extends BufferLike = BufferLike> {
  buffer: T;
  counts: ArrayLike<number>;
  displs?: ArrayLike<number>;
}

/**
 * A view of a block of a buffer of type S: the same type for a TypedArray, Buffer or DataView;
 * a Uint8Array for an ArrayBuffer (which has no views of its own type).
 */
export type BlockOf<S extends BufferLike> = S extends ArrayBufferView ? S : Uint8Array;

function elementCount(buf: BufferLike): number {
  return ArrayBuffer.isView(buf) && !(buf instanceof DataView) ? (buf as unknown as ArrayLike<unknown>).length : buf.byteLength;
}

// `count` elements of `buf` from element `start`, without copying (a BlockOf the buffer's type).
function blockOf(buf: BufferLike, start: number, count: number): BufferLike {
  if (buf instanceof DataView) return new DataView(buf.buffer, buf.byteOffset + start, count);
  if (ArrayBuffer.isView(buf)) return (buf as Uint8Array).subarray(start, start + count);
  return new Uint8Array(buf, start, count);
}

// The root's block of a scatter's sendbuf: where IN_PLACE leaves the root's data (a spec: itself,
// the datatype saying where its blocks lie).
function scatterBlock(sendbuf: DataBuffer, size: number, root: number): DataBuffer {
  if (isSpec(sendbuf)) return sendbuf;
  const n = elementCount(sendbuf) / size;
  return blockOf(sendbuf, root * n, n);
}

// The root's block of a scatterv's send buffer (counts and displs as the addon has checked them).
function scattervBlock(send: VectorBuffer, root: number): BufferLike {
  let start = 0;
  if (send.displs) start = send.displs[root];
  else for (let i = 0; i < root; i++) start += send.counts[i];
  return blockOf(send.buffer, start, send.counts[root]);
}

/** How two communicators relate (MPI_Comm_compare). */
export type Comparison = 'ident' | 'congruent' | 'similar' | 'unequal';
const COMPARISONS: Comparison[] = ['ident', 'congruent', 'similar', 'unequal'];

function sendArg<B>(buf: B | typeof IN_PLACE): B | null {
  return buf === IN_PLACE ? null : buf;
}

function isSpec(buf: DataBuffer): buf is BufferSpec {
  return Array.isArray(buf);
}

function vectorArg(spec: VectorBuffer | null | undefined, what: string, name: string): VectorBuffer | null {
  if (spec === null || spec === undefined) return null;
  if (typeof spec !== 'object' || !('buffer' in spec) || !('counts' in spec)) {
    throw new TypeError(`${what}: ${name} must be { buffer, counts, displs? } (or null where it is not significant)`);
  }
  return spec;
}

// Lengths of serialized values travel as float64: exact up to 2^53 bytes, one MPI type for all.
function lengths(parts: readonly Uint8Array[]): Float64Array {
  return Float64Array.from(parts, (b) => b.byteLength);
}

function concat(parts: readonly Uint8Array[]): Buffer {
  return Buffer.concat(parts as Uint8Array[]);
}

function split(data: Buffer, counts: ArrayLike<number>): unknown[] {
  const out: unknown[] = [];
  let at = 0;
  for (let i = 0; i < counts.length; i++) {
    out.push(deserialize(data, false, at, at + counts[i]));
    at += counts[i];
  }
  return out;
}

// Object mode's small values travel with their length in one fixed-size block: a bcastObject or an
// allgatherObject of a small value is one collective call (a length, then the bytes, was two);
// the rest of a larger value follows in a second call. Blocks are per thread and used again.
const LENGTH_BYTES = 8; // a float64: exact up to 2^53 bytes
// One message for every rank. 512 B made the engine's rules pick a shared-memory bcast on 2 ranks,
// whose root waits for the readers of its previous call: back-to-back bcastObjects paid a round
// trip each (3x mpi4py), where 256 B and less go as one eager message the root does not wait for.
const BCAST_BLOCK_BYTES = 256;
const ALLGATHER_BLOCK_BYTES = 128; // one per rank, received by every rank
let blocks = Buffer.allocUnsafeSlow(BCAST_BLOCK_BYTES);
let blockLengths = new Float64Array(blocks.buffer, 0, blocks.length / LENGTH_BYTES);
const ownBlock = Buffer.allocUnsafeSlow(ALLGATHER_BLOCK_BYTES);
const ownLength = new Float64Array(ownBlock.buffer, 0, 1);

// The reused receive blocks, at least `bytes` long (a multiple of 8).
function receiveBlocks(bytes: number): Buffer {
  if (blocks.length < bytes) {
    blocks = Buffer.allocUnsafeSlow(bytes);
    blockLengths = new Float64Array(blocks.buffer, 0, bytes / LENGTH_BYTES);
  }
  return blocks.subarray(0, bytes);
}

// `data`'s length and first bytes into the block at `offset` of `block`.
function fillBlock(block: Buffer, lengths: Float64Array, offset: number, blockBytes: number, data: Buffer): void {
  lengths[offset / LENGTH_BYTES] = data.byteLength;
  data.copy(block, offset + LENGTH_BYTES, 0, Math.min(data.byteLength, blockBytes - LENGTH_BYTES));
}

// Object mode's receive buffer (recvObject): a message that fits needs no Buffer of its own.
const received = Buffer.allocUnsafeSlow(4096);
// Its Status's fields, asked for only when the program wants the Status.
const receivedFields = statusArray(1);

// The send modes, as native/addon/p2p.cc numbers them.
const STANDARD = 0;
const SYNCHRONOUS = 1;
const BUFFERED = 2;
const READY = 3;

// How getWorld/getSelf make a Comm: the constructor is private, so that a Comm only comes from
// topocoll (world, COMM_SELF, dup, split), never from a handle the program made up.
let commOfHandle: (handle: number) => Comm;

// A new communicator, or null on a rank the MPI gave MPI_COMM_NULL (the addon's -1).
function commOrNull(handle: number): Comm | null {
  return handle < 0 ? null : commOfHandle(handle);
}

export class Comm {
  /** @internal index into the addon's communicator table (never reused, so a freed one stays invalid) */
  readonly handle: number;
  #rank = -1;
  #size = -1;

  private constructor(handle: number) {
    this.handle = handle;
  }

  static {
    commOfHandle = (handle) => new Comm(handle);
  }

  get rank(): number {
    if (this.#rank < 0) this.#rank = addon().commRank(this.handle);
    return this.#rank;
  }

  get size(): number {
    if (this.#size < 0) this.#size = addon().commSize(this.handle);
    return this.#size;
  }

  // --- Communicator management ---

  /** A new communicator with the same group (MPI_Comm_dup): its own message space. */
  dup(): Comm {
    return new Comm(addon().commDup(this.handle));
  }

  /**
   * Ranks with the same `color` form a new communicator, ordered by `key` then old rank
   * (MPI_Comm_split). A rank passing UNDEFINED joins none and gets null.
   */
  split(color: number, key = 0): Comm | null {
    const h = addon().commSplit(this.handle, color, key);
    return h < 0 ? null : new Comm(h);
  }

  /** The ranks that share memory with this one (one communicator per node; MPI_COMM_TYPE_SHARED). */
  splitShared(key = 0): Comm {
    return new Comm(addon().commSplitShared(this.handle, key));
  }

  /** Frees the communicator (collective); any later use of it throws. COMM_WORLD/COMM_SELF cannot be freed. */
  free(): void {
    addon().commFree(this.handle);
    this.#rank = -1;
    this.#size = -1;
  }

  /** MPI_Comm_compare. */
  compare(other: Comm): Comparison {
    return COMPARISONS[addon().commCompare(this.handle, other.handle)];
  }

  /**
   * The algorithm the topocoll engine's selection picks for a `collective` (allgather, bcast,
   * barrier, alltoall) on this communicator with `bytes` per rank (bcast: the message), and why:
   * a forced TOPOCOLL_<COLL>_ALGORITHM, a TOPOCOLL_RULES rule, or the built-in defaults. At run
   * time an algorithm that cannot run (no shared memory, say) falls back to `native`;
   * TOPOCOLL_VERBOSE=1 prints what each call actually ran. `nonblocking`: for the call's
   * nonblocking form (iallreduce, …), which a rule may treat apart (`nonblocking` in a rules file).
   */
  algorithmFor(collective: string, bytes: number, nonblocking = false): { algorithm: string; reason: string } {
    const total = totalBytes(collective, this.size, bytes);
    // A name from JavaScript: the addon checks it (a TypeError names the collectives).
    return addon().selectAlgorithm(collective as CollectiveName, this.size, bytes, total, 1, nonblocking);
  }

  // --- Groups, names, intercommunicators ---

  /** This communicator's group (MPI_Comm_group; an intercommunicator's local group). */
  get group(): Group {
    return groupOfHandle(addon().commGroup(this.handle));
  }

  /**
   * The communicator of `group`'s members, a subset of this one's (MPI_Comm_create: collective
   * over this communicator, every rank passing the same group); null on the other ranks.
   */
  create(group: Group): Comm | null {
    return commOrNull(addon().commCreate(this.handle, group.handle));
  }

  /**
   * As create(), but collective over `group`'s members only (MPI_Comm_create_group): the others
   * need not call it. Calls of several groups at once are told apart by `tag`.
   */
  createGroup(group: Group, tag = 0): Comm | null {
    return commOrNull(addon().commCreateGroup(this.handle, group.handle, tag));
  }

  /** The communicator's name (MPI_Comm_get_name/set_name): 'MPI_COMM_WORLD', '' for a new one unless set. */
  get name(): string {
    return addon().commGetName(this.handle);
  }

  set name(name: string) {
    addon().commSetName(this.handle, name);
  }

  /** Whether this is an intercommunicator (MPI_Comm_test_inter). */
  get isInter(): boolean {
    return addon().commIsInter(this.handle);
  }

  /** The size of an intercommunicator's remote group (MPI_Comm_remote_size). */
  get remoteSize(): number {
    return addon().commRemoteSize(this.handle);
  }

  /** An intercommunicator's remote group (MPI_Comm_remote_group). */
  get remoteGroup(): Group {
    return groupOfHandle(addon().commRemoteGroup(this.handle));
  }

  /**
   * The intercommunicator between this communicator's group and another, disjoint one
   * (MPI_Intercomm_create): each side names its own `localLeader`; the leaders talk over
   * `peerComm` (a communicator holding both, e.g. world; needed at the local leader only, null
   * elsewhere), where the other side's leader is `remoteLeader`. Point-to-point on it names ranks
   * of the remote group.
   */
  createIntercomm(localLeader: number, peerComm: Comm | null, remoteLeader: number, tag = 0): Comm {
    if (peerComm === null && this.rank === localLeader) {
      throw new TypeError('createIntercomm: peerComm is required at the local leader (a communicator holding both leaders, e.g. world)');
    }
    return new Comm(addon().intercommCreate(this.handle, localLeader, peerComm ? peerComm.handle : null, remoteLeader, tag));
  }

  /** The intracommunicator of both groups of an intercommunicator (MPI_Intercomm_merge): the side passing high = true ranks last. */
  merge(high = false): Comm {
    return new Comm(addon().intercommMerge(this.handle, high));
  }

  // --- Process topologies (src/mpi/topology.ts) and neighbour collectives ---

  /** 'cart', 'graph', 'distGraph', or null for none (MPI_Topo_test). */
  get topology(): TopologyKind | null {
    return addon().topologyKind(this.handle);
  }

  /**
   * A Cartesian grid of `dims` over this communicator's ranks (MPI_Cart_create), periodic where
   * `periods` says (default: none); `reorder` lets MPI renumber the ranks. Ranks beyond the grid
   * get null. dimsCreate(size, n) gives balanced dims.
   */
  createCart(dims: ArrayLike<number>, periods?: ArrayLike<boolean>, reorder = false): Comm | null {
    return commOrNull(addon().cartCreate(this.handle, dims, periods, reorder));
  }

  /** The grid and this rank's coordinates (MPI_Cart_get). */
  cartGet(): CartInfo {
    return addon().cartGet(this.handle);
  }

  /** The coordinates of `rank` in the grid (MPI_Cart_coords). */
  coords(rank = this.rank): number[] {
    return addon().cartCoords(this.handle, rank);
  }

  /** The rank at `coords` (MPI_Cart_rank); coordinates wrap in periodic dimensions. */
  cartRank(coords: ArrayLike<number>): number {
    return addon().cartRank(this.handle, coords);
  }

  /**
   * The ranks `disp` steps along dimension `direction` (MPI_Cart_shift): `dest` ahead, `source`
   * behind, PROC_NULL off the edge of a non-periodic dimension; ready for sendrecv.
   */
  shift(direction: number, disp = 1): Shift {
    return addon().cartShift(this.handle, direction, disp);
  }

  /** The sub-grid of the dimensions where `remainDims` is true, holding this rank (MPI_Cart_sub). */
  sub(remainDims: ArrayLike<boolean>): Comm {
    return new Comm(addon().cartSub(this.handle, remainDims));
  }

  /**
   * A distributed graph in which this rank receives from `sources` and sends to `destinations`
   * (MPI_Dist_graph_create_adjacent; collective, each rank giving its own neighbours).
   */
  createDistGraphAdjacent(sources: ArrayLike<number>, destinations: ArrayLike<number>, options: DistGraphOptions = {}): Comm {
    const { sourceWeights = null, destWeights = null, reorder = false } = options;
    return new Comm(addon().distGraphCreateAdjacent(this.handle, sources, destinations, sourceWeights, destWeights, reorder));
  }

  /** This rank's in- and out-neighbours, in the order the neighbour collectives use. */
  neighbors(): Neighbors {
    return addon().neighborList(this.handle);
  }

  /** `sendbuf` to every out-neighbour; block i of `recvbuf` from in-neighbour i (MPI_Neighbor_allgather). */
  neighborAllgather<T extends DataBuffer>(sendbuf: DataBuffer, recvbuf: T): T {
    addon().neighborAllgather(this.handle, sendbuf, recvbuf, false);
    return recvbuf;
  }

  ineighborAllgather<T extends DataBuffer>(sendbuf: DataBuffer, recvbuf: T): Request<T> {
    return newRequest(addon().neighborAllgather(this.handle, sendbuf, recvbuf, true), () => recvbuf, [sendbuf, recvbuf]);
  }

  /** Block j of `sendbuf` to out-neighbour j; block i of `recvbuf` from in-neighbour i (MPI_Neighbor_alltoall). */
  neighborAlltoall<T extends DataBuffer>(sendbuf: DataBuffer, recvbuf: T): T {
    addon().neighborAlltoall(this.handle, sendbuf, recvbuf, false);
    return recvbuf;
  }

  ineighborAlltoall<T extends DataBuffer>(sendbuf: DataBuffer, recvbuf: T): Request<T> {
    return newRequest(addon().neighborAlltoall(this.handle, sendbuf, recvbuf, true), () => recvbuf, [sendbuf, recvbuf]);
  }

  // --- Point-to-point ---

  /** Sends `buf` to `dest` (MPI_Send: may return before it is received). */
  send(buf: DataBuffer, dest: number, tag = 0): void {
    addon().send(this.handle, buf, dest, tag, STANDARD);
  }

  /** Synchronous send (MPI_Ssend): returns once the receive has started. */
  ssend(buf: DataBuffer, dest: number, tag = 0): void {
    addon().send(this.handle, buf, dest, tag, SYNCHRONOUS);
  }

  /**
   * Buffered send (MPI_Bsend): copies the message into the buffer given to attachBuffer() and
   * returns. Without room there, MPICH raises an MpiError (MPI_ERR_BUFFER); Open MPI 4.1 may send
   * anyway: size the buffer (each message: its bytes plus BSEND_OVERHEAD).
   */
  bsend(buf: DataBuffer, dest: number, tag = 0): void {
    addon().send(this.handle, buf, dest, tag, BUFFERED);
  }

  /** Ready send (MPI_Rsend): the matching receive must already be posted (else MPI's behaviour is undefined). */
  rsend(buf: DataBuffer, dest: number, tag = 0): void {
    addon().send(this.handle, buf, dest, tag, READY);
  }

  /** Receives into `buf` (which must be large enough: MPI_ERR_TRUNCATE otherwise). */
  recv(buf: DataBuffer, source = ANY_SOURCE, tag = ANY_TAG): Status {
    return addon().recv(this.handle, buf, source, tag);
  }

  /** Sends `sendbuf` to `dest` and receives into `recvbuf` from `source`, without deadlock (MPI_Sendrecv). */
  sendrecv(sendbuf: DataBuffer, dest: number, recvbuf: DataBuffer, source = ANY_SOURCE, sendtag = 0, recvtag = ANY_TAG): Status {
    return addon().sendrecv(this.handle, sendbuf, dest, sendtag, recvbuf, source, recvtag);
  }

  /** Sends `buf` to `dest` and receives into the same `buf` from `source` (MPI_Sendrecv_replace). */
  sendrecvReplace(buf: DataBuffer, dest: number, source = ANY_SOURCE, sendtag = 0, recvtag = ANY_TAG): Status {
    return addon().sendrecvReplace(this.handle, buf, dest, sendtag, source, recvtag);
  }

  isend(buf: DataBuffer, dest: number, tag = 0): Request<void> {
    return this.#isend(buf, dest, tag, STANDARD);
  }

  issend(buf: DataBuffer, dest: number, tag = 0): Request<void> {
    return this.#isend(buf, dest, tag, SYNCHRONOUS);
  }

  /** Nonblocking buffered send (MPI_Ibsend; see bsend). */
  ibsend(buf: DataBuffer, dest: number, tag = 0): Request<void> {
    return this.#isend(buf, dest, tag, BUFFERED);
  }

  /** Nonblocking ready send (MPI_Irsend; see rsend). */
  irsend(buf: DataBuffer, dest: number, tag = 0): Request<void> {
    return this.#isend(buf, dest, tag, READY);
  }

  // A nonblocking send in `mode`: its request in a slot of the addon's table (startSend).
  #isend(buf: DataBuffer, dest: number, tag: number, mode: SendMode): Request<void> {
    return startSend((slot) => addon().isend(this.handle, buf, dest, tag, mode, slot), buf);
  }

  /** Nonblocking receive; the request resolves to the Status. */
  irecv(buf: DataBuffer, source = ANY_SOURCE, tag = ANY_TAG): Request<Status> {
    return startReceive((slot) => addon().irecv(this.handle, buf, source, tag, slot), buf);
  }

  /** A persistent standard send of `buf` to `dest` (MPI_Send_init): start() sends buf's current contents. */
  sendInit(buf: DataBuffer, dest: number, tag = 0): PersistentRequest<void> {
    return persistentRequest(addon().sendInit(this.handle, buf, dest, tag, STANDARD), () => undefined, [buf]);
  }

  /** A persistent synchronous send (MPI_Ssend_init; see ssend). */
  ssendInit(buf: DataBuffer, dest: number, tag = 0): PersistentRequest<void> {
    return persistentRequest(addon().sendInit(this.handle, buf, dest, tag, SYNCHRONOUS), () => undefined, [buf]);
  }

  /** A persistent buffered send (MPI_Bsend_init; see bsend). */
  bsendInit(buf: DataBuffer, dest: number, tag = 0): PersistentRequest<void> {
    return persistentRequest(addon().sendInit(this.handle, buf, dest, tag, BUFFERED), () => undefined, [buf]);
  }

  /** A persistent ready send (MPI_Rsend_init; see rsend). */
  rsendInit(buf: DataBuffer, dest: number, tag = 0): PersistentRequest<void> {
    return persistentRequest(addon().sendInit(this.handle, buf, dest, tag, READY), () => undefined, [buf]);
  }

  /** A persistent receive into `buf` (MPI_Recv_init): each start() resolves to that receive's Status. */
  recvInit(buf: DataBuffer, source = ANY_SOURCE, tag = ANY_TAG): PersistentRequest<Status> {
    const native = addon().recvInit(this.handle, buf, source, tag);
    return persistentRequest(native, () => native.status(), [buf]);
  }

  /**
   * Waits for a matching message and takes it out of the queue (MPI_Mprobe): no other receive can
   * match it; receive it with the Message's recv() or irecv() (its status counts bytes).
   */
  mprobe(source = ANY_SOURCE, tag = ANY_TAG): Message {
    return matchedMessage(addon().mprobe(this.handle, source, tag))!;
  }

  /** mprobe without waiting (MPI_Improbe): the Message if one has arrived, else null. */
  improbe(source = ANY_SOURCE, tag = ANY_TAG): Message | null {
    return matchedMessage(addon().improbe(this.handle, source, tag));
  }

  /** Waits for a matching message without receiving it (count in bytes). */
  probe(source = ANY_SOURCE, tag = ANY_TAG): Status {
    return addon().probe(this.handle, source, tag);
  }

  /** The status of a matching message if one has arrived, else null. */
  iprobe(source = ANY_SOURCE, tag = ANY_TAG): Status | null {
    return addon().iprobe(this.handle, source, tag);
  }

  // --- Collectives run by the topocoll engine (algorithm chosen per call) ---

  barrier(): void {
    addon().barrier(this.handle, false);
  }

  ibarrier(): Request {
    return newRequest(engineRequest(addon().barrier(this.handle, true)), () => undefined, []);
  }

  /** Broadcasts `buffer` from `root` into `buffer` on every rank. */
  bcast<T extends DataBuffer>(buffer: T, root = 0): T {
    addon().bcast(this.handle, buffer, root, false);
    return buffer;
  }

  ibcast<T extends DataBuffer>(buffer: T, root = 0): Request<T> {
    return newRequest(engineRequest(addon().bcast(this.handle, buffer, root, true)), () => buffer, [buffer]);
  }

  /** Every rank's `sendbuf` lands in `recvbuf` in rank order (recvbuf holds size × sendbuf). */
  allgather<T extends DataBuffer>(sendbuf: DataSendBuffer, recvbuf: T): T {
    addon().allgather(this.handle, sendArg(sendbuf), recvbuf, false);
    return recvbuf;
  }

  iallgather<T extends DataBuffer>(sendbuf: DataSendBuffer, recvbuf: T): Request<T> {
    return newRequest(engineRequest(addon().allgather(this.handle, sendArg(sendbuf), recvbuf, true)), () => recvbuf, [sendbuf, recvbuf]);
  }

  /** Block j of `sendbuf` goes to rank j; block i of `recvbuf` comes from rank i. */
  alltoall<T extends DataBuffer>(sendbuf: DataSendBuffer, recvbuf: T): T {
    addon().alltoall(this.handle, sendArg(sendbuf), recvbuf, false);
    return recvbuf;
  }

  ialltoall<T extends DataBuffer>(sendbuf: DataSendBuffer, recvbuf: T): Request<T> {
    return newRequest(engineRequest(addon().alltoall(this.handle, sendArg(sendbuf), recvbuf, true)), () => recvbuf, [sendbuf, recvbuf]);
  }

  // --- Collectives run by the system MPI ---

  /**
   * Every rank's `sendbuf` lands in the root's `recvbuf` in rank order; returns recvbuf at the root,
   * null elsewhere (where recvbuf may be null). IN_PLACE at the root: its block is already in place.
   */
  gather<T extends DataBuffer>(sendbuf: DataSendBuffer, recvbuf: T | null, root = 0): T | null {
    addon().gather(this.handle, sendArg(sendbuf), recvbuf, root, false);
    return this.rank === root ? recvbuf : null;
  }

  igather<T extends DataBuffer>(sendbuf: DataSendBuffer, recvbuf: T | null, root = 0): Request<T | null> {
    const native = addon().gather(this.handle, sendArg(sendbuf), recvbuf, root, true);
    return newRequest(native, () => (this.rank === root ? recvbuf : null), [sendbuf, recvbuf]);
  }

  /** gather with a count (and displacement) per rank, significant at the root only. */
  gatherv<T extends BufferLike>(sendbuf: SendBuffer, recv: VectorBuffer<T> | null, root = 0): T | null {
    const r = vectorArg(recv, 'gatherv', 'recv');
    addon().gatherv(this.handle, sendArg(sendbuf), r?.buffer ?? null, r?.counts, r?.displs, root, false);
    return this.rank === root ? (r!.buffer as T) : null;
  }

  igatherv<T extends BufferLike>(sendbuf: SendBuffer, recv: VectorBuffer<T> | null, root = 0): Request<T | null> {
    const r = vectorArg(recv, 'igatherv', 'recv');
    const native = addon().gatherv(this.handle, sendArg(sendbuf), r?.buffer ?? null, r?.counts, r?.displs, root, true);
    return newRequest(native, () => (this.rank === root ? (r!.buffer as T) : null), [sendbuf, r?.buffer]);
  }

  /**
   * Block i of the root's `sendbuf` lands in rank i's `recvbuf` (sendbuf may be null elsewhere);
   * returns recvbuf. IN_PLACE as recvbuf at the root: the root's block stays where it is, and the
   * root gets a view of it (its block of sendbuf, not a copy), so every rank gets its block back.
   */
  scatter<T extends DataBuffer>(sendbuf: DataBuffer | null, recvbuf: T, root?: number): T;
  scatter<S extends BufferLike>(sendbuf: S, recvbuf: typeof IN_PLACE, root?: number): BlockOf<S>;
  scatter(sendbuf: BufferSpec, recvbuf: typeof IN_PLACE, root?: number): BufferSpec;
  scatter<T extends DataBuffer, S extends BufferLike>(sendbuf: S | null, recvbuf: T | typeof IN_PLACE, root?: number): T | BlockOf<S>;
  scatter(sendbuf: DataBuffer | null, recvbuf: DataBuffer | typeof IN_PLACE, root = 0): DataBuffer {
    addon().scatter(this.handle, sendbuf, sendArg(recvbuf), root, false);
    return recvbuf === IN_PLACE ? scatterBlock(sendbuf!, this.size, root) : recvbuf;
  }

  iscatter<T extends DataBuffer>(sendbuf: DataBuffer | null, recvbuf: T, root?: number): Request<T>;
  iscatter<S extends BufferLike>(sendbuf: S, recvbuf: typeof IN_PLACE, root?: number): Request<BlockOf<S>>;
  iscatter(sendbuf: BufferSpec, recvbuf: typeof IN_PLACE, root?: number): Request<BufferSpec>;
  iscatter<T extends DataBuffer, S extends BufferLike>(sendbuf: S | null, recvbuf: T | typeof IN_PLACE, root?: number): Request<T | BlockOf<S>>;
  iscatter(sendbuf: DataBuffer | null, recvbuf: DataBuffer | typeof IN_PLACE, root = 0): Request<DataBuffer> {
    const native = addon().scatter(this.handle, sendbuf, sendArg(recvbuf), root, true);
    return newRequest(native, () => (recvbuf === IN_PLACE ? scatterBlock(sendbuf!, this.size, root) : recvbuf), [sendbuf, recvbuf]);
  }

  /**
   * scatter with a count (and displacement) per rank, significant at the root only; returns
   * recvbuf (IN_PLACE at the root: a view of the root's block of the send buffer).
   */
  scatterv<T extends BufferLike>(send: VectorBuffer | null, recvbuf: T, root?: number): T;
  scatterv<S extends BufferLike>(send: VectorBuffer<S>, recvbuf: typeof IN_PLACE, root?: number): BlockOf<S>;
  scatterv<T extends BufferLike, S extends BufferLike>(send: VectorBuffer<S> | null, recvbuf: T | typeof IN_PLACE, root?: number): T | BlockOf<S>;
  scatterv(send: VectorBuffer | null, recvbuf: BufferLike | typeof IN_PLACE, root = 0): BufferLike {
    const s = vectorArg(send, 'scatterv', 'send');
    addon().scatterv(this.handle, s?.buffer ?? null, s?.counts, s?.displs, sendArg(recvbuf), root, false);
    return recvbuf === IN_PLACE ? scattervBlock(s!, root) : recvbuf;
  }

  iscatterv<T extends BufferLike>(send: VectorBuffer | null, recvbuf: T, root?: number): Request<T>;
  iscatterv<S extends BufferLike>(send: VectorBuffer<S>, recvbuf: typeof IN_PLACE, root?: number): Request<BlockOf<S>>;
  iscatterv<T extends BufferLike, S extends BufferLike>(send: VectorBuffer<S> | null, recvbuf: T | typeof IN_PLACE, root?: number): Request<T | BlockOf<S>>;
  iscatterv(send: VectorBuffer | null, recvbuf: BufferLike | typeof IN_PLACE, root = 0): Request<BufferLike> {
    const s = vectorArg(send, 'iscatterv', 'send');
    const native = addon().scatterv(this.handle, s?.buffer ?? null, s?.counts, s?.displs, sendArg(recvbuf), root, true);
    return newRequest(native, () => (recvbuf === IN_PLACE ? scattervBlock(s!, root) : recvbuf), [s?.buffer, recvbuf]);
  }

  /** allgather with a count (and displacement) per rank. */
  allgatherv<T extends BufferLike>(sendbuf: SendBuffer, recv: VectorBuffer<T>): T {
    const r = vectorArg(recv, 'allgatherv', 'recv')!;
    addon().allgatherv(this.handle, sendArg(sendbuf), r?.buffer, r?.counts, r?.displs, false);
    return r.buffer as T;
  }

  iallgatherv<T extends BufferLike>(sendbuf: SendBuffer, recv: VectorBuffer<T>): Request<T> {
    const r = vectorArg(recv, 'iallgatherv', 'recv')!;
    const native = addon().allgatherv(this.handle, sendArg(sendbuf), r?.buffer, r?.counts, r?.displs, true);
    return newRequest(native, () => r.buffer as T, [sendbuf, r?.buffer]);
  }

  /** alltoall with counts and displacements per rank on both sides (send may be IN_PLACE). */
  alltoallv<T extends BufferLike>(send: VectorBuffer | typeof IN_PLACE, recv: VectorBuffer<T>): T {
    const s = send === IN_PLACE ? null : vectorArg(send, 'alltoallv', 'send')!;
    const r = vectorArg(recv, 'alltoallv', 'recv')!;
    addon().alltoallv(this.handle, s ? s.buffer : null, s?.counts, s?.displs, r?.buffer, r?.counts, r?.displs, false);
    return r.buffer as T;
  }

  ialltoallv<T extends BufferLike>(send: VectorBuffer | typeof IN_PLACE, recv: VectorBuffer<T>): Request<T> {
    const s = send === IN_PLACE ? null : vectorArg(send, 'ialltoallv', 'send')!;
    const r = vectorArg(recv, 'ialltoallv', 'recv')!;
    const native = addon().alltoallv(this.handle, s ? s.buffer : null, s?.counts, s?.displs, r?.buffer, r?.counts, r?.displs, true);
    return newRequest(native, () => r.buffer as T, [s?.buffer, r?.buffer]);
  }

  /**
   * A reduction by the engine (predefined ops: reduce, allreduce, the reduce_scatters) or the
   * system MPI (scan, exscan), or with an op that runs in JS (src/mpi/user-op.ts): started, or run
   * when blocking; `finish` completes what the op's JS part leaves once the exchange is done.
   */
  #reduction(
    kind: ReductionKind,
    what: string,
    sendbuf: SendBuffer,
    recvbuf: BufferLike | null,
    op: BufferOp,
    nonblocking: boolean,
    root = 0,
    recvcounts?: ArrayLike<number>,
  ): { native?: NativeRequest; finish(): void; keep: unknown[] } {
    const fn = jsOpFunction(op);
    if (fn) return userReduction(this, kind, what, sendArg(sendbuf), recvbuf, fn, nonblocking, root, recvcounts);
    const a = addon();
    const index = opIndex(op as Op, what);
    const send = sendArg(sendbuf);
    const nb = nonblocking as true; // the request when nonblocking, else undefined
    const native =
      kind === 'reduce'
        ? a.reduce(this.handle, send, recvbuf, index, root, nb)
        : kind === 'reduceScatter'
          ? a.reduceScatter(this.handle, send, recvbuf as BufferLike, recvcounts as ArrayLike<number>, index, nb)
          : a[kind](this.handle, send, recvbuf as BufferLike, index, nb);
    // The engine's reductions give a slot, scan/exscan (the system MPI's) an MpiRequest.
    return { native: typeof native === 'number' ? engineRequest(native) : (native ?? undefined), finish: () => {}, keep: [sendbuf, recvbuf] };
  }

  // A blocking reduction, or its nonblocking twin's Request of `result`.
  #blockingReduction<T>(kind: ReductionKind, sendbuf: SendBuffer, recvbuf: BufferLike | null, op: BufferOp, result: T, root = 0, recvcounts?: ArrayLike<number>): T {
    this.#reduction(kind, kind, sendbuf, recvbuf, op, false, root, recvcounts).finish();
    return result;
  }
  #nonblockingReduction<T>(kind: ReductionKind, sendbuf: SendBuffer, recvbuf: BufferLike | null, op: BufferOp, result: T, root = 0, recvcounts?: ArrayLike<number>): Request<T> {
    const r = this.#reduction(kind, `i${kind}`, sendbuf, recvbuf, op, true, root, recvcounts);
    return newRequest(r.native!, () => (r.finish(), result), r.keep);
  }

  /** Element-wise `op` over every rank's `sendbuf` into the root's `recvbuf` (null elsewhere). */
  reduce<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T | null, op: BufferOp = 'SUM', root = 0): T | null {
    return this.#blockingReduction('reduce', sendbuf, recvbuf, op, this.rank === root ? recvbuf : null, root);
  }

  ireduce<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T | null, op: BufferOp = 'SUM', root = 0): Request<T | null> {
    return this.#nonblockingReduction('reduce', sendbuf, recvbuf, op, this.rank === root ? recvbuf : null, root);
  }

  /** Element-wise `op` over every rank's `sendbuf`, into every rank's `recvbuf`. */
  allreduce<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T, op: BufferOp = 'SUM'): T {
    return this.#blockingReduction('allreduce', sendbuf, recvbuf, op, recvbuf);
  }

  iallreduce<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T, op: BufferOp = 'SUM'): Request<T> {
    return this.#nonblockingReduction('allreduce', sendbuf, recvbuf, op, recvbuf);
  }

  /** Reduces size × n elements and leaves block i (n elements) on rank i (MPI_Reduce_scatter_block). */
  reduceScatterBlock<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T, op: BufferOp = 'SUM'): T {
    return this.#blockingReduction('reduceScatterBlock', sendbuf, recvbuf, op, recvbuf);
  }

  ireduceScatterBlock<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T, op: BufferOp = 'SUM'): Request<T> {
    return this.#nonblockingReduction('reduceScatterBlock', sendbuf, recvbuf, op, recvbuf);
  }

  /**
   * Reduces the sum of `recvcounts` elements and leaves `recvcounts[i]` of them on rank i, in rank
   * order (MPI_Reduce_scatter); in place, `recvbuf` holds the whole vector and rank i's part lands
   * at its start.
   */
  reduceScatter<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T, recvcounts: ArrayLike<number>, op: BufferOp = 'SUM'): T {
    return this.#blockingReduction('reduceScatter', sendbuf, recvbuf, op, recvbuf, 0, recvcounts);
  }

  ireduceScatter<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T, recvcounts: ArrayLike<number>, op: BufferOp = 'SUM'): Request<T> {
    return this.#nonblockingReduction('reduceScatter', sendbuf, recvbuf, op, recvbuf, 0, recvcounts);
  }

  /** Inclusive prefix reduction: rank i gets op over ranks 0..i. */
  scan<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T, op: BufferOp = 'SUM'): T {
    return this.#blockingReduction('scan', sendbuf, recvbuf, op, recvbuf);
  }

  iscan<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T, op: BufferOp = 'SUM'): Request<T> {
    return this.#nonblockingReduction('scan', sendbuf, recvbuf, op, recvbuf);
  }

  /** Exclusive prefix reduction: rank i gets op over ranks 0..i-1 (rank 0's recvbuf is left as it was). */
  exscan<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T, op: BufferOp = 'SUM'): T {
    return this.#blockingReduction('exscan', sendbuf, recvbuf, op, recvbuf);
  }

  iexscan<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T, op: BufferOp = 'SUM'): Request<T> {
    return this.#nonblockingReduction('exscan', sendbuf, recvbuf, op, recvbuf);
  }

  // --- Object mode: plain JS values in v8.serialize's format (structured-clone types; src/mpi/serialize.ts) ---

  /** Sends a JS value to `dest`. */
  sendObject(value: unknown, dest: number, tag = 0): void {
    addon().send(this.handle, serializeTransient(value), dest, tag, STANDARD);
  }

  /** Receives a JS value of any size; fills `status` when given. */
  recvObject<T = unknown>(source = ANY_SOURCE, tag = ANY_TAG, status?: Partial<Status>): T {
    const got = addon().recvBytes(this.handle, source, tag, received, status ? receivedFields : undefined);
    if (status) Object.assign(status, statusAt(receivedFields, 0));
    return (typeof got === 'number' ? deserialize(received, true, 0, got) : deserialize(got)) as T;
  }

  isendObject(value: unknown, dest: number, tag = 0): Request<void> {
    const data = serialize(value);
    return startSend((slot) => addon().isend(this.handle, data, dest, tag, STANDARD, slot), data, 'object');
  }

  /** Nonblocking receive of a JS value of any size (matched probe, then receive). */
  irecvObject<T = unknown>(source = ANY_SOURCE, tag = ANY_TAG): Request<T> {
    const native = addon().irecvBytes(this.handle, source, tag);
    return newRequest(native, () => deserialize(native.data()!) as T, [], 'object');
  }

  /** Sends `value` to `dest` and receives a value from `source`, without deadlock. */
  sendrecvObject<T = unknown>(value: unknown, dest: number, source = ANY_SOURCE, sendtag = 0, recvtag = ANY_TAG): T {
    const out = this.isendObject(value, dest, sendtag);
    const got = this.recvObject<T>(source, recvtag);
    out.wait();
    return got;
  }

  /** The root's `value` on every rank. */
  bcastObject<T>(value: T, root = 0): T {
    const atRoot = this.rank === root;
    const data = atRoot ? serializeTransient(value) : null;
    const block = receiveBlocks(BCAST_BLOCK_BYTES);
    if (data) fillBlock(block, blockLengths, 0, BCAST_BLOCK_BYTES, data);
    this.bcast(block, root);
    const length = blockLengths[0];
    const head = BCAST_BLOCK_BYTES - LENGTH_BYTES;
    if (length <= head) return atRoot ? value : (deserialize(block, true, LENGTH_BYTES, LENGTH_BYTES + length) as T);
    if (data) {
      this.bcast(data.subarray(head), root);
      return value;
    }
    const incoming = Buffer.allocUnsafe(length);
    block.copy(incoming, 0, LENGTH_BYTES);
    this.bcast(incoming.subarray(head), root);
    return deserialize(incoming) as T;
  }

  /** Every rank's value, in rank order, at the root (null elsewhere). */
  gatherObject<T>(value: T, root = 0): T[] | null {
    const data = serializeTransient(value);
    const atRoot = this.rank === root;
    const counts = atRoot ? new Float64Array(this.size) : null;
    this.gather(new Float64Array([data.byteLength]), counts, root);
    const incoming = atRoot ? Buffer.allocUnsafe(counts!.reduce((a, b) => a + b, 0)) : null;
    this.gatherv(data, atRoot ? { buffer: incoming!, counts: counts! } : null, root);
    return atRoot ? (split(incoming!, counts!) as T[]) : null;
  }

  /** values[i] (one per rank, given at the root) goes to rank i. */
  scatterObject<T>(values: readonly T[] | null, root = 0): T {
    const atRoot = this.rank === root;
    let parts: Uint8Array[] = [];
    if (atRoot) {
      if (!Array.isArray(values) || values.length !== this.size) {
        throw new RangeError(`scatterObject: the root needs an array of ${this.size} values (one per rank)`);
      }
      parts = values.map((v) => serialize(v));
    }
    const counts = atRoot ? lengths(parts) : null;
    const length = new Float64Array(1);
    this.scatter(counts, length, root);
    const incoming = Buffer.allocUnsafe(length[0]);
    this.scatterv(atRoot ? { buffer: concat(parts), counts: counts! } : null, incoming, root);
    return deserialize(incoming) as T;
  }

  /** Every rank's value, in rank order, on every rank. */
  allgatherObject<T>(value: T): T[] {
    const p = this.size;
    const data = serializeTransient(value);
    fillBlock(ownBlock, ownLength, 0, ALLGATHER_BLOCK_BYTES, data);
    const all = this.allgather(ownBlock, receiveBlocks(p * ALLGATHER_BLOCK_BYTES));
    const head = ALLGATHER_BLOCK_BYTES - LENGTH_BYTES;
    const rests = new Float64Array(p); // what did not fit in each rank's block
    let rest = 0;
    for (let i = 0; i < p; i++) rest += rests[i] = Math.max(0, blockLengths[(i * ALLGATHER_BLOCK_BYTES) / LENGTH_BYTES] - head);
    const tails = rest > 0 ? Buffer.allocUnsafe(rest) : null;
    // `data` is still this rank's value: nothing has serialized since.
    if (tails) this.allgatherv(data.subarray(Math.min(data.byteLength, head)), { buffer: tails, counts: rests });
    const out: T[] = [];
    for (let i = 0, at = 0; i < p; i++) {
      const start = i * ALLGATHER_BLOCK_BYTES + LENGTH_BYTES;
      if (rests[i] === 0) {
        out.push(deserialize(all, true, start, start + blockLengths[(i * ALLGATHER_BLOCK_BYTES) / LENGTH_BYTES]) as T);
      } else {
        out.push(deserialize(Buffer.concat([all.subarray(start, start + head), tails!.subarray(at, at + rests[i])])) as T);
        at += rests[i];
      }
    }
    return out;
  }

  /** values[j] goes to rank j; returns the values from every rank, in rank order. */
  alltoallObject<T>(values: readonly T[]): T[] {
    if (!Array.isArray(values) || values.length !== this.size) {
      throw new RangeError(`alltoallObject: needs an array of ${this.size} values (one per rank)`);
    }
    const parts = values.map((v) => serialize(v));
    const sendcounts = lengths(parts);
    const recvcounts = this.alltoall(sendcounts, new Float64Array(this.size));
    const incoming = Buffer.allocUnsafe(recvcounts.reduce((a, b) => a + b, 0));
    this.alltoallv({ buffer: concat(parts), counts: sendcounts }, { buffer: incoming, counts: recvcounts });
    return split(incoming, recvcounts) as T[];
  }

  /** `op` (an Op name or a function) folded over every rank's value in rank order, at the root (null elsewhere). */
  reduceObject<T>(value: T, op: ObjectOp<T>, root = 0): T | null {
    const fold = objectOpFunction(op, 'reduceObject');
    const all = this.gatherObject(value, root);
    return all ? all.reduce((a, b) => fold(a, b)) : null;
  }

  /** `op` folded over every rank's value in rank order, on every rank. */
  allreduceObject<T>(value: T, op: ObjectOp<T>): T {
    const fold = objectOpFunction(op, 'allreduceObject');
    return this.allgatherObject(value).reduce((a, b) => fold(a, b));
  }
}

let worldComm: Comm | undefined;
let selfComm: Comm | undefined;

/** MPI_COMM_WORLD; initializes MPI on first use. */
export function getWorld(): Comm {
  init();
  return (worldComm ??= commOfHandle(0));
}

/** MPI_COMM_SELF; initializes MPI on first use. */
export function getSelf(): Comm {
  init();
  return (selfComm ??= commOfHandle(1));
}
