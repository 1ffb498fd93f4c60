// The native addon's surface, declared once: every export of native/addon/*.cc (the init*
// functions' exports.Set) with the arguments its glue accepts and what it returns. src/mpi/native.ts
// loads the addon as a NativeAddon; test/unit/addon-surface.test.ts holds this interface and the
// built addon's exports to the same names, both ways, so an export cannot go undeclared, nor a
// declaration stale. The glue checks every argument at run time (a TypeError or RangeError); the
// types here say what passes those checks.
import type { CollectiveName, MpiFlavour } from '../select/registry';
import type { Schedule, ScheduleParams } from '../select/schedule';
import type { Topology } from '../topology/file';
import type { ANY_SOURCE, ANY_TAG, BufferLike, PROC_NULL, Status, UNDEFINED } from './comm';
import type { DataBuffer, Datatype } from './datatype';
import type { MpiError } from './errors';
import type { Datarep, FileHints, FileModeName } from './file';
import type { ThreadLevel } from './lifecycle';
import type { CartInfo, Neighbors, Shift, TopologyKind } from './topology';

/** A communicator: an index into the addon's table (0 = COMM_WORLD, 1 = COMM_SELF). */
type CommHandle = number;
/** A group: an index into the addon's group table. */
type GroupHandle = number;
/** An open file: an index into the addon's file table. */
type FileHandle = number;
/** A window: an index into the addon's window table. */
type WinHandle = number;

/**
 * A collective the glue runs blocking (its last argument false: returns when done) or
 * nonblocking (true: returns the request).
 */
interface Completing<A extends unknown[], R> {
  (...args: [...A, false]): void;
  (...args: [...A, true]): R;
}

/** Whole numbers as the mapping glue reads them: an array, an Int32Array or a Float64Array. */
type Integers = readonly number[] | Int32Array | Float64Array;

/** An operation in flight: the engine's (EngineRequest, src/mpi/request.ts), a send's, an MPI request. */
export interface NativeRequest {
  test(): boolean;
  wait(): void;
}

/** A request of the system MPI (MpiRequest, native/addon/mpi_binding.cc). */
export interface MpiRequest extends NativeRequest {
  /** The receive's status; a TypeError until the request completes. */
  status(): Status;
  /** A receive of unknown size (irecvBytes): the message once complete, else undefined. */
  data(): Buffer | undefined;
  /** MPI_Cancel (the request must still complete); a TypeError for irecvBytes before a match. */
  cancel(): void;
  /** MPI_Start of an inactive persistent request; a TypeError otherwise. */
  start(): void;
  /** MPI_Request_free of an inactive persistent request; a TypeError otherwise. */
  free(): void;
}

/** A message matched by a probe (NativeMessage, native/addon/p2p.cc): received once. */
export interface NativeMessage {
  /** MPI_Mrecv. */
  recv(buf: DataBuffer): Status;
  /** MPI_Imrecv. */
  irecv(buf: DataBuffer): MpiRequest;
}

/** What mprobe and improbe return: the message and its status (count in bytes). */
interface Matched {
  message: NativeMessage;
  status: Status;
}

/** Send modes: standard, synchronous, buffered, ready (MPI_Send, MPI_Ssend, MPI_Bsend, MPI_Rsend). */
export type SendMode = 0 | 1 | 2 | 3;

// --- native/addon/hierarchy.cc ---

/** One rank's place, as the engine detected it (native/engine/hierarchy). */
interface RankPlace {
  rank: number;
  host: string;
  node: number;
  socket: number;
  numa: number;
  core: number;
  cpu: number;
  /** How the rank is bound: 'core' (one CPU), 'socket' (CPUs of one socket) or 'none'. */
  binding: 'core' | 'socket' | 'none';
  /** The TOPOCOLL_VIRTUAL_NODES (or topology file) node, -1 without an override. */
  virtualNode: number;
}

interface CacheInfo {
  level: number;
  type: string;
  bytes: number;
  lineBytes: number;
  sharedCpus: number[];
}

/** What hierarchy() returns. */
export interface HierarchyInfo {
  ranks: RankPlace[];
  caches: CacheInfo[];
  nodeCount: number;
  virtualNodes: boolean;
  numaMachine: boolean;
  sharedCacheBytes: number;
  sharedCacheRanks: number;
  /**
   * The world's ranks on this rank's kernel and the CPUs they may run on (the union of their
   * affinities, no more than `cpuLimit`, the cgroup's CPU limit, 0 for none); `yields`: ranks
   * outnumber CPUs, so a waiting rank yields its core.
   */
  kernel: { ranks: number; cpus: number; cpuLimit: number; yields: boolean };
  /** With `{shm: true}`: the node's shared memory. */
  shm?: { available: boolean; why: string; channels: number; parts: number; partBytes: number; namePrefix: string };
}

