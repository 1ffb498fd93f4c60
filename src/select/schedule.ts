// The schedule IR as TypeScript sees it (mirror of native/engine/schedule.h). The addon's
// buildSchedule() returns this shape; the replayer, the models and `explain` consume it.
import type { CollectiveName } from './registry';

export type BufferName = 'send' | 'recv' | 'tmp';

/** A run of consecutive blocks of one buffer (a block is one rank's count elements; for bcast, one element). */
export interface BlockSpan {
  buf: BufferName;
  first: number;
  count: number;
}

export type ScheduleOp =
  | { kind: 'send'; peer: number; src: BlockSpan }
  | { kind: 'recv'; peer: number; dst: BlockSpan }
  | { kind: 'copy'; src: BlockSpan; dst: BlockSpan };

/** All ops of a round start together; copies run after the round's receives complete. */
export type ScheduleRound = ScheduleOp[];

export interface ScheduleParams {
  /** Elements per block (allgather/alltoall) or of the whole vector (bcast). Default 1. */
  count?: number;
  root?: number;
  inPlace?: boolean;
  maxOutstanding?: number;
  segmentBlocks?: number;
}

export interface Schedule {
  collective: CollectiveName;
  algorithm: string;
  p: number;
  rank: number;
  count: number;
  root: number;
  inPlace: boolean;
  /** Scratch buffer size, in blocks. */
  tmpBlocks: number;
  /** A fallback the algorithm took (e.g. a power-of-two algorithm on another size). */
  note: string;
  rounds: ScheduleRound[];
}
