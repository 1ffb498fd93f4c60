// The progression engine of the symbolic replayer (replay.ts): it runs the compiled schedules of
// all ranks the way the executor does and matches messages as MPI does
// within one communicator and tag: per (source, destination) pair, sends and receives pair up
// in posting order. A round posts its sends and receives, waits for its flag waits, then (all
// requests complete) runs its copies, then signals its flags.
//
// Sends complete only when matched (MPI_Ssend semantics). That is the guarantee MPI gives for
// every message size; a schedule that only works because small messages are buffered eagerly
// deadlocks on large ones, and the replayer must reject it.
//
// Which ready rank posts next does not change what matches what: ready ranks are swept in rank
// order, round by round. The timing model runs the same progression in C++, in time order
// (native/engine/model/hockney.cc). Everything per message lives in typed arrays.
import { MAX_FLAG_SLOTS, ScheduleError, SIGNAL_CODE, WAIT_CODE, type CompiledRank } from './compiled';

/** Ops are named by slot (see CompiledRank); a round's ops are the slots [first, end). */
export interface EngineHooks {
  /** `rank` enters `round`; its ops are posted right after. */
  startRound(rank: number, round: number, first: number, end: number): void;
  /** A send is posted. The value returned travels with the message. */
  postSend(rank: number, slot: number, peer: number, units: number): number;
  /** The send `sendSlot` of `src`, posted in `srcRound`, meets the receive `recvSlot` of `dst`. */
  match(src: number, sendSlot: number, srcRound: number, dst: number, recvSlot: number, units: number, payload: number): void;
  /** The flag wait `slot` of `rank` passes, thanks to a signal that returned `payload`. */
  flagPassed(rank: number, slot: number, payload: number): void;
  /** Every send, receive and flag wait of the round completed: copies run here. */
  endRound(rank: number, round: number, first: number, end: number): void;
  /** After the copies, the flag signal `slot` of `rank`; the value returned reaches its waiters. */
  flagSignal(rank: number, slot: number): number;
}

const NONE = -1;

/** Unmatched sends and receives, in a pool of typed arrays with per-rank FIFO lists. */
class PendingPool {
  /** For a send entry: the sender. For a receive entry: the source it waits for. */
  peer: Int32Array;
  slot: Int32Array;
  /** Units sent, or units the receive expects: kept here so a match reads no other rank's stream. */
  units: Int32Array;
  round: Int32Array;
  payload: Float64Array;
  next: Int32Array;
  private free = NONE;
  private used = 0;

  constructor(capacity: number) {
    this.peer = new Int32Array(capacity);
    this.slot = new Int32Array(capacity);
    this.units = new Int32Array(capacity);
    this.round = new Int32Array(capacity);
    this.payload = new Float64Array(capacity);
    this.next = new Int32Array(capacity);
  }

  alloc(peer: number, slot: number, units: number, round: number, payload: number): number {
    let e = this.free;
    if (e !== NONE) {
      this.free = this.next[e];
    } else {
      if (this.used === this.peer.length) this.grow();
      e = this.used++;
    }
    this.peer[e] = peer;
    this.slot[e] = slot;
    this.units[e] = units;
    this.round[e] = round;
    this.payload[e] = payload;
    this.next[e] = NONE;
    return e;
  }

  release(e: number): void {
    this.next[e] = this.free;
    this.free = e;
  }

  private grow(): void {
    const n = this.peer.length * 2;
    const grow32 = (a: Int32Array) => {
      const b = new Int32Array(n);
      b.set(a);
      return b;
    };
    this.peer = grow32(this.peer);
    this.slot = grow32(this.slot);
    this.units = grow32(this.units);
    this.round = grow32(this.round);
    this.next = grow32(this.next);
    const payload = new Float64Array(n);
    payload.set(this.payload);
    this.payload = payload;
  }
}

/** A FIFO list per rank, threaded through the pool's `next`. */
class RankLists {
  readonly head: Int32Array;
  readonly tail: Int32Array;

  constructor(p: number) {
    this.head = new Int32Array(p).fill(NONE);
    this.tail = new Int32Array(p).fill(NONE);
  }

  append(pool: PendingPool, rank: number, e: number): void {
    if (this.tail[rank] === NONE) this.head[rank] = e;
    else pool.next[this.tail[rank]] = e;
    this.tail[rank] = e;
  }

  /** Unlinks and returns the first entry of `rank`'s list whose peer is `peer`, or NONE. */
  take(pool: PendingPool, rank: number, peer: number): number {
    let prev = NONE;
    for (let e = this.head[rank]; e !== NONE; prev = e, e = pool.next[e]) {
      if (pool.peer[e] !== peer) continue;
      const next = pool.next[e];
      if (prev === NONE) this.head[rank] = next;
      else pool.next[prev] = next;
      if (this.tail[rank] === e) this.tail[rank] = prev;
      return e;
    }
    return NONE;
  }
}

/** A shared-memory flag: its stage, each raise (stage, payload) in order, and the waits on it. */
interface FlagState {
  value: number;
  readonly raises: number[];
  /** Pairs (rank, op slot). */
  readonly waiters: number[];
  /** The stage each waiter needs, aligned with the pairs. */
  readonly wanted: number[];
}

