// Symbolic replay: runs the schedules of all p ranks without MPI, tracking which symbolic block
// every buffer slot of every rank holds, and checks the end state against the collective's
// definition. This is how every schedule builder is proven correct for many p (design §2).
//
// Symbols, per unit (a block is unitsPerBlock units): allgather, the origin rank of a block;
// alltoall, origin x p + index (send block j of rank o); bcast, the element index; each times
// unitsPerBlock plus the unit. Barrier has no data and is checked for happens-before instead:
// every rank must have heard, through a chain of messages or flags, from every other rank
// before it can finish. Reductions (a block is one element): a symbol names a term, an element
// index combined from a set of ranks' operands (ReductionTerms); a combination of terms that
// share a rank is an error, and the result must combine every rank's operand once, in rank order
// where the algorithm claims it (the registry's rankOrdered).
//
// The node's shared data area (buffer `shm`) is one buffer for all ranks of a node, so its
// accesses race unless ordered. With vector clocks over messages and flags the replay checks
// that every read of the area comes after the write it reads, and every write after the reads
// and writes it replaces: a missing flag is an error even if this replay's order happened to
// work.
//
// The progression (which send meets which receive, when a flag wait passes, when a round ends)
// is the timing model's own, in C++ (native/engine/model/hockney.h's replayEvents): this file
// follows the blocks through the events it reports. The schedules are the engine's compact form
// (hockney.h's compact, through the addon: compileSchedule for schedules given as objects,
// buildCompiled for the builders'), its codes and the records' kinds read from the addon.
import type { CompiledRank, CompiledSchedule, ModelLayout } from '../mpi/addon';
import { addon } from '../mpi/native';
import { collectiveInfo, isReduction, shapeOf, type CollectiveName } from '../select/registry';
import type { Schedule } from '../select/schedule';
import { MessageLog } from './messages';

/** A schedule that cannot run, located by rank and round where known. */
export class ScheduleError extends Error {
  constructor(
    message: string,
    readonly rank?: number,
    readonly round?: number,
  ) {
    super(message);
    this.name = 'ScheduleError';
  }
}

/** A rank's schedule as objects, or compiled by the engine (the addon's buildCompiled). */
export type GivenSchedule = Schedule | CompiledSchedule;

/** Schedules of ranks 0..p-1, built on demand or given up front. */
export type ScheduleSource = ((rank: number) => GivenSchedule) | readonly GivenSchedule[];

/**
 * A schedule in the engine's compact form: compiled already, or compiled by the addon (with the
 * ops' spans when `withSpans`). A malformed one is a ScheduleError naming its rank, round and op.
 */
export function compiledRank(schedule: GivenSchedule, p: number, withSpans: boolean): CompiledRank {
  if ('stream' in schedule) return schedule;
  try {
    return addon().compileSchedule(schedule, p, withSpans);
  } catch (err) {
    if (err instanceof RangeError) throw new ScheduleError(err.message);
    throw err;
  }
}

export interface VerifyParams {
  /** bcast, reductions: elements in the vector (reduce_scatter_block: in one rank's part; default: the schedules' `count`). */
  count?: number;
  /** bcast, reduce root (default: the schedules' `root`). */
  root?: number;
  /** allgather/alltoall, reductions: MPI_IN_PLACE (default: the schedules' `inPlace`). */
  inPlace?: boolean;
  /** reduce_scatter: the elements of every rank's part (required). */
  recvCounts?: readonly number[];
  /** Reductions: the result must combine the operands in rank order (the algorithm claims it). */
  rankOrdered?: boolean;
  /** The node of every rank, as given to the builder; default: all on one node. */
  nodes?: readonly number[];
  /** Elements the node's shared data area holds (as given to the builder); default: unbounded. */
  shmElements?: number;
}

export interface VerifyResult {
  ok: boolean;
  error?: string;
  /** Every matched message, in matching order; bytes = units x block bytes / unitsPerBlock. */
  messages: MessageLog;
  /** The longest schedule, in rounds. */
  rounds: number;
}

const EMPTY = -1;

/**
 * The compact form's buffers and codes and the kinds of replayEvents' records, as the engine
 * defines them (hockney.h, the addon's modelLayout). Records: [roundStart, rank], [match, src,
 * send slot, dst, recv slot], [signal, rank] (the n-th is signal n), [flagPass, rank, wait slot,
 * signal], [roundEnd, rank]. A receive's code is -1 - peer.
 */
class Codes {
  readonly names: readonly string[];
  readonly events: ModelLayout['events'];
  readonly send: number;
  readonly recv: number;
  readonly tmp: number;
  readonly shm: number;

