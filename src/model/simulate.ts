// Timing simulation: every rank's schedule runs through the progression engine while a cost
// model prices each message at the level it crosses (from the placement). The prediction is
// the time the slowest rank finishes.
//
// Timing rules:
// - A rank posts a round's sends when it enters the round, the machine's round overhead (the
//   executor's own work) after leaving the previous one; the round ends when its last send
//   has left and its last message has arrived; its copies then take bytes x copyBeta and its
//   reduce ops bytes x gamma (the rank that combines pays, after the operands have arrived).
// - A send starts when the sender's port is free and, between nodes, when the NIC it shares
//   with the other processes of its node is free (seed 002's per-port data); it keeps both
//   busy for the model's occupancy and arrives after the model's message time. A send to a
//   rank the sender also receives from in the same round (an exchange) is priced at the level's
//   exchange β: both directions of one pair at once.
// - A flag signal is seen by its waiters the signal latency of the level between signaller and
//   flag owner after the signalling round's copies; a round with flag waits ends no earlier.
// - A receiver takes one message at a time from its port: a message cannot complete earlier
//   than occupancy after the previous one (fan-in, e.g. isend_irecv).
// Ports serve sends in the order the engine posts them, round by round over the ranks: that
// is time order when ranks enter a round together, as they do in the regular schedules of
// collectives, and an approximation otherwise.
//
// Size: ranks are compiled to typed arrays one at a time, so a pairwise alltoall on 8192 ranks
// (67 M messages) needs about 1.4 GB and no Schedule object outlives its compilation.
import { compileSchedule, COPY_CODE, REDUCE_CODE, type CompiledRank } from './compiled';
import type { CostModel } from './cost';
import { runSchedules, type EngineHooks } from './engine';
import type { Machine } from './machine';
import { Topology, type Placement } from './placement';
import { scheduleOf, type ScheduleSource } from './replay';

export interface SimulationInput {
  readonly p: number;
  /** Every rank's schedule; or `compiled`, already flattened (the addon's compiledSchedule). */
  readonly schedules?: ScheduleSource;
  readonly compiled?: (rank: number) => CompiledRank;
  readonly machine: Machine;
  readonly placement: Placement;
  readonly model: CostModel;
  /** Bytes of one block: allgather/alltoall, one rank's block; bcast, one element. */
  readonly blockBytes: number;
}


export interface SimulationResult {
  /** Seconds until the slowest rank finishes. */
  readonly time: number;
  /** Per rank, seconds until it finishes. */
  readonly finish: Float64Array;
  /** The longest schedule, in rounds. */
  readonly rounds: number;
  readonly messages: number;
  /** Bytes on the wire, all messages together. */
  readonly bytes: number;
  /** Average logical communication distance of the messages (seed 000). */
  readonly alcd: number;
}

/**
 * Message time and occupancy per (level, hops), for one message size at a time: collectives
 * send few distinct sizes, and the model is then called a dozen times instead of per message.
 */
class CostTable {
  private bytes = -1;
  private readonly stride: number;
  readonly time: Float64Array;
  readonly occupancy: Float64Array;

  constructor(
    private readonly model: CostModel,
    private readonly topology: Topology,
    private readonly levels = topology.levels,
  ) {
    this.stride = (topology.machine.network?.hops ?? 1) + 1;
    this.time = new Float64Array(levels.length * this.stride);
    this.occupancy = new Float64Array(levels.length * this.stride);
  }

  /** The table index of a message from a to b, with the table filled for `bytes`. */
  index(a: number, b: number, bytes: number): number {
    if (bytes !== this.bytes) this.fill(bytes);
    return this.topology.levelIndex(a, b) * this.stride + this.topology.hops(a, b);
  }

  private fill(bytes: number): void {
    const levels = this.levels;
    for (let l = 0; l < levels.length; l++) {
      for (let h = 0; h < this.stride; h++) {
        this.time[l * this.stride + h] = this.model.messageTime(bytes, levels[l], h);
        this.occupancy[l * this.stride + h] = this.model.occupancy(bytes, levels[l], h);
      }
    }
    this.bytes = bytes;
  }
}

class TimingReplay implements EngineHooks {
  /** When the rank entered its current round (its sends' post time); after its last round, when it finished. */
  readonly roundStart: Float64Array;
  /** When the current round ends, as far as known. */
  private readonly roundEnd: Float64Array;
  private readonly portFree: Float64Array;
  private readonly receiveFree: Float64Array;
  private readonly nicFree: Float64Array;
  private readonly costs: CostTable;
  private readonly exchangeCosts: CostTable;
  /** Per rank, the op slots [roundFirst, roundStop) of its current round. */
  private readonly roundFirst: Int32Array;
  private readonly roundStop: Int32Array;
  private readonly usesNic: Uint8Array;
  private readonly stride: number;
  messages = 0;
  bytesSent = 0;
  distance = 0;

