// The models fed by the real schedule builders (the addon), and the engine's own predictions.
// Schedules come flattened from C++ (compiledSchedule): a JS object per op would cost minutes
// and gigabytes for a pairwise alltoall on 8192 ranks.
import type { EnginePrediction, NativeTiming, PredictionOptions } from '../mpi/addon';
import { addon } from '../mpi/native';
import type { CollectiveName } from '../select/registry';
import type { Schedule, ScheduleParams } from '../select/schedule';
import type { CompiledRank } from './compiled';
import { meanSwitchWait } from './contention';
import type { ModelName } from './cost';
import { levelForScope, type Machine } from './machine';
import type { Placement } from './placement';

/** What a schedule provider is asked for: the addon's buildSchedule() in production. */
export interface ScheduleRequest {
  readonly collective: CollectiveName;
  readonly algorithm: string;
  readonly p: number;
  readonly rank: number;
  readonly params: ScheduleParams;
}

export type ScheduleProvider = (request: ScheduleRequest) => Schedule;
export type CompiledProvider = (request: ScheduleRequest) => CompiledRank;

/** Schedules as objects, from the C++ builders (for the symbolic replay). */
export const nativeSchedules: ScheduleProvider = ({ collective, algorithm, p, rank, params }) =>
  addon().buildSchedule(collective, algorithm, p, rank, params);

/** Schedules flattened by the addon, for the timing simulator. */
export const nativeCompiledSchedules: CompiledProvider = ({ collective, algorithm, p, rank, params }) => {
  const c = addon().compiledSchedule(collective, algorithm, p, rank, params);
  return {
    rank: c.rank,
    rounds: c.rounds,
    stream: c.stream,
    tmpBlocks: c.tmpBlocks,
    unitsPerBlock: c.unitsPerBlock,
    note: c.note,
    flags: c.flagSlot && c.flagStage ? { slot: c.flagSlot, stage: c.flagStage } : undefined,
  };
};

/** The algorithms of a collective this build has builders for. */
export function registeredAlgorithms(coll: CollectiveName): string[] {
  return addon().registeredAlgorithms()[coll];
}

export interface EngineModelOptions extends PredictionOptions {
  /** Bytes of one block (bcast: one element). */
  blockBytes: number;
}

/**
 * The C++ engine's per-level Hockney predictions (native/engine/model/), as TOPOCOLL_SELECT=model
 * computes them, and the algorithm it would pick (null above its size limit).
 */
export function enginePredictions(
  coll: CollectiveName,
  p: number,
  options: EngineModelOptions,
): { choice: { algorithm: string; reason: string } | null; predictions: EnginePrediction[] } {
  const native = addon();
  native.loadConfig(); // TOPOCOLL_SHM and the other parameters the candidates depend on
  return native.predictAlgorithms(coll, p, options);
}

/**
 * The timing simulation of simulate.ts run by the addon (simulateHockney) for models whose
 * message time and port occupancy are both α + nβ per (level, switch hops), copies and reduce
 * ops priced alike (copyBeta, γ per byte): hockney, and the
 * contention model, whose mean switch wait adds hops x w̄ / k_p to β. Same rules, same result
 * (test/unit/model-native.test.ts compares), an order of magnitude faster at 8192 ranks.
 */
export function nativeTiming(
  request: ScheduleRequest,
  machine: Machine,
  placement: Placement,
  model: ModelName,
  blockBytes: number,
  rho?: number,
  progress?: (phase: 'build' | 'replay', done: number, total: number) => void,
): NativeTiming {
  if (model === 'loggp') throw new Error('the native timing covers the hockney and contention models');
  const net = machine.network;
  const stride = (net?.hops ?? 1) + 1;
  let waitPerByteHop = 0;
  if (model === 'contention') {
    if (!net) throw new Error(`${machine.source}: the contention model needs the network section (switch_radix, hops, clock, packet)`);
    if (rho === undefined) throw new Error('the contention model needs rho');
    waitPerByteHop = meanSwitchWait(rho, net.switchRadix) / net.clockHz / net.packetBytes;
  }
  const entries = machine.levels.length * stride;
  const costs = new Float64Array(2 * entries);
  const usesNic = new Uint8Array(entries);
  const signalAlpha = new Float64Array(entries);
  const exchangeBeta = new Float64Array(entries);
  machine.levels.forEach((level, l) => {
    for (let h = 0; h < stride; h++) {
      const e = l * stride + h;
      costs[2 * e] = level.alpha;
      costs[2 * e + 1] = level.beta + h * waitPerByteHop;
      usesNic[e] = level.usesNic ? 1 : 0;
      signalAlpha[e] = level.signalAlpha;
      exchangeBeta[e] = level.exchangeBeta + h * waitPerByteHop;
    }
  });
  const { collective, algorithm, p, params } = request;
  return addon().simulateHockney(collective, algorithm, p, params, {
    costs,
    usesNic,
    signalAlpha,
    exchangeBeta,
    stride,
    levelByScope: Int32Array.of(levelForScope(machine, 'socket'), levelForScope(machine, 'node'), levelForScope(machine, 'system')),
    node: placement.node,
    socket: placement.socket,
    nic: placement.nic,
    hops: net?.hops ?? 1,
    nodesPerSwitch: net?.nodesPerSwitch ?? 0,
    copyBeta: machine.copyBeta,
    gamma: machine.gamma,
    roundOverhead: machine.roundOverhead,
    blockBytes,
    progress,
  });
}
