// The models fed by the real schedule builders (the addon), and the engine's own predictions.
import type { CompiledSchedule, EnginePrediction, PredictionOptions } from '../mpi/addon';
import { addon } from '../mpi/native';
import type { CollectiveName } from '../select/registry';
import type { Schedule, ScheduleParams } from '../select/schedule';

/** What a schedule provider is asked for: the addon's buildSchedule() in production. */
export interface ScheduleRequest {
  readonly collective: CollectiveName;
  readonly algorithm: string;
  readonly p: number;
  readonly rank: number;
  readonly params: ScheduleParams;
}

export type ScheduleProvider = (request: ScheduleRequest) => Schedule | CompiledSchedule;

/** Schedules as objects, from the C++ builders. */
export const nativeSchedules = ({ collective, algorithm, p, rank, params }: ScheduleRequest): Schedule =>
  addon().buildSchedule(collective, algorithm, p, rank, params);

/** The C++ builders' schedules compiled in C++, as the symbolic replay and the timing read them (no op a JS object). */
export const nativeCompiled = ({ collective, algorithm, p, rank, params }: ScheduleRequest): CompiledSchedule =>
  addon().buildCompiled(collective, algorithm, p, rank, params);

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