  constructor(readonly layout: ModelLayout) {
    this.names = layout.buffers;
    this.events = layout.events;
    [this.send, this.recv, this.tmp, this.shm] = ['send', 'recv', 'tmp', 'shm'].map((name) => layout.buffers.indexOf(name));
  }

  /** Copies and reduce ops: local ops with a source and a destination span. */
  isLocal(code: number): boolean {
    return code === this.layout.copyCode || code === this.layout.reduceCode;
  }
}

let engineCodes: Codes | undefined;
const codesOf = (): Codes => (engineCodes ??= new Codes(addon().modelLayout));
/** Vector clocks take p x p entries: checked up to this size. */
const MAX_CLOCKED_RANKS = 4096;

export function scheduleOf(source: ScheduleSource, rank: number): GivenSchedule {
  return typeof source === 'function' ? source(rank) : source[rank];
}

interface Layout {
  sendBlocks: number;
  recvBlocks: number;
}

/** Where a span's units live: the rank's own slots or its node's shared area. */
interface Place {
  array: Float64Array;
  at: number;
}

/** Buffer sizes, in blocks, that the collective's definition gives rank r (the engine's bindings). */
function layoutOf(coll: CollectiveName, p: number, r: number, params: Expected): Layout {
  const { count, inPlace, root } = params;
  switch (coll) {
    case 'allgather':
      return { sendBlocks: inPlace ? 0 : 1, recvBlocks: p };
    case 'alltoall':
      return { sendBlocks: inPlace ? 0 : p, recvBlocks: p };
    case 'bcast':
      return { sendBlocks: 0, recvBlocks: count };
    case 'barrier':
      return { sendBlocks: 0, recvBlocks: 0 };
    case 'allreduce':
      return { sendBlocks: inPlace ? 0 : count, recvBlocks: count };
    case 'reduce':
      // In place only at the root; the receive buffer exists at the root only.
      return { sendBlocks: inPlace && r === root ? 0 : count, recvBlocks: r === root ? count : 0 };
    case 'reduce_scatter_block':
      return { sendBlocks: inPlace ? 0 : p * count, recvBlocks: inPlace ? p * count : count };
    case 'reduce_scatter': {
      const total = params.recvCounts.reduce((a, b) => a + b, 0);
      return { sendBlocks: inPlace ? 0 : total, recvBlocks: inPlace ? total : params.recvCounts[r] };
    }
  }
}

/**
 * Replays the schedules of a p-rank collective and checks the result. Never throws for a bad
 * schedule: `ok` is false and `error` says which rank, round and block went wrong.
 */
export function verifyCollective(coll: CollectiveName, p: number, source: ScheduleSource, params: VerifyParams = {}): VerifyResult {
  const messages = new MessageLog();
  let rounds = 0;
  try {
    if (!Number.isInteger(p) || p < 1) throw new ScheduleError(`communicator size must be a positive integer, got ${p}`);
    if (params.nodes && params.nodes.length !== p) throw new ScheduleError(`nodes lists ${params.nodes.length} ranks, not ${p}`);
    const ranks: CompiledRank[] = [];
    let expect: Expected | undefined;
    for (let r = 0; r < p; r++) {
      const s = scheduleOf(source, r);
      if (!s) throw new ScheduleError(`no schedule for rank ${r}`, r);
      expect ??= {
        count: params.count ?? s.count,
        root: params.root ?? s.root,
        inPlace: params.inPlace ?? s.inPlace,
        unitsPerBlock: s.unitsPerBlock ?? 1,
        nodes: params.nodes ?? new Array<number>(p).fill(0),
        shmElements: params.shmElements ?? Infinity,
        recvCounts: params.recvCounts ?? [],
        rankOrdered: params.rankOrdered ?? false,
      };
      checkHeader(s, coll, p, r, expect);
      const compiled = compiledRank(s, p, true);
      ranks.push(compiled);
      rounds = Math.max(rounds, compiled.rounds);
    }
    const replay = new SymbolicReplay(coll, p, ranks, expect!, messages);
    // A deadlock or a size mismatch ends the replay; what went wrong before it is reported first.
    const stopped = addon().replayEvents(ranks, (events) => replay.follow(events));
    if (stopped !== null) throw new ScheduleError(stopped);
    replay.checkFinalState();
    return { ok: true, messages, rounds };
  } catch (err) {
    if (!(err instanceof ScheduleError)) throw err;
    return { ok: false, error: err.message, messages, rounds };
  }
}

type Expected = Required<VerifyParams> & { unitsPerBlock: number };