  constructor(
    private readonly ranks: readonly CompiledRank[],
    private readonly topology: Topology,
    model: CostModel,
    private readonly blockBytes: number,
  ) {
    const p = ranks.length;
    this.roundStart = new Float64Array(p);
    this.roundEnd = new Float64Array(p);
    this.portFree = new Float64Array(p);
    this.receiveFree = new Float64Array(p);
    let nics = 0;
    for (let r = 0; r < p; r++) nics = Math.max(nics, topology.placement.nic[r] + 1);
    this.nicFree = new Float64Array(nics);
    this.costs = new CostTable(model, topology);
    this.exchangeCosts = new CostTable(model, topology, topology.levels.map((l) => ({ ...l, beta: l.exchangeBeta })));
    this.roundFirst = new Int32Array(p);
    this.roundStop = new Int32Array(p);
    this.stride = (topology.machine.network?.hops ?? 1) + 1;
    this.usesNic = Uint8Array.from(topology.levels, (l) => (l.usesNic ? 1 : 0));
  }

  startRound(r: number, _round: number, first: number, end: number): void {
    this.roundStart[r] += this.topology.machine.roundOverhead;
    this.roundEnd[r] = this.roundStart[r];
    this.roundFirst[r] = first;
    this.roundStop[r] = end;
  }

  /** The costs of rank r's send in `slot`: an exchange when its round also receives from that peer. */
  private costsOf(r: number, slot: number): CostTable {
    // A send completes when matched, so its rank is still in the send's round here.
    const stream = this.ranks[r].stream;
    const receive = -1 - stream[2 * slot];
    for (let s = this.roundFirst[r]; s < this.roundStop[r]; s++) if (stream[2 * s] === receive) return this.exchangeCosts;
    return this.costs;
  }

  private bytes(r: number, units: number): number {
    return (units * this.blockBytes) / this.ranks[r].unitsPerBlock;
  }

  postSend(r: number, slot: number, peer: number, units: number): number {
    const costs = this.costsOf(r, slot);
    const k = costs.index(r, peer, this.bytes(r, units));
    const nic = this.usesNic[Math.floor(k / this.stride)] ? this.topology.placement.nic[r] : -1;
    let start = Math.max(this.roundStart[r], this.portFree[r]);
    if (nic >= 0) start = Math.max(start, this.nicFree[nic]);
    const busyUntil = start + costs.occupancy[k];
    this.portFree[r] = busyUntil;
    if (nic >= 0) this.nicFree[nic] = busyUntil;
    if (busyUntil > this.roundEnd[r]) this.roundEnd[r] = busyUntil;
    return start;
  }

  match(src: number, sendSlot: number, _srcRound: number, dst: number, _recvSlot: number, units: number, start: number): void {
    const bytes = this.bytes(src, units);
    const costs = this.costsOf(src, sendSlot);
    const k = costs.index(src, dst, bytes);
    const arrival = start + costs.time[k];
    const done = Math.max(arrival, this.receiveFree[dst] + costs.occupancy[k]);
    this.receiveFree[dst] = done;
    if (done > this.roundEnd[dst]) this.roundEnd[dst] = done;
    this.messages++;
    this.bytesSent += bytes;
    this.distance += Math.abs(src - dst);
  }

  flagPassed(r: number, _slot: number, visibleAt: number): void {
    if (visibleAt > this.roundEnd[r]) this.roundEnd[r] = visibleAt;
  }

  /** Signals follow the round's copies; the flag's cache line then takes the level's signal latency to reach a reader. */
  flagSignal(r: number, slot: number): number {
    const owner = this.ranks[r].stream[2 * slot + 1];
    return this.roundStart[r] + this.topology.levels[this.topology.levelIndex(r, owner)].signalAlpha;
  }

  endRound(r: number, _round: number, first: number, end: number): void {
    const stream = this.ranks[r].stream;
    let copied = 0;
    let combined = 0;
    for (let s = first; s < end; s++) {
      if (stream[2 * s] === COPY_CODE) copied += stream[2 * s + 1];
      else if (stream[2 * s] === REDUCE_CODE) combined += stream[2 * s + 1];
    }
    const { copyBeta, gamma } = this.topology.machine;
    this.roundStart[r] = this.roundEnd[r] + this.bytes(r, copied) * copyBeta + this.bytes(r, combined) * gamma;
  }
}

/** Predicts the time of a collective. Throws ScheduleError if the schedules deadlock. */
export function simulate(input: SimulationInput): SimulationResult {
  const { p, machine, placement, model, blockBytes } = input;
  if (placement.node.length !== p) throw new RangeError(`placement covers ${placement.node.length} ranks, not ${p}`);
  const ranks: CompiledRank[] = new Array(p);
  let rounds = 0;
  const { schedules, compiled } = input;
  if (!schedules && !compiled) throw new Error('simulate needs schedules or compiled schedules');
  for (let r = 0; r < p; r++) {
    ranks[r] = compiled ? compiled(r) : compileSchedule(scheduleOf(schedules!, r), p, false);
    rounds = Math.max(rounds, ranks[r].rounds);
  }
  const timing = new TimingReplay(ranks, new Topology(machine, placement), model, blockBytes);
  // Ranks post in the order of the time they enter their round: ports serve first come, first served.
  runSchedules(ranks, timing, timing.roundStart);
  // After its last round, roundStart holds the time a rank is done.
  const finish = timing.roundStart;
  let time = 0;
  for (let r = 0; r < p; r++) time = Math.max(time, finish[r]);
  return {
    time,
    finish,
    rounds,
    messages: timing.messages,
    bytes: timing.bytesSent,
    alcd: timing.messages === 0 ? 0 : timing.distance / timing.messages,
  };
}
