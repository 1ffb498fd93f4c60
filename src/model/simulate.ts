// Timing simulation: every rank's schedule replayed while a cost model prices each message at the
// level it crosses (from the placement); the prediction is the time the slowest rank finishes.
// The model and its timing rules are the engine's (native/engine/model/hockney.h, the one
// implementation, which TOPOCOLL_SELECT=model also runs): the addon runs it here, over the
// builders' schedules built in C++ (simulateBuilt) or over schedules given (simulate: the tests'
// reference builders, compiled by the engine). A pairwise alltoall on 8192 ranks (67 M messages)
// never exists as JS objects: the addon packs each rank's schedule as it is built.
import type { CompiledRank, SimulatedMachine, SimulationTiming } from '../mpi/addon';
import { addon } from '../mpi/native';
import type { CostModel } from './cost';
import { levelForScope, type Machine } from './machine';
import type { ScheduleRequest } from './native';
import type { Placement } from './placement';
import { compiledRank, scheduleOf, ScheduleError, type ScheduleSource } from './replay';

export interface SimulationInput {
  readonly p: number;
  /** Every rank's schedule. */
  readonly schedules: ScheduleSource;
  readonly machine: Machine;
  readonly placement: Placement;
  readonly model: CostModel;
  /** Bytes of one block: allgather/alltoall, one rank's block; bcast, one element. */
  readonly blockBytes: number;
}

export interface SimulationResult {
  /** Seconds until the slowest rank finishes. */
  readonly time: number;
  /** The longest schedule, in rounds. */
  readonly rounds: number;
  readonly messages: number;
  /** Bytes on the wire, all messages together. */
  readonly bytes: number;
  /** Average logical communication distance of the messages (seed 000). */
  readonly alcd: number;
  /** A fallback the algorithm took (rank 0's schedule's note). */
  readonly note: string;
}

/** The machine as the addon's timing takes it: its levels, and where every rank runs. */
function simulatedMachine(machine: Machine, placement: Placement): SimulatedMachine {
  const net = machine.network;
  return {
    levels: machine.levels,
    levelByScope: Int32Array.of(levelForScope(machine, 'socket'), levelForScope(machine, 'node'), levelForScope(machine, 'system')),
    node: placement.node,
    socket: placement.socket,
    nic: placement.nic,
    // Without a network section, a message between nodes crosses one switch.
    hops: net?.hops ?? 1,
    nodesPerSwitch: net?.nodesPerSwitch ?? 0,
    copyBeta: machine.copyBeta,
    gamma: machine.gamma,
    roundOverhead: machine.roundOverhead,
  };
}

function timingOf(model: CostModel, blockBytes: number, progress?: SimulationTiming['progress']): SimulationTiming {
  return { model: model.name, switchWait: model.switchWait, blockBytes, progress };
}

function resultOf(t: { seconds: number; rounds: number; messages: number; bytes: number; alcd: number; note: string }): SimulationResult {
  return { time: t.seconds, rounds: t.rounds, messages: t.messages, bytes: t.bytes, alcd: t.alcd, note: t.note };
}

function checkPlacement(p: number, placement: Placement): void {
  if (placement.node.length !== p) throw new RangeError(`placement covers ${placement.node.length} ranks, not ${p}`);
}

/** Predicts the time of a collective from schedules given. Throws ScheduleError if they deadlock. */
export function simulate(input: SimulationInput): SimulationResult {
  const { p, machine, placement, model, blockBytes } = input;
  checkPlacement(p, placement);
  const ranks: CompiledRank[] = new Array(p);
  let note = '';
  for (let r = 0; r < p; r++) {
    const schedule = scheduleOf(input.schedules, r);
    if (r === 0) note = schedule.note ?? '';
    ranks[r] = compiledRank(schedule, p, false);
  }
  try {
    return { ...resultOf(addon().simulateCompiled(ranks, simulatedMachine(machine, placement), timingOf(model, blockBytes))), note };
  } catch (err) {
    // The replay's deadlocks and size mismatches; the addon's argument checks are TypeErrors.
    if (err instanceof RangeError) throw new ScheduleError(err.message);
    throw err;
  }
}

/**
 * Predicts the time of a collective from the C++ builders' schedules (the request's, every rank),
 * built and replayed in the addon. Throws a RangeError naming the algorithm if they deadlock.
 */
export function simulateBuilt(
  request: Omit<ScheduleRequest, 'rank'>,
  machine: Machine,
  placement: Placement,
  model: CostModel,
  blockBytes: number,
  progress?: SimulationTiming['progress'],
): SimulationResult {
  const { collective, algorithm, p, params } = request;
  checkPlacement(p, placement);
  return resultOf(addon().simulateSchedules(collective, algorithm, p, params, simulatedMachine(machine, placement), timingOf(model, blockBytes, progress)));
}