// --- native/addon/topology.cc ---

/** A topology resolved for a job: per level, each rank's module, the modules' labels and parents. */
interface EngineLevels {
  levels: Array<{ moduleOf: Int32Array; labels: string[]; parent: Int32Array }>;
}

/** The same, with z(p, q) for every pair of ranks. */
interface EngineResolution extends EngineLevels {
  z: number[][];
}

/**
 * The line map of JSON converted from YAML (config/document.ts yamlToJson): lines[i] is the
 * file's line of JSON line i + 1, 0 for none; null or absent: the JSON's own lines.
 */
type LineMap = readonly number[] | null;

/** What worldTopology() returns when the job has a topology file. */
export interface EngineWorldTopology {
  topology: Topology;
  resolved: EngineResolution;
}

// --- native/addon/schedules.cc, bench.cc ---

/** The algorithms of each collective the build has builders for, and what is wrong with the registry ('' when nothing). */
export type RegisteredAlgorithms = Record<CollectiveName, string[]> & { problems: string };

/** benchCollective's options; absent or null: the default in parentheses. */
export interface BenchOptions {
  /** Calls per repetition (0: from a probe, to last about targetUs). */
  iterations?: number;
  /** (20000) */
  targetUs?: number;
  /** (3) */
  minIterations?: number;
  /** (100000) */
  maxIterations?: number;
  /** (0: a tenth of the iterations) */
  warmup?: number;
  /** (5) */
  repetitions?: number;
  /** Bytes the buffers rotate over (0: one slot). */
  rotateBytes?: number;
  /** Check every byte received (false). */
  check?: boolean;
  /** (0) */
  root?: number;
  /** Time each call from a common start (false: back-to-back calls). */
  window?: boolean;
  /** The window (0: from the probe). */
  windowUs?: number;
}

interface BenchResult {
  /** Per repetition, µs per call; null where every window of it had a rank start late. */
  timesUs: (number | null)[];
  iterations: number;
  slots: number;
  errors: number;
  windowUs: number;
  invalid: number;
}

// --- native/addon/model.cc ---

/** Seconds and seconds per byte. */
interface LinkCost {
  alpha: number;
  beta: number;
}

/** predictAlgorithms' options: those of the builders, the block size, and the levels' costs. */
export interface PredictionOptions extends ScheduleParams {
  /** Bytes of one block (bcast: one element); default 1. */
  blockBytes?: number;
  /** Levels instead of the engine's defaults. */
  intra?: LinkCost;
  inter?: LinkCost;
  /** γ, seconds per byte combined by a reduce op, instead of the engine's default. */
  gamma?: number;
}

export interface EnginePrediction {
  readonly algorithm: string;
  readonly predicted_us?: number;
  readonly rounds?: number;
  readonly messages?: number;
  readonly bytes?: number;
  readonly alcd?: number;
  /** Why the engine could not predict it. */
  readonly skipped?: string;
}

/**
 * A schedule in the engine's compact form (native/engine/model/hockney.h), for simulateCompiled
 * and replayEvents: per round a header slot [ops, ops awaited], then a two-word slot per op
 * ([peer, units] for a send, [-1 - peer, units] for a receive, [ModelLayout's copy or reduce code,
 * units], [its signal or wait code, the flag's owner]). Slots index `flags` and CompiledRank's spans.
 */
export interface CompiledStream {
  readonly rounds: number;
  readonly stream: Int32Array;
  /** Counts are units of 1/unitsPerBlock block. */
  readonly unitsPerBlock: number;
  /** Flag ops' slot and stage, by op slot; present when the schedule has flag ops. */
  readonly flags?: { readonly slot: Uint8Array; readonly stage: Int32Array };
}

/** Where every op slot's blocks are (buffers by index into ModelLayout's buffers), for the symbolic replay. */
export interface CompiledSpans {
  /** send, copy, reduce: the source span (buffer, first unit). */
  readonly srcBuf: Uint8Array;
  readonly srcFirst: Int32Array;
  /** recv, copy, reduce: the destination span. */
  readonly dstBuf: Uint8Array;
  readonly dstFirst: Int32Array;
  /** reduce: 1 when the destination is the left operand (dst_first), else 0. */
  readonly dstFirstOrder: Uint8Array;
}

/** compileSchedule's result: one rank's schedule compiled, with its spans when asked for. */
export interface CompiledRank extends CompiledStream {
  readonly rank: number;
  readonly tmpBlocks: number;
  readonly spans?: CompiledSpans;
}