function checkHeader(s: GivenSchedule, coll: CollectiveName, p: number, r: number, expect: Expected): void {
  const bad = (what: string) => new ScheduleError(`rank ${r}: schedule ${what}`, r);
  if (s.collective !== coll) throw bad(`is for ${s.collective}, not ${coll}`);
  if (s.p !== p || s.rank !== r) throw bad(`was built for rank ${s.rank} of ${s.p}`);
  if (!Number.isInteger(s.tmpBlocks) || s.tmpBlocks < 0) throw bad(`has tmpBlocks ${s.tmpBlocks}`);
  if (collectiveInfo(coll)!.rooted) {
    if (s.root !== expect.root) throw bad(`has root ${s.root}, expected ${expect.root}`);
    if (!Number.isInteger(expect.root) || expect.root < 0 || expect.root >= p) throw bad(`root ${expect.root} is not a rank`);
  }
  if ((shapeOf(coll) === 'vector' || isReduction(coll)) && s.count !== expect.count) throw bad(`has count ${s.count}, expected ${expect.count}`);
  if (collectiveInfo(coll)!.blocks.send !== 0 && s.inPlace !== expect.inPlace) {
    throw bad(`has inPlace ${s.inPlace}, expected ${expect.inPlace}`);
  }
  if (isReduction(coll) && (s.unitsPerBlock ?? 1) !== 1) throw bad(`cuts elements into ${s.unitsPerBlock} units: a reduction's block is one element`);
  if (coll === 'reduce_scatter') {
    const counts = expect.recvCounts;
    if (counts.length !== p || counts.some((c) => !Number.isInteger(c) || c < 0)) throw bad(`needs recvCounts of ${p} whole numbers, got [${counts.join(', ')}]`);
    if (s.count !== counts.reduce((a, b) => a + b, 0)) throw bad(`has count ${s.count}, not the sum of recvCounts`);
  }
  if ((s.unitsPerBlock ?? 1) !== expect.unitsPerBlock) throw bad(`has unitsPerBlock ${s.unitsPerBlock}, expected ${expect.unitsPerBlock}`);
}

class SymbolicReplay {
  private readonly codes = codesOf();
  /** Per rank: send and recv units. */
  private readonly sendUnits: Int32Array;
  private readonly recvUnits: Int32Array;
  private readonly unit: number;
  /** Reductions: what the symbols name. */
  private readonly terms?: ReductionTerms;
  /** Per rank: send, recv and tmp units, in that order, holding symbols. */
  private readonly slots: Float64Array[];
  private readonly bufBase: Int32Array[];
  /** The node's shared area: symbols, and who last wrote and read each unit when (for races). */
  private readonly node: Int32Array;
  private readonly localIndex: Int32Array;
  private readonly shm: ShmArea[] = [];
  /** Scratch for the per-round overlap check: unit -> epoch of the last write claim. */
  private readonly claims: Int32Array;
  private epoch = 0;
  /**
   * Vector clocks (p x p), kept for barriers and for schedules that use the shared area or
   * flags. Rank r's round i starts at event 2i + 1 and ends (copies done) at 2i + 2. `posted`
   * is what r knew when it posted the round (what its sends carry), `known` what it knows now.
   */
  private readonly clocked: boolean;
  private readonly posted?: Int32Array;
  private readonly known?: Int32Array;
  /** Clocks carried by flag signals, by signal number. */
  private readonly signalled: Int32Array[] = [];
  /** Per rank: the slot of its current round's header, and the round's number. */
  private readonly header: Int32Array;
  private readonly round: Int32Array;