class Progression {
  private readonly p: number;
  // Streams and round counts apart from the CompiledRank objects: one pointer less to chase
  // per rank and round.
  private readonly streams: Int32Array[];
  private readonly rounds: Int32Array;
  /** Per rank: the slot of its current round's header, and the round's number. */
  private readonly header: Int32Array;
  private readonly round: Int32Array;
  /** Sends, receives and flag waits of the current round not yet complete. */
  private readonly pendingOps: Int32Array;
  private readonly pool: PendingPool;
  private readonly sendsTo: RankLists; // unmatched sends, listed under their destination
  private readonly recvsAt: RankLists; // unmatched receives, listed under the receiver
  /** Flags by owner x MAX_FLAG_SLOTS + slot, created on first use. */
  private readonly flags = new Map<number, FlagState>();
  /** Ranks whose round completed, to finish without recursing (signals can cascade over a node). */
  private readonly finishing: number[] = [];
  /** Bit r: rank r is ready to post its next round. */
  private readonly ready: Uint32Array;
  private finished = 0;

  constructor(
    private readonly ranks: readonly CompiledRank[],
    private readonly hooks: EngineHooks,
  ) {
    const p = ranks.length;
    this.p = p;
    this.streams = ranks.map((r) => r.stream);
    this.rounds = Int32Array.from(ranks, (r) => r.rounds);
    this.header = new Int32Array(p);
    this.round = new Int32Array(p);
    this.pendingOps = new Int32Array(p);
    this.pool = new PendingPool(Math.max(1024, 2 * p));
    this.sendsTo = new RankLists(p);
    this.recvsAt = new RankLists(p);
    this.ready = new Uint32Array(Math.ceil(p / 32));
  }

  run(): void {
    for (let r = 0; r < this.p; r++) {
      if (this.rounds[r] > 0) this.markReady(r);
      else this.finished++;
    }
    const ready = this.ready;
    for (let progress = true; progress; ) {
      progress = false;
      for (let w = 0; w < ready.length; w++) {
        // Re-read the word: posting a round may make ranks of this word ready.
        for (let bits = ready[w]; bits !== 0; bits = ready[w]) {
          const low = bits & -bits;
          ready[w] = bits ^ low;
          this.postRound(w * 32 + 31 - Math.clz32(low));
          progress = true;
        }
      }
    }
    if (this.finished < this.p) throw new ScheduleError(this.describeDeadlock());
  }

  private markReady(r: number): void {
    this.ready[r >>> 5] |= 1 << (r & 31);
  }

  private postRound(r: number): void {
    const stream = this.streams[r];
    const round = this.round[r];
    const header = this.header[r];
    const first = header + 1;
    const end = first + stream[2 * header];
    const awaited = stream[2 * header + 1];
    this.hooks.startRound(r, round, first, end);
    this.pendingOps[r] = awaited;
    if (awaited === 0) {
      this.finishing.push(r);
    } else {
      // One pass in op order. The executor posts receives before sends, but matching is per
      // (source, destination) pair, where receives and sends queue apart: the order between
      // them changes nothing.
      for (let s = first; s < end; s++) {
        const code = stream[2 * s];
        if (code >= 0) this.postSend(r, s, code, stream[2 * s + 1], round);
        else if (code > WAIT_CODE) this.postRecv(r, s, -1 - code, stream[2 * s + 1], round);
        else if (code === WAIT_CODE) this.postWait(r, s, stream[2 * s + 1]);
      }
    }
    this.drainFinishing();
  }

  private postRecv(r: number, slot: number, src: number, units: number, round: number): void {
    const pool = this.pool;
    const e = this.sendsTo.take(pool, r, src);
    if (e === NONE) {
      this.recvsAt.append(pool, r, pool.alloc(src, slot, units, round, 0));
      return;
    }
    const sendSlot = pool.slot[e];
    const sent = pool.units[e];
    const sendRound = pool.round[e];
    const payload = pool.payload[e];
    pool.release(e);
    this.matched(src, sendSlot, sendRound, sent, r, slot, units, payload);
  }

  private postSend(r: number, slot: number, dst: number, units: number, round: number): void {
    const pool = this.pool;
    const payload = this.hooks.postSend(r, slot, dst, units);
    const e = this.recvsAt.take(pool, dst, r);
    if (e === NONE) {
      this.sendsTo.append(pool, dst, pool.alloc(r, slot, units, round, payload));
      return;
    }
    const recvSlot = pool.slot[e];
    const expected = pool.units[e];
    pool.release(e);
    this.matched(r, slot, round, units, dst, recvSlot, expected, payload);
  }

  private matched(
    src: number,
    sendSlot: number,
    srcRound: number,
    sent: number,
    dst: number,
    recvSlot: number,
    expected: number,
    payload: number,
  ): void {
    if (sent !== expected) {
      const round = this.round[dst];
      throw new ScheduleError(
        `rank ${dst} round ${round}: receive from ${src} expects ${expected} units but the matching send (rank ${src} round ${srcRound}) carries ${sent}`,
        dst,
        round,
      );
    }
    this.hooks.match(src, sendSlot, srcRound, dst, recvSlot, sent, payload);
    this.completeOp(src);
    this.completeOp(dst);
  }