/** buildCompiled's result: a builder's schedule compiled with its spans, and the request it answers (buildSchedule's fields besides the rounds). */
export type CompiledSchedule = CompiledRank & Omit<Schedule, 'rounds'> & { readonly spans: CompiledSpans };

/** The compact form's codes and replayEvents' record kinds, as the engine defines them (hockney.h). */
export interface ModelLayout {
  readonly copyCode: number;
  readonly signalCode: number;
  readonly waitCode: number;
  readonly reduceCode: number;
  /** Buffer names by the spans' buffer index ('none', 'send', 'recv', 'tmp', 'shm'). */
  readonly buffers: readonly string[];
  readonly events: { readonly roundStart: number; readonly match: number; readonly signal: number; readonly flagPass: number; readonly roundEnd: number };
  /** Words of a record (its kind included), by kind. */
  readonly eventWords: Int32Array;
}

/** One level of a simulated machine (src/model/machine.ts's Level). */
interface SimulatedLevel {
  readonly alpha: number;
  readonly beta: number;
  /** β of a send to a rank that sends back in the round. */
  readonly exchangeBeta: number;
  /** A flag's latency. */
  readonly signalAlpha: number;
  /** LogGP o and g. */
  readonly overhead: number;
  readonly gap: number;
  readonly usesNic: boolean;
}

/** The machine of simulateSchedules and simulateCompiled: its levels and where every rank runs. */
export interface SimulatedMachine {
  readonly levels: readonly SimulatedLevel[];
  /** The level of the socket, node and system scopes. */
  readonly levelByScope: Int32Array;
  readonly node: Int32Array;
  readonly socket: Int32Array;
  readonly nic: Int32Array;
  /** Switches between nodes under different leaf switches. */
  readonly hops: number;
  /** Nodes under one leaf switch; 0: unknown (every message between nodes crosses `hops`). */
  readonly nodesPerSwitch: number;
  /** Seconds per byte copied. */
  readonly copyBeta: number;
  /** γ: seconds per byte combined by a reduce op. */
  readonly gamma: number;
  /** Seconds per round entered. */
  readonly roundOverhead: number;
}

/** The cost model and the call's block size. */
export interface SimulationTiming {
  readonly model: 'hockney' | 'loggp' | 'contention';
  /** contention: seconds of mean switch wait per byte and switch crossed. */
  readonly switchWait: number;
  /** Bytes of one block (bcast and the reductions: one element). */
  readonly blockBytes: number;
  /** Called now and then: 'build' counts ranks whose schedules are built, 'replay' rounds replayed of all ranks'. */
  readonly progress?: (phase: 'build' | 'replay', done: number, total: number) => void;
}

export interface NativeTiming {
  readonly seconds: number;
  readonly rounds: number;
  readonly messages: number;
  readonly bytes: number;
  readonly alcd: number;
  readonly note: string;
}

// --- native/addon/mapping.cc ---

/** A weighted undirected graph in CSR form; every edge appears in both rows. */
export interface InformationGraph {
  readonly n: number;
  readonly xadj: Float64Array;
  readonly adjncy: Int32Array;
  /** Bytes the pair exchanges over the whole algorithm, both directions summed. */
  readonly adjwgt: Float64Array;
}

/** A graph as the partitioner takes it: an InformationGraph, or one written by hand (vertex weights optional). */
interface GraphInput {
  readonly n: number;
  readonly xadj: Integers;
  readonly adjncy: Integers;
  readonly adjwgt: Integers;
  readonly vwgt?: Integers;
}

/** Vertex v of the algorithm runs on rank pi[v]; rank r runs vertex piInv[r]. */
export interface RankMapping {
  readonly pi: Int32Array;
  readonly piInv: Int32Array;
}

export interface PartitionOptions {
  seed?: number;
  threads?: number;
}

/**
 * The levels above the nodes, as a topology file gives them: modules[l][q] is the module of node
 * q at level l (widest first), bandwidths[l] the bytes/s of the links inside a module of level l.
 */
export interface MachineLevels {
  modules: number[][];
  bandwidths: number[];
}

