// What a schedule costs in rounds, messages, bytes and distance, summed over every rank's
// schedule: the figures `topocoll explain` prints and the benchmarks annotate.
import type { Schedule } from './schedule';

export interface ScheduleSummary {
  /** Rounds of the slowest rank that communicate (copy-only rounds are free of latency). */
  rounds: number;
  /** Messages sent by the busiest rank. */
  maxMessages: number;
  /** Bytes sent by the busiest rank. */
  maxBytesSent: number;
  /** Bytes sent by all ranks together. */
  totalBytes: number;
  /** Bytes the busiest node sends to other nodes (its ranks together; 0 on one node). */
  maxNodeBytesOut: number;
  /** Messages between nodes, all ranks together. */
  offNodeMessages: number;
  /** Largest |rank - peer| of any message. */
  maxDistance: number;
  /** Sum of |rank - peer| over all messages / number of messages (seed 000's ALCD). */
  alcd: number;
  notes: string[];
}

/**
 * `blockBytes`: bytes of one block (one rank's block, or one element for bcast); `nodes`: the
 * node of every rank (absent: all on one node).
 */
export function summarize(schedules: Iterable<Schedule>, blockBytes: number, nodes?: ArrayLike<number>): ScheduleSummary {
  const s: ScheduleSummary = { rounds: 0, maxMessages: 0, maxBytesSent: 0, totalBytes: 0, maxNodeBytesOut: 0, offNodeMessages: 0, maxDistance: 0, alcd: 0, notes: [] };
  const nodeBytesOut = new Map<number, number>();
  let messages = 0;
  let distance = 0;
  const notes = new Set<string>();
  for (const sched of schedules) {
    let rounds = 0;
    let sent = 0;
    let bytes = 0;
    for (const round of sched.rounds) {
      let communicates = false;
      for (const op of round) {
        if (op.kind === 'copy' || op.kind === 'reduce') continue;
        communicates = true;
        if (op.kind !== 'send') continue;
        const d = Math.abs(op.peer - sched.rank);
        // Spans count units of 1/unitsPerBlock block (tiles, segments).
        const opBytes = (op.src.count * blockBytes) / (sched.unitsPerBlock || 1);
        sent++;
        bytes += opBytes;
        const node = nodes?.[sched.rank] ?? 0;
        if (node !== (nodes?.[op.peer] ?? 0)) {
          s.offNodeMessages++;
          nodeBytesOut.set(node, (nodeBytesOut.get(node) ?? 0) + opBytes);
        }
        distance += d;
        s.maxDistance = Math.max(s.maxDistance, d);
      }
      if (communicates) rounds++;
    }
    if (sched.note) notes.add(sched.note);
    messages += sent;
    s.rounds = Math.max(s.rounds, rounds);
    s.maxMessages = Math.max(s.maxMessages, sent);
    s.maxBytesSent = Math.max(s.maxBytesSent, bytes);
    s.totalBytes += bytes;
  }
  s.alcd = messages ? distance / messages : 0;
  s.maxNodeBytesOut = Math.max(0, ...nodeBytesOut.values());
  s.notes = [...notes];
  return s;
}