  private completeOp(r: number): void {
    if (--this.pendingOps[r] === 0) this.finishing.push(r);
  }

  private flag(owner: number, slot: number): FlagState {
    const key = owner * MAX_FLAG_SLOTS + slot;
    let f = this.flags.get(key);
    if (!f) {
      f = { value: 0, raises: [], waiters: [], wanted: [] };
      this.flags.set(key, f);
    }
    return f;
  }

  /** The payload of the first raise to `stage` or beyond: the signal that lets the wait pass. */
  private static passingRaise(f: FlagState, stage: number): number {
    for (let i = 0; i < f.raises.length; i += 2) if (f.raises[i] >= stage) return f.raises[i + 1];
    throw new Error('unreachable: flag below the stage');
  }

  private postWait(r: number, slot: number, owner: number): void {
    const flags = this.ranks[r].flags!;
    const f = this.flag(owner, flags.slot[slot]);
    const stage = flags.stage[slot];
    if (f.value >= stage) {
      this.hooks.flagPassed(r, slot, Progression.passingRaise(f, stage));
      this.completeOp(r);
    } else {
      f.waiters.push(r, slot);
      f.wanted.push(stage);
    }
  }

  private signal(r: number, slot: number, owner: number): void {
    const flags = this.ranks[r].flags!;
    const f = this.flag(owner, flags.slot[slot]);
    const stage = flags.stage[slot];
    const payload = this.hooks.flagSignal(r, slot);
    if (stage <= f.value) return; // flags only grow: a lower signal changes nothing
    f.value = stage;
    f.raises.push(stage, payload);
    for (let i = 0; i < f.wanted.length; ) {
      if (f.wanted[i] > stage) {
        i++;
        continue;
      }
      const waiter = f.waiters[2 * i];
      this.hooks.flagPassed(waiter, f.waiters[2 * i + 1], payload);
      f.waiters.splice(2 * i, 2);
      f.wanted.splice(i, 1);
      this.completeOp(waiter);
    }
  }

  private drainFinishing(): void {
    const finishing = this.finishing;
    while (finishing.length > 0) {
      const r = finishing.pop()!;
      const stream = this.streams[r];
      const first = this.header[r] + 1;
      const end = first + stream[2 * this.header[r]];
      this.hooks.endRound(r, this.round[r], first, end);
      for (let s = first; s < end; s++) if (stream[2 * s] === SIGNAL_CODE) this.signal(r, s, stream[2 * s + 1]);
      this.header[r] = end;
      if (++this.round[r] < this.rounds[r]) this.markReady(r);
      else this.finished++;
    }
  }

  private describeDeadlock(): string {
    const { p, rounds, round, pool } = this;
    const state = (r: number) => (round[r] >= rounds[r] ? `rank ${r} has finished` : `rank ${r} is in round ${round[r]}`);
    // The first unmatched send and the first unpassed flag wait of every rank, for the report.
    const firstSend = new Map<number, { dst: number; units: number }>();
    for (let dst = 0; dst < p; dst++) {
      for (let e = this.sendsTo.head[dst]; e !== NONE; e = pool.next[e]) {
        const src = pool.peer[e];
        if (!firstSend.has(src)) firstSend.set(src, { dst, units: pool.units[e] });
      }
    }
    const firstWait = new Map<number, string>();
    for (const [key, f] of this.flags) {
      for (let i = 0; i < f.wanted.length; i++) {
        const w = f.waiters[2 * i];
        const owner = Math.floor(key / MAX_FLAG_SLOTS);
        if (!firstWait.has(w)) firstWait.set(w, `waits for flag ${key % MAX_FLAG_SLOTS} of rank ${owner} to reach stage ${f.wanted[i]} (it holds ${f.value})`);
      }
    }
    const stuck: string[] = [];
    let nStuck = 0;
    for (let r = 0; r < p; r++) {
      if (round[r] >= rounds[r]) continue;
      if (++nStuck > 4) continue;
      const e = this.recvsAt.head[r];
      const send = firstSend.get(r);
      let why = 'waits';
      if (e !== NONE) why = `waits for a message from ${pool.peer[e]} (${state(pool.peer[e])})`;
      else if (send) why = `its send of ${send.units} units to ${send.dst} is never received (${state(send.dst)})`;
      else if (firstWait.has(r)) why = firstWait.get(r)!;
      stuck.push(`rank ${r} round ${round[r]} ${why}`);
    }
    return `deadlock: ${nStuck} of ${p} ranks cannot finish; ${stuck.join('; ')}${nStuck > stuck.length ? '; …' : ''}`;
  }
}

/**
 * Runs all ranks to completion, calling `hooks` along the way. Throws ScheduleError on a
 * deadlock (some rank can never finish) or on a receive whose size differs from its send.
 */
export function runSchedules(ranks: readonly CompiledRank[], hooks: EngineHooks): void {
  new Progression(ranks, hooks).run();
}