  constructor(
    private readonly coll: CollectiveName,
    private readonly p: number,
    private readonly ranks: readonly CompiledRank[],
    private readonly params: Expected,
    private readonly messages: MessageLog,
  ) {
    this.unit = params.unitsPerBlock;
    this.header = new Int32Array(p);
    this.round = new Int32Array(p);
    this.sendUnits = new Int32Array(p);
    this.recvUnits = new Int32Array(p);
    for (let r = 0; r < p; r++) {
      const blocks = layoutOf(coll, p, r, params);
      this.sendUnits[r] = blocks.sendBlocks * this.unit;
      this.recvUnits[r] = blocks.recvBlocks * this.unit;
    }
    if (isReduction(coll)) this.terms = new ReductionTerms(p);

    this.node = Int32Array.from(params.nodes);
    this.localIndex = new Int32Array(p);
    const nodeSize = new Map<number, number>();
    for (let r = 0; r < p; r++) {
      const n = this.node[r];
      if (!Number.isInteger(n) || n < 0) throw new ScheduleError(`nodes: rank ${r} is on node ${params.nodes[r]}`);
      this.localIndex[r] = nodeSize.get(n) ?? 0;
      nodeSize.set(n, this.localIndex[r] + 1);
    }

    let usesShm = false;
    let shmUnits = 0;
    for (const rank of ranks) {
      const { shm, span } = this.checkOps(rank, nodeSize);
      usesShm ||= shm || rank.flags !== undefined;
      shmUnits = Math.max(shmUnits, span);
    }
    for (const [n, size] of nodeSize) this.shm[n] = new ShmArea(shmUnits, size);

    this.slots = [];
    this.bufBase = [];
    let maxSlots = 0;
    for (const rank of ranks) {
      const sendUnits = this.sendUnits[rank.rank], recvUnits = this.recvUnits[rank.rank];
      const tmpUnits = rank.tmpBlocks * this.unit;
      maxSlots = Math.max(maxSlots, sendUnits + recvUnits + tmpUnits);
      this.slots.push(new Float64Array(sendUnits + recvUnits + tmpUnits).fill(EMPTY));
      const base = new Int32Array(this.codes.names.length);
      base[this.codes.recv] = sendUnits;
      base[this.codes.tmp] = sendUnits + recvUnits;
      this.bufBase.push(base);
    }
    this.claims = new Int32Array(maxSlots + shmUnits);

    this.clocked = shapeOf(coll) === 'none' || usesShm;
    if (this.clocked) {
      if (p > MAX_CLOCKED_RANKS) throw new ScheduleError(`ordering checks (barriers, shared memory) support at most ${MAX_CLOCKED_RANKS} ranks`);
      this.posted = new Int32Array(p * p);
      this.known = new Int32Array(p * p);
    }
    this.seedInitialState();
  }

  private seedInitialState(): void {
    const { p, params, unit, codes } = this;
    const fill = (slots: Float64Array, at: number, symbol: number) => {
      for (let u = 0; u < unit; u++) slots[at + u] = symbol * unit + u;
    };
    for (let r = 0; r < p; r++) {
      const slots = this.slots[r];
      const base = this.bufBase[r];
      switch (this.coll) {
        case 'allgather':
          fill(slots, params.inPlace ? base[codes.recv] + r * unit : base[codes.send], r);
          break;
        case 'alltoall': {
          const at = base[params.inPlace ? codes.recv : codes.send];
          for (let j = 0; j < p; j++) fill(slots, at + j * unit, r * p + j);
          break;
        }
        case 'bcast':
          if (r === params.root) for (let e = 0; e < params.count; e++) fill(slots, base[codes.recv] + e * unit, e);
          break;
        case 'barrier':
          break;
        default: {
          // Reductions: rank r's operand, where the engine binds it.
          const at = this.sendUnits[r] > 0 ? base[codes.send] : base[codes.recv];
          const n = this.sendUnits[r] > 0 ? this.sendUnits[r] : this.recvUnits[r];
          for (let e = 0; e < n; e++) slots[at + e] = this.terms!.leaf(r, e);
        }
      }
    }
  }

  private bufferSize(rank: CompiledRank, buf: number): number {
    if (buf === this.codes.send) return this.sendUnits[rank.rank];
    if (buf === this.codes.recv) return this.recvUnits[rank.rank];
    if (buf === this.codes.shm) return this.shmCapacity();
    return rank.tmpBlocks * this.unit;
  }

  /** Units of the shared area: shmElements elements, of count per block (bcast, reductions: one). */
  private shmCapacity(): number {
    const { shmElements, count } = this.params;
    if (shmElements === Infinity) return Infinity;
    const elementsPerBlock = shapeOf(this.coll) === 'vector' ? 1 : count;
    return elementsPerBlock === 0 ? 0 : Math.floor((shmElements * this.unit) / elementsPerBlock);
  }

  /**
   * Every span must lie inside its buffer (the collective's definition fixes send and recv);
   * flags and the shared area belong to the rank's node. Returns whether the rank touches the
   * shared area and how far.
   */
  private checkOps(rank: CompiledRank, nodeSize: Map<number, number>): { shm: boolean; span: number } {
    const spans = rank.spans!;
    const r = rank.rank;
    const { names, layout } = this.codes;
    let shm = false;
    let span = 0;
    const check = (round: number, slot: number, buf: number, first: number) => {
      const size = this.bufferSize(rank, buf);
      const count = rank.stream[2 * slot + 1];
      if (first + count > size) {
        throw new ScheduleError(
          `rank ${r} round ${round}: span ${names[buf]}[${first}..${first + count}) exceeds the ${size}-unit ${names[buf]} buffer`,
          r,
          round,
        );
      }
      if (buf === this.codes.shm) {
        if (nodeSize.get(this.node[r])! < 2) {
          throw new ScheduleError(`rank ${r} round ${round}: uses the shared data area but is alone on node ${this.node[r]}`, r, round);
        }
        shm = true;
        span = Math.max(span, first + count);
      }
    };
    for (let round = 0, header = 0; round < rank.rounds; round++) {
      const first = header + 1;
      const end = first + rank.stream[2 * header];
      header = end;
      for (let s = first; s < end; s++) {
        const code = rank.stream[2 * s];
        if (code === layout.signalCode || code === layout.waitCode) {
          const owner = rank.stream[2 * s + 1];
          if (this.node[owner] !== this.node[r]) {
            throw new ScheduleError(`rank ${r} round ${round}: flag of rank ${owner}, which is on node ${this.node[owner]}, not ${this.node[r]}`, r, round);
          }
          continue;
        }
        if (code >= 0 || this.codes.isLocal(code)) check(round, s, spans.srcBuf[s], spans.srcFirst[s]);
        if (code < 0) check(round, s, spans.dstBuf[s], spans.dstFirst[s]);
      }
    }
    return { shm, span };
  }