/** The addon: every export, by the file of native/addon that sets it. */
export interface NativeAddon {
  // lifecycle.cc
  /** MPI_Init_thread (unless MPI is initialized) at a level of threadLevels, then the engine. */
  init(threadLevel: number): { provided: number; initializedHere: boolean };
  finalize(): void;
  /** MPI_Abort on COMM_WORLD; errorcode in [0, 255]. */
  abort(errorcode: number): void;
  state(): { initialized: boolean; finalized: boolean };
  commRank(comm: CommHandle): number;
  commSize(comm: CommHandle): number;
  processorName(): string;
  wtime(): number;
  wtick(): number;
  /** The provided level, as a value of threadLevels. */
  queryThread(): number;
  isThreadMain(): boolean;
  version(): { major: number; minor: number; libraryVersion: string };
  buildInfo(): { flavour: MpiFlavour; libraryVersion: string; mpiVersion: string; largeCount: boolean; library?: string };
  /** MPI_THREAD_* of this MPI. */
  readonly threadLevels: Readonly<Record<ThreadLevel, number>>;

  // request.cc: the engine's nonblocking collectives are slots of a table, by number (`slot`)
  /** MPI_Test of the collective in `slot`: true once complete (the slot is then free again). */
  engineTest(slot: number): boolean;
  /** Waits for the collective in `slot` to complete; the slot is then free again. */
  engineWait(slot: number): void;
  /** Between polls of awaited requests: yields the core where ranks oversubscribe this kernel (the engine's idleWhileWaiting). */
  idleWhileWaiting(): void;

  // engine_collectives.cc (sendbuf null: in place); nonblocking, they return the request's slot
  allgather: Completing<[comm: CommHandle, sendbuf: DataBuffer | null, recvbuf: DataBuffer], number>;
  alltoall: Completing<[comm: CommHandle, sendbuf: DataBuffer | null, recvbuf: DataBuffer], number>;
  bcast: Completing<[comm: CommHandle, buffer: DataBuffer, root: number], number>;
  barrier: Completing<[comm: CommHandle], number>;
  /** The reductions, through the engine; op: an index into OPS (src/mpi/ops.ts). */
  allreduce: Completing<[comm: CommHandle, sendbuf: BufferLike | null, recvbuf: BufferLike, op: number], number>;
  reduce: Completing<[comm: CommHandle, sendbuf: BufferLike | null, recvbuf: BufferLike | null, op: number, root: number], number>;
  reduceScatterBlock: Completing<[comm: CommHandle, sendbuf: BufferLike | null, recvbuf: BufferLike, op: number], number>;
  reduceScatter: Completing<[comm: CommHandle, sendbuf: BufferLike | null, recvbuf: BufferLike, recvcounts: ArrayLike<number>, op: number], number>;
  /**
   * A reduction's buffers checked as the reduction checks them (errors start with `what`), for one
   * whose op runs in JS: the elements of this rank's result. recvcounts: reduce_scatter's; root: reduce's.
   */
  reductionShape(
    collective: 'allreduce' | 'reduce' | 'reduce_scatter_block' | 'reduce_scatter',
    what: string,
    comm: CommHandle,
    sendbuf: BufferLike | null,
    recvbuf: BufferLike | null,
    recvcounts: ArrayLike<number> | undefined,
    root: number,
  ): number;

  // schedules.cc
  buildSchedule(collective: CollectiveName, algorithm: string, p: number, rank: number, options?: ScheduleParams): Schedule;
  /** The same schedule built and compiled in C++ (no op ever a JS object), with its spans. */
  buildCompiled(collective: CollectiveName, algorithm: string, p: number, rank: number, options?: ScheduleParams): CompiledSchedule;
  /** A schedule given as objects (buildSchedule's form) compiled by the engine; a RangeError names the rank, round and op of a malformed one. */
  compileSchedule(schedule: Schedule, p: number, withSpans: boolean): CompiledRank;
  /** The engine's choice under the environment's configuration (loadConfig() first). */
  selectAlgorithm(collective: CollectiveName, p: number, blockBytes: number, totalBytes: number, nodes?: number, nonblocking?: boolean): { algorithm: string; reason: string };
  /** Validates the TOPOCOLL_* environment; throws the message naming the variable. */
  loadConfig(): void;
  /** A TOPOCOLL_* parameter as the engine parsed it: a number (booleans, integers) or a string (choices, text). */
  parameter(name: string): number | string;
  registeredAlgorithms(): RegisteredAlgorithms;

  // hierarchy.cc (collective over comm on first use)
  hierarchy(comm: CommHandle, options?: { shm?: boolean }): HierarchyInfo;
  shmNamePrefix(): string;

