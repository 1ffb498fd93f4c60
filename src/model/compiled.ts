// Schedules compiled into typed arrays. The symbolic replayer walks every rank's schedule round
// by round across all ranks; JS objects per op would cost a cache miss per field, so each rank's
// schedule is flattened once, right after it is built, into one interleaved stream, and the
// Schedule objects can be dropped. This is the one converter of TypeScript schedules to the
// stream the addon's progression takes (simulateCompiled, replayEvents;
// native/engine/model/hockney.h's CompactSchedule); spans stay here, for the symbolic replay.
import type { BlockSpan, BufferName, Schedule } from '../select/schedule';

export const BUF_SEND = 0;
export const BUF_RECV = 1;
const BUF_TMP = 2;
/** The node's shared data area: one buffer for all ranks of a node. */
export const BUF_SHM = 3;
export const BUFFER_NAMES: readonly BufferName[] = ['send', 'recv', 'tmp', 'shm'];

/** Stream codes: a send's code is its peer, a receive's -1 - peer, the others these. */
const COPY_CODE = -0x80000000;
export const SIGNAL_CODE = -0x7fffffff;
export const WAIT_CODE = -0x7ffffffe;
/** A reduce op: [REDUCE_CODE, units], spans like a copy's. */
export const REDUCE_CODE = -0x7ffffffd;
/** Codes at or below this are not receives. */
const LAST_SPECIAL_CODE = REDUCE_CODE;
/** Copies and reductions: local ops with a source and a destination span. */
export const isLocalCode = (code: number) => code === COPY_CODE || code === REDUCE_CODE;
export const isRecvCode = (code: number) => code < 0 && code > LAST_SPECIAL_CODE;

/** Flags a rank owns; the native executor has 4 (kShmFlagSlots), the replayer accepts more. */
const MAX_FLAG_SLOTS = 64;
/** Stages are 24-bit in the executor (kShmMaxStage). */
const MAX_FLAG_STAGE = (1 << 24) - 1;

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

/** Block spans of every op, indexed by op slot; only the symbolic replayer needs them. */
export interface CompiledSpans {
  /** send and copy: the source span (buffer, first block). */
  readonly srcBuf: Uint8Array;
  readonly srcFirst: Int32Array;
  /** recv and copy: the destination span. */
  readonly dstBuf: Uint8Array;
  readonly dstFirst: Int32Array;
  /** reduce: 1 when the destination is the left operand (dst_first), else 0. */
  readonly dstFirstOrder: Uint8Array;
}

/** Flag ops' slot and stage, indexed by op slot. */
export interface CompiledFlags {
  readonly slot: Uint8Array;
  readonly stage: Int32Array;
}

/**
 * One rank's schedule as a stream of two-word slots. Each round is a header slot
 * [number of ops, number of ops the round waits for (sends, receives, flag waits)] followed by
 * one slot per op: [code, units] for sends, receives, copies and reductions, [SIGNAL_CODE or WAIT_CODE,
 * flag owner] for flag ops. An op is named by its slot index (stream position / 2), which also
 * indexes `spans` and `flags`. Counts are in units of 1/unitsPerBlock block.
 */
export interface CompiledRank {
  readonly rank: number;
  readonly rounds: number;
  readonly stream: Int32Array;
  readonly tmpBlocks: number;
  readonly unitsPerBlock: number;
  readonly spans?: CompiledSpans;
  /** Present when the schedule has flag ops. */
  readonly flags?: CompiledFlags;
}

function bufferCode(name: unknown): number {
  switch (name) {
    case 'send':
      return BUF_SEND;
    case 'recv':
      return BUF_RECV;
    case 'tmp':
      return BUF_TMP;
    case 'shm':
      return BUF_SHM;
    default:
      return -1;
  }
}

/** An integer in [0, 2^31): `n | 0` keeps exactly those (and turns anything else into another value). */
function isBlockIndex(n: unknown): n is number {
  return ((n as number) | 0) === n && (n as number) >= 0;
}

function opError(rank: number, round: number, k: number, kind: string, detail: string): ScheduleError {
  return new ScheduleError(`rank ${rank} round ${round} op ${k} (${kind}): ${detail}`, rank, round);
}

/** The buffer code of a valid span, or -1. */
function spanBuffer(span: BlockSpan | undefined): number {
  if (!span || typeof span !== 'object') return -1;
  const buf = bufferCode(span.buf);
  return buf >= 0 && isBlockIndex(span.first) && isBlockIndex(span.count) ? buf : -1;
}

function spanProblem(span: BlockSpan | undefined): string {
  if (!span || typeof span !== 'object') return 'missing block span';
  if (bufferCode(span.buf) < 0) return `unknown buffer '${String(span.buf)}' (${BUFFER_NAMES.join(', ')})`;
  return `span first/count must be non-negative integers, got ${span.first}/${span.count}`;
}

/**
 * Flattens one rank's schedule. `p` bounds the peers; `withSpans` keeps buffer positions (the
 * simulator only needs peers and sizes). Throws ScheduleError on a malformed op.
 */