  private place(r: number, buf: number, first: number): Place {
    if (buf === this.codes.shm) return { array: this.shm[this.node[r]].symbols, at: first };
    return { array: this.slots[r], at: this.bufBase[r][buf] + first };
  }

  /** The claims scratch index of a unit: the rank's slots, then its node's shared area. */
  private claimIndex(r: number, buf: number, first: number): number {
    return buf === this.codes.shm ? this.slots[r].length + first : this.bufBase[r][buf] + first;
  }

  /** Applies a chunk of replayEvents' records, in order. */
  follow(events: Int32Array): void {
    const { events: kinds, layout } = this.codes;
    for (let i = 0; i < events.length; i += layout.eventWords[events[i]]) {
      const kind = events[i];
      const rank = events[i + 1];
      if (kind === kinds.roundStart) this.startRound(rank);
      else if (kind === kinds.match) this.match(rank, events[i + 2], events[i + 3], events[i + 4]);
      else if (kind === kinds.signal) this.flagSignal(rank);
      else if (kind === kinds.flagPass) this.flagPassed(rank, events[i + 3]);
      else if (kind === kinds.roundEnd) this.endRound(rank);
      else throw new Error(`replayEvents: unknown record kind ${kind} at word ${i}`);
    }
  }

  /** The op slots [first, end) of rank r's current round. */
  private roundSlots(r: number): [first: number, end: number] {
    const first = this.header[r] + 1;
    return [first, first + this.ranks[r].stream[2 * this.header[r]]];
  }

  /**
   * A round's receives write while its sends read: two receives into one unit, or a receive
   * into a unit a send of the same round reads, is a race in the executor.
   */
  private startRound(r: number): void {
    const round = this.round[r];
    const [first, end] = this.roundSlots(r);
    const { stream, spans } = this.ranks[r];
    const { srcBuf, srcFirst, dstBuf, dstFirst } = spans!;
    const claims = this.claims;
    const epoch = ++this.epoch;
    // Receives: -1 - peer.
    for (let s = first; s < end; s++) {
      if (!(stream[2 * s] < 0 && stream[2 * s] >= -this.p)) continue;
      const at = this.claimIndex(r, dstBuf[s], dstFirst[s]);
      for (let u = 0; u < stream[2 * s + 1]; u++) {
        if (claims[at + u] === epoch) throw this.race(r, round, 'two receives write', dstBuf[s], dstFirst[s] + u);
        claims[at + u] = epoch;
      }
    }
    for (let s = first; s < end; s++) {
      if (stream[2 * s] < 0) continue;
      const at = this.claimIndex(r, srcBuf[s], srcFirst[s]);
      for (let u = 0; u < stream[2 * s + 1]; u++) {
        if (claims[at + u] === epoch) throw this.race(r, round, 'a send reads what a receive writes in', srcBuf[s], srcFirst[s] + u);
      }
    }
    if (!this.clocked) return;
    const p = this.p;
    this.known![r * p + r] = 2 * round + 1;
    this.posted!.set(this.known!.subarray(r * p, (r + 1) * p), r * p);
    for (let s = first; s < end; s++) {
      if (stream[2 * s] >= 0 && srcBuf[s] === this.codes.shm) this.shmRead(r, round, srcFirst[s], stream[2 * s + 1], this.posted!);
    }
  }

  private race(r: number, round: number, what: string, buf: number, unit: number): ScheduleError {
    return new ScheduleError(`rank ${r} round ${round}: ${what} ${this.codes.names[buf]}[${unit}] in the same round`, r, round);
  }