  // topology.cc
  parseTopologyFile(path: string): Topology;
  parseTopologyText(text: string, source: string, lines?: LineMap): Topology;
  resolveTopologyFile(path: string, hosts: readonly string[]): EngineResolution;
  resolveTopologyText(text: string, source: string, lines: LineMap, hosts: readonly string[]): EngineLevels;
  /** Hands over TOPOCOLL_TOPOLOGY's file as JSON (with the line map of a YAML file) before init(). */
  installTopology(json: string, source: string, lines?: LineMap): void;
  /** Checks a rules file's JSON; the line of each rule. */
  parseRulesText(json: string, source: string, lines?: LineMap): number[];
  /** Hands over TOPOCOLL_RULES's file as JSON (with the line map of a YAML file) before loadConfig(). */
  installRules(json: string, source: string, lines?: LineMap): void;
  worldTopology(): EngineWorldTopology | null;

  // bench.cc
  /** Forces `name` (an algorithm, 'native'; null or 'auto' clears it). */
  setAlgorithm(collective: CollectiveName, name: string | null): void;
  getAlgorithm(collective: CollectiveName): string | null;
  takeFallback(collective: CollectiveName): string | null;
  benchCollective(comm: CommHandle, collective: CollectiveName, bytes: number, options?: BenchOptions): BenchResult;
  /** a's fastest half round-trip of `iterations`, in µs, on every rank. */
  pingPong(comm: CommHandle, a: number, b: number, bytes: number, iterations: number): number;
  /** Seconds one reduce op of the engine takes on `bytes` of float SUM, operands rotated over rotateBytes (this rank alone). */
  combineTime(bytes: number, rotateBytes: number, repetitions: number): number;
  /** peer -1: none. */
  pairedLink(comm: CommHandle, peer: number, bytes: number, iterations: number, burst: number): { halfRttUs: number; perMessageUs: number };

  // comm.cc
  commDup(comm: CommHandle): CommHandle;
  /** color: >= 0 or UNDEFINED; -1 when this rank joins no communicator. */
  commSplit(comm: CommHandle, color: number, key: number): CommHandle;
  commSplitShared(comm: CommHandle, key: number): CommHandle;
  commFree(comm: CommHandle): void;
  /** 0 ident, 1 congruent, 2 similar, 3 unequal. */
  commCompare(comm: CommHandle, other: CommHandle): 0 | 1 | 2 | 3;
  commErrorsReturn(comm: CommHandle): void;
  /** -1 on a rank outside the group. */
  commCreate(comm: CommHandle, group: GroupHandle): CommHandle;
  commCreateGroup(comm: CommHandle, group: GroupHandle, tag: number): CommHandle;
  commGetName(comm: CommHandle): string;
  commSetName(comm: CommHandle, name: string): void;
  commIsInter(comm: CommHandle): boolean;
  commRemoteSize(comm: CommHandle): number;
  commRemoteGroup(comm: CommHandle): GroupHandle;
  /** peerComm and remoteLeader are read at the local leader only. */
  intercommCreate(comm: CommHandle, localLeader: number, peerComm: CommHandle | null, remoteLeader: number, tag: number): CommHandle;
  intercommMerge(comm: CommHandle, high: boolean): CommHandle;

  // mpi_group.cc
  commGroup(comm: CommHandle): GroupHandle;
  groupSize(group: GroupHandle): number;
  /** UNDEFINED when this process is not a member. */
  groupRank(group: GroupHandle): number;
  /** exclude false: MPI_Group_incl; true: MPI_Group_excl. */
  groupSubset(group: GroupHandle, ranks: ArrayLike<number>, exclude: boolean): GroupHandle;
  groupTranslateRanks(group: GroupHandle, ranks: ArrayLike<number>, other: GroupHandle): number[];
  /** operation 0 union, 1 intersection, 2 difference. */
  groupCombine(group: GroupHandle, other: GroupHandle, operation: 0 | 1 | 2): GroupHandle;
  /** 0 ident, 2 similar, 3 unequal. */
  groupCompare(group: GroupHandle, other: GroupHandle): 0 | 2 | 3;
  groupFree(group: GroupHandle): void;

  // mpi_datatype.cc (each returns the new type's handle)
  typeContiguous(count: number, oldtype: Datatype): number;
  typeVector(count: number, blocklength: number, stride: number, oldtype: Datatype): number;
  typeIndexed(blocklengths: ArrayLike<number>, displacements: ArrayLike<number>, oldtype: Datatype): number;
  typeStruct(blocklengths: ArrayLike<number>, displacements: ArrayLike<number>, types: readonly Datatype[]): number;
  typeSubarray(sizes: ArrayLike<number>, subsizes: ArrayLike<number>, starts: ArrayLike<number>, order: 'C' | 'F', oldtype: Datatype): number;
  typeCommit(type: Datatype): void;
  typeFree(type: Datatype): void;
  typeInfo(type: Datatype): { size: number; lb: number; extent: number; trueLb: number; trueExtent: number; committed: boolean };

