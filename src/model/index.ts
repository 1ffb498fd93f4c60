// Models of collective cost: machine profiles, Hockney/LogGP/contention (seed 002), ALCD
// (seed 000), the symbolic replayer and the timing simulator. simulateCommand() is the entry
// point `topocoll simulate` wraps.
import { collectiveInfo, type CollectiveName } from '../select/registry';
import type { Schedule, ScheduleParams } from '../select/schedule';
import type { RhoLaw } from './contention';
import { costModel, MODEL_NAMES, type ModelName } from './cost';
import { loadProfile, type Machine } from './machine';
import { blockPlacement } from './placement';
import { verifyCollective } from './replay';
import { simulate } from './simulate';

export * from './alcd';
export * from './compiled';
export * from './contention';
export * from './cost';
export * from './engine';
export * from './machine';
export * from './messages';
export * from './placement';
export * from './replay';
export * from './seed002';
export * from './simulate';

/** What a schedule provider is asked for: the addon's buildSchedule() in production. */
export interface ScheduleRequest {
  readonly collective: CollectiveName;
  readonly algorithm: string;
  readonly p: number;
  readonly rank: number;
  readonly params: ScheduleParams;
}

export type ScheduleProvider = (request: ScheduleRequest) => Schedule;

export interface SimulateArgs {
  readonly coll: CollectiveName;
  /** One algorithm, several, or 'all' (every algorithm the registry lists for the collective). */
  readonly algorithm: string | readonly string[];
  readonly np: number;
  readonly ppn: number;
  /** allgather/alltoall: bytes of one rank's block; bcast: bytes of the message; barrier: ignored. */
  readonly bytes: number;
  /** A machine, or a shipped profile's name ("bxj"), or a profile file. */
  readonly machine: Machine | string;
  /** Default: hockney. */
  readonly model?: ModelName;
  /** The contention model's load: a number in [0, 1) or a calibrated law. */
  readonly rho?: number | RhoLaw;
  readonly root?: number;
  readonly inPlace?: boolean;
  /** Replay symbolically before timing and refuse a wrong schedule. Default: np <= 1024. */
  readonly verify?: boolean;
  readonly schedules: ScheduleProvider;
}

export interface SimulateRow {
  readonly algorithm: string;
  readonly model: ModelName;
  /** Predicted time of the slowest rank, microseconds. */
  readonly predicted_us: number;
  readonly rounds: number;
  /** Bytes on the wire, all messages together. */
  readonly bytes: number;
  readonly messages: number;
  readonly alcd: number;
  /** A fallback the algorithm took, from the schedule. */
  readonly note: string;
}

function algorithmsOf(coll: CollectiveName, wanted: string | readonly string[]): string[] {
  const info = collectiveInfo(coll);
  if (!info) throw new Error(`unknown collective '${coll}'`);
  const known = info.algorithms.map((a) => a.name);
  const list = wanted === 'all' ? known : typeof wanted === 'string' ? [wanted] : [...wanted];
  for (const name of list) {
    if (!known.includes(name)) throw new Error(`cannot simulate ${coll} algorithm '${name}' (valid: ${known.join(', ')}, all)`);
  }
  return list;
}

/** Predicts each requested algorithm's time on the machine; one row per algorithm. */
export function simulateCommand(args: SimulateArgs): SimulateRow[] {
  const { coll, np, ppn, bytes } = args;
  if (!Number.isInteger(np) || np < 1) throw new RangeError(`np must be a positive integer, got ${np}`);
  if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError(`bytes must be a non-negative integer, got ${bytes}`);
  const modelName = args.model ?? 'hockney';
  if (!MODEL_NAMES.includes(modelName)) throw new Error(`unknown model '${modelName}' (valid: ${MODEL_NAMES.join(', ')})`);
  const machine = typeof args.machine === 'string' ? loadProfile(args.machine) : args.machine;
  const model = costModel(modelName, machine, { rho: args.rho, p: np });
  const placement = blockPlacement(np, ppn, machine);

  // Blocks are bytes-sized units: a bcast moves `bytes` one-byte elements; allgather and
  // alltoall move one block of `bytes` per rank.
  const params: ScheduleParams = {
    count: coll === 'barrier' ? 0 : bytes,
    root: args.root ?? 0,
    inPlace: args.inPlace ?? false,
  };
  const blockBytes = coll === 'bcast' ? 1 : coll === 'barrier' ? 0 : bytes;

  return algorithmsOf(coll, args.algorithm).map((algorithm) => {
    const scheduleFor = (rank: number) => args.schedules({ collective: coll, algorithm, p: np, rank, params });
    if (args.verify ?? np <= 1024) {
      const check = verifyCollective(coll, np, scheduleFor, { count: params.count, root: params.root, inPlace: params.inPlace });
      if (!check.ok) throw new Error(`${coll} ${algorithm} on ${np} ranks is wrong: ${check.error}`);
    }
    let note = '';
    const result = simulate({
      p: np,
      schedules: (rank) => {
        const s = scheduleFor(rank);
        if (rank === 0) note = s.note;
        return s;
      },
      machine,
      placement,
      model,
      blockBytes,
    });
    return {
      algorithm,
      model: modelName,
      predicted_us: result.time * 1e6,
      rounds: result.rounds,
      bytes: result.bytes,
      messages: result.messages,
      alcd: result.alcd,
      note,
    };
  });
}