  // Sends complete only when matched (MPI_Ssend), so the sender is still in the round that posted
  // the send and its buffer still holds what it held at posting time.
  private match(src: number, sendSlot: number, dst: number, recvSlot: number): void {
    const srcRound = this.round[src];
    const count = this.ranks[src].stream[2 * sendSlot + 1];
    const sendSpans = this.ranks[src].spans!;
    const recvSpans = this.ranks[dst].spans!;
    const from = this.place(src, sendSpans.srcBuf[sendSlot], sendSpans.srcFirst[sendSlot]);
    const to = this.place(dst, recvSpans.dstBuf[recvSlot], recvSpans.dstFirst[recvSlot]);
    copyUnits(from, to, count);
    this.messages.push(srcRound, src, dst, count);
    if (!this.clocked) return;
    this.join(this.known!, dst, this.posted!, src * this.p);
    if (recvSpans.dstBuf[recvSlot] === this.codes.shm) this.shmWrite(dst, this.round[dst], recvSpans.dstFirst[recvSlot], count, this.posted!);
  }

  private flagPassed(r: number, signal: number): void {
    this.join(this.known!, r, this.signalled[signal], 0);
  }

  /** The round's sends, receives and flag waits are done: its copies and reductions run. */
  private endRound(r: number): void {
    const round = this.round[r];
    const [first, end] = this.roundSlots(r);
    this.header[r] = end;
    this.round[r]++;
    const { stream, spans } = this.ranks[r];
    const { srcBuf, srcFirst, dstBuf, dstFirst } = spans!;
    if (this.clocked) this.known![r * this.p + r] = 2 * round + 2;
    for (let s = first; s < end; s++) {
      const code = stream[2 * s];
      if (!this.codes.isLocal(code)) continue;
      const count = stream[2 * s + 1];
      if (this.clocked) {
        if (srcBuf[s] === this.codes.shm) this.shmRead(r, round, srcFirst[s], count, this.known!);
        if (dstBuf[s] === this.codes.shm) this.shmWrite(r, round, dstFirst[s], count, this.known!);
      }
      const from = this.place(r, srcBuf[s], srcFirst[s]);
      const to = this.place(r, dstBuf[s], dstFirst[s]);
      if (code === this.codes.layout.reduceCode) this.reduceUnits(r, round, from, to, count, spans!.dstFirstOrder[s] === 1);
      else copyUnits(from, to, count);
    }
  }

  /** A reduce op: to[i] = from[i] op to[i] (or to[i] op from[i]), as terms. */
  private reduceUnits(r: number, round: number, from: Place, to: Place, count: number, dstFirst: boolean): void {
    const terms = this.terms;
    if (!terms) throw new ScheduleError(`rank ${r} round ${round}: a reduce op in a ${this.coll} schedule`, r, round);
    if (from.array === to.array && from.at < to.at + count && to.at < from.at + count) {
      throw new ScheduleError(`rank ${r} round ${round}: a reduce op's source and destination overlap`, r, round);
    }
    for (let i = 0; i < count; i++) {
      const a = from.array[from.at + i];
      const b = to.array[to.at + i];
      const problem = a === EMPTY || b === EMPTY ? 'combines a unit that holds nothing' : undefined;
      if (problem) throw new ScheduleError(`rank ${r} round ${round}: ${problem}`, r, round);
      to.array[to.at + i] = dstFirst ? terms.combine(b, a, r, round) : terms.combine(a, b, r, round);
    }
  }

  /** A signal carries everything the rank knows once its round's copies are done. */
  private flagSignal(r: number): void {
    this.signalled.push(this.known!.slice(r * this.p, (r + 1) * this.p));
  }

  private join(into: Int32Array, r: number, from: Int32Array, fromAt: number): void {
    const at = r * this.p;
    for (let q = 0; q < this.p; q++) if (from[fromAt + q] > into[at + q]) into[at + q] = from[fromAt + q];
  }

  /** Does `clock` (row r) know event `event` of rank q? */
  private knows(clock: Int32Array, r: number, q: number, event: number): boolean {
    return q === r || clock[r * this.p + q] >= event;
  }

  // A read lasts until the round ends (MPI may read a send buffer until completion), so it
  // is recorded at the round's end event; so is a write, for the same reason.
  private shmRead(r: number, round: number, first: number, count: number, clock: Int32Array): void {
    const area = this.shm[this.node[r]];
    const me = this.localIndex[r];
    for (let u = first; u < first + count; u++) {
      const w = area.writer[u];
      if (w >= 0 && !this.knows(clock, r, w, area.writeEvent[u])) {
        throw this.shmRace(r, round, `reads shm[${u}], which rank ${w} writes in round ${(area.writeEvent[u] >> 1) - 1}`);
      }
      area.readEvent[u * area.nodeSize + me] = 2 * round + 2;
    }
  }