  // mpi_topology.cc (a new communicator's handle: -1 on a rank left out)
  cartCreate(comm: CommHandle, dims: ArrayLike<number>, periods: ArrayLike<boolean> | undefined, reorder: boolean): CommHandle;
  dimsCreate(nnodes: number, dims: ArrayLike<number>): number[];
  cartGet(comm: CommHandle): CartInfo;
  cartCoords(comm: CommHandle, rank: number): number[];
  cartRank(comm: CommHandle, coords: ArrayLike<number>): number;
  cartShift(comm: CommHandle, direction: number, disp: number): Shift;
  cartSub(comm: CommHandle, remainDims: ArrayLike<boolean>): CommHandle;
  distGraphCreateAdjacent(
    comm: CommHandle,
    sources: ArrayLike<number>,
    destinations: ArrayLike<number>,
    sourceWeights: ArrayLike<number> | null,
    destWeights: ArrayLike<number> | null,
    reorder: boolean,
  ): CommHandle;
  topologyKind(comm: CommHandle): TopologyKind | null;
  neighborList(comm: CommHandle): Neighbors;
  neighborAllgather: Completing<[comm: CommHandle, sendbuf: DataBuffer, recvbuf: DataBuffer], MpiRequest>;
  neighborAlltoall: Completing<[comm: CommHandle, sendbuf: DataBuffer, recvbuf: DataBuffer], MpiRequest>;

  // mpi_file.cc (offsets in etypes of the view; a closed file's handle is a TypeError)
  /** MPI_File_open; amode: FILE_MODES flags or'ed. */
  fileOpen(comm: CommHandle, path: string, amode: number, info: FileHints | undefined): FileHandle;
  fileClose(file: FileHandle): void;
  fileDelete(path: string, info: FileHints | undefined): void;
  fileGetSize(file: FileHandle): number;
  fileSetSize(file: FileHandle, size: number): void;
  fileSync(file: FileHandle): void;
  fileGetAmode(file: FileHandle): number;
  fileSetView(file: FileHandle, disp: number, etype: Datatype, filetype: Datatype, datarep: Datarep): void;
  /** collective: MPI_File_write_at_all, else MPI_File_write_at. */
  fileWriteAt(file: FileHandle, offset: number, buf: DataBuffer, collective: boolean): Status;
  fileReadAt(file: FileHandle, offset: number, buf: DataBuffer, collective: boolean): Status;
  /** At the individual file pointer. */
  fileWrite(file: FileHandle, buf: DataBuffer, collective: boolean): Status;
  fileRead(file: FileHandle, buf: DataBuffer, collective: boolean): Status;
  fileIwriteAt(file: FileHandle, offset: number, buf: DataBuffer): MpiRequest;
  fileIreadAt(file: FileHandle, offset: number, buf: DataBuffer): MpiRequest;
  /** whence 0 MPI_SEEK_SET, 1 MPI_SEEK_CUR, 2 MPI_SEEK_END. */
  fileSeek(file: FileHandle, offset: number, whence: 0 | 1 | 2): void;
  fileGetPosition(file: FileHandle): number;
  /** The MPI_MODE_* flag of each access-mode name (the values differ between MPIs). */
  readonly FILE_MODES: Readonly<Record<FileModeName, number>>;

  // mpi_win.cc (assert: the bits of src/mpi/win.ts's ASSERT_BITS; op: an index into OPS, -1 REPLACE)
  winCreate(comm: CommHandle, buffer: BufferLike, dispUnit: number, info: Record<string, string> | undefined): WinHandle;
  /** shared false: MPI_Win_allocate; true: MPI_Win_allocate_shared (comm: one node's ranks). */
  winAllocate(comm: CommHandle, bytes: number, dispUnit: number, info: Record<string, string> | undefined, shared: boolean): { handle: WinHandle; buffer: ArrayBuffer };
  winSharedQuery(win: WinHandle, rank: number): { buffer: ArrayBuffer; dispUnit: number };
  winFence(win: WinHandle, assert: number): void;
  winLock(win: WinHandle, rank: number, exclusive: boolean, assert: number): void;
  winUnlock(win: WinHandle, rank: number): void;
  winLockAll(win: WinHandle, assert: number): void;
  winUnlockAll(win: WinHandle): void;
  winSync(win: WinHandle): void;
  /** rank absent: MPI_Win_flush_all. */
  winFlush(win: WinHandle, rank?: number): void;
  winPut(win: WinHandle, origin: DataBuffer, targetRank: number, targetDisp: number): void;
  winGet(win: WinHandle, into: DataBuffer, targetRank: number, targetDisp: number): void;
  winAccumulate(win: WinHandle, origin: DataBuffer, targetRank: number, targetDisp: number, op: number): void;
  /** Detaches `views` (ArrayBuffers over the window's memory) once the window is freed. */
  winFree(win: WinHandle, views: ArrayBuffer[]): void;