export function compileSchedule(schedule: Schedule, p: number, withSpans: boolean): CompiledRank {
  const rank = schedule.rank;
  const rounds = schedule.rounds;
  const unitsPerBlock = schedule.unitsPerBlock ?? 1;
  if (!isBlockIndex(unitsPerBlock) || unitsPerBlock < 1) {
    throw new ScheduleError(`rank ${rank}: unitsPerBlock must be a positive integer, got ${unitsPerBlock}`, rank);
  }
  let slots = rounds.length;
  let hasFlags = false;
  for (const round of rounds) {
    slots += round.length;
    for (const op of round) if (op.kind === 'flag_signal' || op.kind === 'flag_wait') hasFlags = true;
  }

  const stream = new Int32Array(2 * slots);
  const spans: CompiledSpans | undefined = withSpans
    ? {
        srcBuf: new Uint8Array(slots),
        srcFirst: new Int32Array(slots),
        dstBuf: new Uint8Array(slots),
        dstFirst: new Int32Array(slots),
        dstFirstOrder: new Uint8Array(slots),
      }
    : undefined;
  const flags: CompiledFlags | undefined = hasFlags ? { slot: new Uint8Array(slots), stage: new Int32Array(slots) } : undefined;

  let slot = 0;
  for (let r = 0; r < rounds.length; r++) {
    const round = rounds[r];
    const header = slot++;
    let awaited = 0;
    stream[2 * header] = round.length;
    for (let k = 0; k < round.length; k++, slot++) {
      const op = round[k];
      if (op.kind !== 'copy' && op.kind !== 'reduce') {
        if (!Number.isInteger(op.peer) || op.peer < 0 || op.peer >= p) {
          throw opError(rank, r, k, op.kind, `peer ${op.peer} is not a rank of a ${p}-rank communicator`);
        }
      }
      switch (op.kind) {
        case 'send': {
          const buf = spanBuffer(op.src);
          if (buf < 0) throw opError(rank, r, k, op.kind, spanProblem(op.src));
          stream[2 * slot] = op.peer;
          stream[2 * slot + 1] = op.src.count;
          awaited++;
          if (spans) {
            spans.srcBuf[slot] = buf;
            spans.srcFirst[slot] = op.src.first;
          }
          break;
        }
        case 'recv': {
          const buf = spanBuffer(op.dst);
          if (buf < 0) throw opError(rank, r, k, op.kind, spanProblem(op.dst));
          stream[2 * slot] = -1 - op.peer;
          stream[2 * slot + 1] = op.dst.count;
          awaited++;
          if (spans) {
            spans.dstBuf[slot] = buf;
            spans.dstFirst[slot] = op.dst.first;
          }
          break;
        }
        case 'copy':
        case 'reduce': {
          const sbuf = spanBuffer(op.src);
          const dbuf = spanBuffer(op.dst);
          if (sbuf < 0) throw opError(rank, r, k, op.kind, spanProblem(op.src));
          if (dbuf < 0) throw opError(rank, r, k, op.kind, spanProblem(op.dst));
          if (op.src.count !== op.dst.count) {
            throw opError(rank, r, k, op.kind, `${op.kind === 'copy' ? 'copies' : 'combines'} ${op.src.count} units into a ${op.dst.count}-unit span`);
          }
          if (op.kind === 'reduce' && op.order !== 'src_first' && op.order !== 'dst_first') {
            throw opError(rank, r, k, op.kind, `order must be 'src_first' or 'dst_first', got ${String(op.order)}`);
          }
          stream[2 * slot] = op.kind === 'copy' ? COPY_CODE : REDUCE_CODE;
          stream[2 * slot + 1] = op.src.count;
          if (spans) {
            spans.srcBuf[slot] = sbuf;
            spans.srcFirst[slot] = op.src.first;
            spans.dstBuf[slot] = dbuf;
            spans.dstFirst[slot] = op.dst.first;
            spans.dstFirstOrder[slot] = op.kind === 'reduce' && op.order === 'dst_first' ? 1 : 0;
          }
          break;
        }
        case 'flag_signal':
        case 'flag_wait': {
          if (!Number.isInteger(op.slot) || op.slot < 0 || op.slot >= MAX_FLAG_SLOTS) {
            throw opError(rank, r, k, op.kind, `flag slot ${op.slot} is not in [0, ${MAX_FLAG_SLOTS})`);
          }
          if (!Number.isInteger(op.stage) || op.stage < 1 || op.stage > MAX_FLAG_STAGE) {
            throw opError(rank, r, k, op.kind, `flag stage ${op.stage} is not in [1, ${MAX_FLAG_STAGE}]`);
          }
          stream[2 * slot] = op.kind === 'flag_signal' ? SIGNAL_CODE : WAIT_CODE;
          stream[2 * slot + 1] = op.peer;
          flags!.slot[slot] = op.slot;
          flags!.stage[slot] = op.stage;
          if (op.kind === 'flag_wait') awaited++;
          break;
        }
        default:
          throw opError(rank, r, k, String((op as { kind: unknown }).kind), 'unknown op kind');
      }
    }
    stream[2 * header + 1] = awaited;
  }
  return { rank, rounds: rounds.length, stream, tmpBlocks: schedule.tmpBlocks, unitsPerBlock, spans, flags };
}

/** Calls `round(r, first, end)` for every round, with the slots [first, end) of its ops. */
export function forEachRound(rank: CompiledRank, round: (r: number, first: number, end: number) => void): void {
  let header = 0;
  for (let r = 0; r < rank.rounds; r++) {
    const first = header + 1;
    const end = first + rank.stream[2 * header];
    round(r, first, end);
    header = end;
  }
}