  private shmWrite(r: number, round: number, first: number, count: number, clock: Int32Array): void {
    const area = this.shm[this.node[r]];
    const members = this.membersOf(this.node[r]);
    for (let u = first; u < first + count; u++) {
      const w = area.writer[u];
      if (w >= 0 && !this.knows(clock, r, w, area.writeEvent[u])) {
        throw this.shmRace(r, round, `writes shm[${u}], which rank ${w} writes in round ${(area.writeEvent[u] >> 1) - 1}`);
      }
      for (let i = 0; i < area.nodeSize; i++) {
        const event = area.readEvent[u * area.nodeSize + i];
        const q = members[i];
        if (event > 0 && !this.knows(clock, r, q, event)) {
          throw this.shmRace(r, round, `writes shm[${u}], which rank ${q} reads in round ${(event >> 1) - 1}`);
        }
        area.readEvent[u * area.nodeSize + i] = 0;
      }
      area.writer[u] = r;
      area.writeEvent[u] = 2 * round + 2;
    }
  }

  private readonly members = new Map<number, number[]>();

  private membersOf(node: number): number[] {
    let m = this.members.get(node);
    if (!m) {
      m = [];
      for (let r = 0; r < this.p; r++) if (this.node[r] === node) m.push(r);
      this.members.set(node, m);
    }
    return m;
  }

  private shmRace(r: number, round: number, what: string): ScheduleError {
    return new ScheduleError(`shared-memory race on node ${this.node[r]}: rank ${r} round ${round} ${what}, and no flag or message orders the two`, r, round);
  }

  checkFinalState(): void {
    const { p, coll, unit } = this;
    if (shapeOf(coll) === 'none') {
      for (let r = 0; r < p; r++) {
        for (let q = 0; q < p; q++) {
          if (q !== r && this.known![r * p + q] < 1) {
            throw new ScheduleError(`barrier: rank ${r} can finish before rank ${q} has started (no chain of messages or flags from ${q} to ${r})`, r);
          }
        }
      }
      return;
    }
    if (this.terms) {
      this.checkReduction();
      return;
    }
    for (let r = 0; r < p; r++) {
      const n = this.recvUnits[r];
      const slots = this.slots[r];
      const recv = this.bufBase[r][this.codes.recv];
      for (let i = 0; i < n; i++) {
        const block = Math.floor(i / unit);
        const want = (coll === 'alltoall' ? block * p + r : block) * unit + (i % unit);
        const got = slots[recv + i];
        if (got !== want) {
          const where = unit === 1 ? `recv[${i}]` : `recv unit ${i} (block ${block})`;
          throw new ScheduleError(`final state: rank ${r} ${where} holds ${this.describe(got)}, expected ${this.describe(want)}`, r);
        }
      }
    }
  }

  /** Every element of the result combines every rank's operand of that element once (in rank order if claimed). */
  private checkReduction(): void {
    const { p, coll, params } = this;
    const terms = this.terms!;
    for (let r = 0; r < p; r++) {
      // The result's elements on this rank: the whole vector, or the rank's part of it.
      let first = 0;
      let n = this.recvUnits[r];
      if (coll === 'reduce' && r !== params.root) n = 0;
      if (coll === 'reduce_scatter_block') [first, n] = [r * params.count, params.count];
      if (coll === 'reduce_scatter') {
        for (let q = 0; q < r; q++) first += params.recvCounts[q];
        n = params.recvCounts[r];
      }
      const slots = this.slots[r];
      const recv = this.bufBase[r][this.codes.recv];
      for (let i = 0; i < n; i++) {
        const got = slots[recv + i];
        const problem = terms.incomplete(got, first + i, params.rankOrdered);
        if (problem) throw new ScheduleError(`final state: rank ${r} recv[${i}] ${problem}`, r);
      }
    }
  }

  private describe(symbol: number): string {
    if (symbol === EMPTY) return 'nothing';
    const { unit, p } = this;
    const block = Math.floor(symbol / unit);
    const part = unit === 1 ? '' : ` (unit ${symbol % unit})`;
    switch (this.coll) {
      case 'allgather':
        return `the block of rank ${block}${part}`;
      case 'alltoall':
        return `block ${block % p} of rank ${Math.floor(block / p)}${part}`;
      default:
        return `element ${block}${part}`;
    }
  }
}

/** A node's shared data area: symbols, and per unit its last write and the reads since. */
class ShmArea {
  readonly symbols: Float64Array;
  readonly writer: Int32Array;
  readonly writeEvent: Int32Array;
  /** unit x nodeSize: the event of each node member's last read since the last write, 0 none. */
  readonly readEvent: Int32Array;