  // mpi_binding.cc
  readonly MpiRequest: new () => MpiRequest;
  /** The class MPI failures are thrown as. */
  setMpiErrorClass(errorClass: typeof MpiError): void;
  /** The function every Status is made by (an object literal in JS is cheaper than N-API's sets). */
  setStatusFactory(make: (source: number, tag: number, count: number, bytes: number, cancelled: boolean, error: number) => Status): void;
  readonly ANY_SOURCE: typeof ANY_SOURCE;
  readonly ANY_TAG: typeof ANY_TAG;
  readonly PROC_NULL: typeof PROC_NULL;
  readonly UNDEFINED: typeof UNDEFINED;

  // p2p.cc
  send(comm: CommHandle, buf: DataBuffer, dest: number, tag: number, mode: SendMode): void;
  recv(comm: CommHandle, buf: DataBuffer, source: number, tag: number): Status;
  sendrecv(comm: CommHandle, sendbuf: DataBuffer, dest: number, sendtag: number, recvbuf: DataBuffer, source: number, recvtag: number): Status;
  sendrecvReplace(comm: CommHandle, buf: DataBuffer, dest: number, sendtag: number, source: number, recvtag: number): Status;
  /**
   * Starts the send in `slot` (a free one, from src/mpi/request.ts): the p2p* functions take it.
   * The requests of isend and irecv are numbers, not objects (native/addon/p2p.cc, P2pSlot).
   */
  isend(comm: CommHandle, buf: DataBuffer, dest: number, tag: number, mode: SendMode, slot: number): void;
  /** MPI_Test of the request in `slot`: true once complete. */
  p2pTest(slot: number): boolean;
  /** MPI_Wait; with `statuses`, the Status's fields into its first STATUS_FIELDS (src/mpi/status.ts). */
  p2pWait(slot: number, statuses?: Float64Array): void;
  /** The completed request's Status; a TypeError before. */
  p2pStatus(slot: number): Status;
  p2pCancel(slot: number): void;
  /** The arrays p2pTestSome reads and writes (slots, states, Statuses' fields), held by the addon until the next call. */
  p2pRound(slots: Int32Array, states: Uint8Array, statuses: Float64Array): void;
  /**
   * MPI_Testsome over the requests in the first `n` slots of the round (p2pRound) whose state is
   * 0, setting the state of each that completes to 1 and a receive's Status's fields at
   * statuses[i] (statusAt, src/mpi/status.ts); those that fail get state 2 and the first one's
   * MpiError is thrown. With spinUs > 0, polls the rest again until those from goalFrom on are
   * complete or spinUs have passed (< 0: until all are complete), idling (idleWhileWaiting) on
   * each pass once it has spun yieldAfterUs (< 0: never). How many completed.
   */
  p2pTestSome(n: number, spinUs: number, yieldAfterUs: number, goalFrom: number): number;
  /** Inactive persistent requests. */
  sendInit(comm: CommHandle, buf: DataBuffer, dest: number, tag: number, mode: SendMode): MpiRequest;
  recvInit(comm: CommHandle, buf: DataBuffer, source: number, tag: number): MpiRequest;
  /** MPI_Startall of inactive persistent requests. */
  startAll(requests: MpiRequest[]): void;
  readonly NativeMessage: new () => NativeMessage;
  mprobe(comm: CommHandle, source: number, tag: number): Matched;
  /** null when no message matches yet. */
  improbe(comm: CommHandle, source: number, tag: number): Matched | null;
  bufferAttach(buffer: BufferLike): void;
  /** Returns the size in bytes of the buffer detached. */
  bufferDetach(): number;
  readonly BSEND_OVERHEAD: number;
  /** Starts the receive in `slot`, as isend. */
  irecv(comm: CommHandle, buf: DataBuffer, source: number, tag: number, slot: number): void;
  /** count in bytes. */
  probe(comm: CommHandle, source: number, tag: number): Status;
  /** null when no message matches yet. */
  iprobe(comm: CommHandle, source: number, tag: number): Status | null;
  /**
   * The next matching message, whatever its size: its byte count when it fits in `scratch`
   * (received there), else a new Buffer holding it; `fields`, when given, gets the receive's Status
   * fields (as p2pTestSome's).
   */
  recvBytes(comm: CommHandle, source: number, tag: number, scratch: Buffer, fields?: Float64Array): number | Buffer;
  /** data() is the message once the request completes. */
  irecvBytes(comm: CommHandle, source: number, tag: number): MpiRequest;
  tagUpperBound(): number;

