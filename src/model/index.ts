// Models of collective cost: machine profiles, Hockney/LogGP/contention (seed 002), ALCD
// (seed 000), the symbolic replayer and the timing simulator. simulateCommand() is the entry
// point `topocoll simulate` wraps.
import { blockIsElement, collectiveInfo, COLLECTIVES, shapeOf, type CollectiveInfo, type CollectiveName } from '../select/registry';
import { countsOf, placedParams, type ScheduleParams } from '../select/schedule';
import type { ScheduleProvider } from './native';
import type { RhoLaw } from './contention';
import { costModel, MODEL_NAMES, type ModelName } from './cost';
import { loadProfile, type Machine } from './machine';
import { blockPlacement } from './placement';
import { verifyCollective } from './replay';
import { simulate, simulateBuilt } from './simulate';

export * from './alcd';
export * from './contention';
export * from './cost';
export * from './machine';
export * from './messages';
export * from './native';
export * from './placement';
export * from './plot';
export * from './replay';
export * from './seed002';
export * from './simulate';

export interface SimulateArgs {
  readonly coll: CollectiveName;
  /** One algorithm, several, or 'all' (every algorithm of the collective that has a builder). */
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
  /** Every rank's schedule, as objects or compiled (the symbolic replay reads them). */
  readonly schedules: ScheduleProvider;
  /** The algorithms that have builders; 'all' means these. Default: every algorithm of the registry. */
  readonly available?: readonly string[];
  /**
   * `schedules` are the C++ builders' (nativeCompiled, nativeSchedules): the timing builds them in the addon
   * instead of taking them as objects, which a pairwise alltoall at 8192 ranks needs.
   */
  readonly nativeBuilders?: boolean;
  /** Elements (bytes) of the node's shared data area given to shared-memory algorithms. Default 1 MiB. */
  readonly shmBytes?: number;
  /** Told where the run is, now and then (each algorithm's start, and the addon's build and replay). */
  readonly progress?: (at: SimulateProgress) => void;
}

/** Where a simulateCommand() run is: algorithm `index` of `algorithms`, and how far into its phase. */
export interface SimulateProgress {
  readonly algorithm: string;
  readonly index: number;
  readonly algorithms: number;
  /** verify: the symbolic replay; build: ranks' schedules built (done of total ranks); replay: rounds of all ranks replayed; timing: schedules given as objects replayed. */
  readonly phase: 'verify' | 'build' | 'replay' | 'timing';
  readonly done: number;
  readonly total: number;
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

function algorithmsOf(coll: CollectiveName, wanted: string | readonly string[], available?: readonly string[]): { info: CollectiveInfo; list: string[] } {
  const info = collectiveInfo(coll);
  if (!info) throw new Error(`unknown collective '${coll}' (valid: ${COLLECTIVES.map((c) => c.name).join(', ')})`);
  const known = info.algorithms.map((a) => a.name);
  const runnable = available ? known.filter((a) => available.includes(a)) : known;
  const list = wanted === 'all' ? runnable : typeof wanted === 'string' ? [wanted] : [...wanted];
  for (const name of list) {
    if (!known.includes(name)) throw new Error(`cannot simulate ${coll} algorithm '${name}' (valid: ${known.join(', ')}, all)`);
    if (!runnable.includes(name)) throw new Error(`${coll} algorithm '${name}' has no builder in this build (built: ${runnable.join(', ') || 'none'})`);
  }
  return { info, list };
}

/** Predicts each requested algorithm's time on the machine; one row per algorithm. */
export function simulateCommand(args: SimulateArgs): SimulateRow[] {
  const { coll, np, ppn, bytes } = args;
  if (!Number.isInteger(np) || np < 1) throw new RangeError(`np must be a positive integer, got ${np}`);
  if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError(`bytes must be a non-negative integer, got ${bytes}`);
  const modelName = args.model ?? 'hockney';
  if (!MODEL_NAMES.includes(modelName)) throw new Error(`unknown model '${modelName}' (valid: ${MODEL_NAMES.join(', ')})`);
  const machine = typeof args.machine === 'string' ? loadProfile(args.machine, ppn) : args.machine;
  const model = costModel(modelName, machine, { rho: args.rho, p: np });
  const placement = blockPlacement(np, ppn, machine);
  const { info, list } = algorithmsOf(coll, args.algorithm, args.available);

  // Blocks are bytes-sized units: a vector collective or a reduction moves `bytes` one-byte
  // elements, a block exchange one block of `bytes` one-byte elements per rank.
  const shmElements = args.shmBytes ?? 1 << 20;
  const base: ScheduleParams = {
    ...countsOf(coll, shapeOf(coll) === 'none' ? 0 : bytes, np),
    root: args.root ?? 0,
    inPlace: args.inPlace ?? false,
    elementBytes: 1,
  };
  const nodes = Array.from(placement.node);
  const blockBytes = shapeOf(coll) === 'none' ? 0 : blockIsElement(coll) ? 1 : bytes;

  return list.map((algorithm, index) => {
    const tell = (phase: SimulateProgress['phase'], done = 0, total = 0) => args.progress?.({ algorithm, index, algorithms: list.length, phase, done, total });
    const entry = info.algorithms.find((a) => a.name === algorithm);
    const params = placedParams(coll, algorithm, base, nodes, shmElements);
    const request = (rank: number) => ({ collective: coll, algorithm, p: np, rank, params });
    const scheduleFor = (rank: number) => args.schedules(request(rank));
    if (args.verify ?? np <= 1024) {
      tell('verify');
      const check = verifyCollective(coll, np, scheduleFor, {
        count: params.count,
        root: params.root,
        inPlace: params.inPlace,
        nodes: params.nodes,
        shmElements: params.shmElements,
        recvCounts: params.recvCounts,
        // The registry's claim holds for ops that are not commutative (builders may reorder the others).
        rankOrdered: entry?.rankOrdered === true && params.commutative === false,
      });
      if (!check.ok) throw new Error(`${coll} ${algorithm} on ${np} ranks is wrong: ${check.error}`);
    }
    let result;
    if (args.nativeBuilders) {
      result = simulateBuilt(request(0), machine, placement, model, blockBytes, args.progress && ((phase, done, total) => tell(phase, done, total)));
    } else {
      tell('timing');
      result = simulate({ p: np, schedules: scheduleFor, machine, placement, model, blockBytes });
    }
    return {
      algorithm,
      model: modelName,
      predicted_us: result.time * 1e6,
      rounds: result.rounds,
      bytes: result.bytes,
      messages: result.messages,
      alcd: result.alcd,
      note: result.note,
    };
  });
}