  constructor(
    units: number,
    readonly nodeSize: number,
  ) {
    this.symbols = new Float64Array(units).fill(EMPTY);
    this.writer = new Int32Array(units).fill(-1);
    this.writeEvent = new Int32Array(units);
    this.readEvent = new Int32Array(units * nodeSize);
  }
}

/** Moves `count` symbols; copyWithin when source and destination share an array (overlap). */
function copyUnits(from: Place, to: Place, count: number): void {
  if (from.array === to.array) {
    to.array.copyWithin(to.at, from.at, from.at + count);
  } else if (count <= 16) {
    // Most messages are a few units: a loop beats allocating a subarray view per message.
    for (let i = 0; i < count; i++) to.array[to.at + i] = from.array[from.at + i];
  } else {
    to.array.set(from.array.subarray(from.at, from.at + count), to.at);
  }
}

/**
 * The terms of a symbolic reduction: an element index and the set of ranks whose operands it
 * combines; `lo`..`hi` when it is their combination in rank order (lo op ... op hi), else -1.
 * Rank sets are bitsets of ceil(p / 32) words in one growing arena.
 */
class ReductionTerms {
  private element = new Int32Array(1024);
  private lo = new Int32Array(1024);
  private hi = new Int32Array(1024);
  private bits: Uint32Array;
  private size = 0;
  private readonly words: number;

  constructor(private readonly p: number) {
    this.words = Math.ceil(p / 32);
    this.bits = new Uint32Array(1024 * this.words);
  }

  /** Rank r's operand of element e. */
  leaf(r: number, e: number): number {
    const t = this.add(e, r, r);
    this.bits[t * this.words + (r >> 5)] |= 1 << (r & 31);
    return t;
  }

  /** left op right; throws when they are different elements or share a rank. */
  combine(left: number, right: number, r: number, round: number): number {
    const fail = (what: string) => new ScheduleError(`rank ${r} round ${round}: combines ${this.describe(left)} with ${this.describe(right)}: ${what}`, r, round);
    if (this.element[left] !== this.element[right]) throw fail('different elements');
    const { words } = this;
    for (let w = 0; w < words; w++) {
      if (this.bits[left * words + w] & this.bits[right * words + w]) throw fail('a rank\'s operand twice');
    }
    const ordered = this.lo[left] >= 0 && this.lo[right] >= 0 && this.hi[left] + 1 === this.lo[right];
    const t = this.add(this.element[left], ordered ? this.lo[left] : -1, ordered ? this.hi[right] : -1);
    for (let w = 0; w < words; w++) this.bits[t * words + w] = this.bits[left * words + w] | this.bits[right * words + w];
    return t;
  }

  /** Why `term` is not element e of the full reduction (in rank order if `ordered`), or undefined. */
  incomplete(term: number, e: number, ordered: boolean): string | undefined {
    if (term === EMPTY) return `holds nothing, expected element ${e} of the reduction`;
    if (this.element[term] !== e) return `holds ${this.describe(term)}, expected element ${e}`;
    let count = 0;
    for (let w = 0; w < this.words; w++) count += popcount(this.bits[term * this.words + w]);
    if (count !== this.p) return `holds ${this.describe(term)}: ${this.p - count} of ${this.p} operands missing`;
    if (ordered && !(this.lo[term] === 0 && this.hi[term] === this.p - 1)) return `holds ${this.describe(term)}: not combined in rank order`;
    return undefined;
  }

  describe(term: number): string {
    const ranks: number[] = [];
    for (let q = 0; q < this.p && ranks.length <= 8; q++) if (this.bits[term * this.words + (q >> 5)] & (1 << (q & 31))) ranks.push(q);
    const set = ranks.length > 8 ? `${ranks.slice(0, 8).join(',')},...` : ranks.join(',');
    const order = this.lo[term] >= 0 ? ` in order ${this.lo[term]}..${this.hi[term]}` : '';
    return `element ${this.element[term]} of ranks {${set}}${order}`;
  }

  private add(e: number, lo: number, hi: number): number {
    if (this.size === this.element.length) {
      const grow = <T extends Int32Array | Uint32Array>(a: T, n: number): T => {
        const b = new (a.constructor as new (n: number) => T)(n);
        b.set(a);
        return b;
      };
      const n = 2 * this.size;
      this.element = grow(this.element, n);
      this.lo = grow(this.lo, n);
      this.hi = grow(this.hi, n);
      this.bits = grow(this.bits, n * this.words);
    }
    const t = this.size++;
    this.element[t] = e;
    this.lo[t] = lo;
    this.hi[t] = hi;
    return t;
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