  // mpi_collectives.cc (sendbuf null: in place; root-only arguments may be null elsewhere;
  // counts and displs: an Array or a TypedArray, displs absent: packed in rank order)
  gather: Completing<[comm: CommHandle, sendbuf: DataBuffer | null, recvbuf: DataBuffer | null, root: number], MpiRequest>;
  gatherv: Completing<
    [comm: CommHandle, sendbuf: BufferLike | null, recvbuf: BufferLike | null, counts: ArrayLike<number> | undefined, displs: ArrayLike<number> | undefined, root: number],
    MpiRequest
  >;
  /** recvbuf null: in place at the root. */
  scatter: Completing<[comm: CommHandle, sendbuf: DataBuffer | null, recvbuf: DataBuffer | null, root: number], MpiRequest>;
  scatterv: Completing<
    [comm: CommHandle, sendbuf: BufferLike | null, counts: ArrayLike<number> | undefined, displs: ArrayLike<number> | undefined, recvbuf: BufferLike | null, root: number],
    MpiRequest
  >;
  allgatherv: Completing<[comm: CommHandle, sendbuf: BufferLike | null, recvbuf: BufferLike, counts: ArrayLike<number>, displs: ArrayLike<number> | undefined], MpiRequest>;
  alltoallv: Completing<
    [
      comm: CommHandle,
      sendbuf: BufferLike | null,
      sendcounts: ArrayLike<number> | undefined,
      sdispls: ArrayLike<number> | undefined,
      recvbuf: BufferLike,
      recvcounts: ArrayLike<number>,
      rdispls: ArrayLike<number> | undefined,
    ],
    MpiRequest
  >;
  /** op: an index into OPS (src/mpi/ops.ts). */
  scan: Completing<[comm: CommHandle, sendbuf: BufferLike | null, recvbuf: BufferLike, op: number], MpiRequest>;
  exscan: Completing<[comm: CommHandle, sendbuf: BufferLike | null, recvbuf: BufferLike, op: number], MpiRequest>;

  // model.cc
  readonly modelLayout: ModelLayout;
  /** The engine's Hockney model (TOPOCOLL_SELECT=model) for every algorithm; choice null above its size limit. */
  predictAlgorithms(
    collective: CollectiveName,
    p: number,
    options?: PredictionOptions,
  ): { choice: { algorithm: string; reason: string } | null; predictions: EnginePrediction[] };
  /** The timing model (native/engine/model/hockney.h) over the builders' schedules, built in C++. */
  simulateSchedules(collective: CollectiveName, algorithm: string, p: number, options: ScheduleParams, machine: SimulatedMachine, timing: SimulationTiming): NativeTiming;
  /** The same over compiled schedules (rank r's is ranks[r]); note is ''. */
  simulateCompiled(ranks: readonly CompiledStream[], machine: SimulatedMachine, timing: SimulationTiming): NativeTiming;
  /**
   * The same progression without timing, ready ranks in rank order: its events (hockney.h's
   * ReplayEvent records) go to onEvents in chunks; returns null, or the deadlock or size
   * mismatch that stopped it. For the symbolic replay (src/model/replay.ts).
   */
  replayEvents(ranks: readonly CompiledStream[], onEvents: (records: Int32Array) => void): string | null;

  // mapping.cc
  informationGraph(collective: CollectiveName, algorithm: string, p: number, options?: { blockBytes?: number; count?: number; root?: number }): InformationGraph;
  /** The part of every vertex. */
  partitionGraph(graph: GraphInput, partSizes: Integers, options?: PartitionOptions): Int32Array;
  /** Bytes on edges between parts. */
  cutWeight(graph: GraphInput, part: Integers): number;
  rankMapping(graph: GraphInput, nodeOfRank: Integers, options?: PartitionOptions): RankMapping;
  allgatherRankMapping(algorithm: string, nodeOfRank: Integers, machine?: MachineLevels): RankMapping & { base: string };
  machineCost(graph: GraphInput, nodeOfVertex: Integers, machine: MachineLevels): number;
  /** The pi the engine caches for comm (collective on first use). */
  commRankMapping(
    comm: CommHandle,
    algorithm: string,
  ): RankMapping & { base: string; nodes: Int32Array; machineLevels: boolean; milliseconds: number };
}
