// Point-to-point cost models, as the simulator is told them. The timing model that prices each
// message with them is the engine's (native/engine/model/hockney.h): per message, how long until
// the receiver has it, and how long it keeps the sender's port (and, between nodes, the shared
// NIC) busy before the next send may start.
import type { Level, Machine } from './machine';
import { meanSwitchWait, type RhoLaw, rhoAt } from './contention';

export type ModelName = 'hockney' | 'loggp' | 'contention';
export const MODEL_NAMES: readonly ModelName[] = ['hockney', 'loggp', 'contention'];

export interface CostModel {
  readonly name: ModelName;
  /** contention: seconds of mean switch wait per byte and switch crossed; 0 for the others. */
  readonly switchWait: number;
}

/**
 * Hockney: α + nβ per message, at the level the message crosses. A port carries one message at
 * a time, start to end: this is the reading under which seed 002's eq. (2), scaled by the
 * processes sharing a NIC, matches its Tables 5-6.
 */
export const hockney: CostModel = { name: 'hockney', switchWait: 0 };

/**
 * LogGP (Alexandrov et al. 1995): L + 2o + (n-1)G end to end, with L + 2o = α and G = β of the
 * level; the sender is busy o + (n-1)G and sends at least g apart, so latencies overlap.
 */
export const logGP: CostModel = { name: 'loggp', switchWait: 0 };

/**
 * Seed 002's contention model: Hockney plus, for every packet, a mean M/G/1 wait w̄ at each
 * switch crossed: (n / k_p) x n_hop x w̄ x t_c. `rho` is the per-cycle packet arrival
 * probability at a switch input (see contention.ts for how it is obtained).
 */
export function contentionModel(machine: Machine, rho: number): CostModel {
  const net = machine.network;
  if (!net) throw new Error(`${machine.source}: the contention model needs the network section (switch_radix, hops, clock, packet)`);
  return { name: 'contention', switchWait: meanSwitchWait(rho, net.switchRadix) / net.clockHz / net.packetBytes };
}

export interface ModelOptions {
  /** Contention model: ρ, or a law giving ρ for the communicator size. */
  rho?: number | RhoLaw;
  /** Communicator size, to evaluate a ρ law. */
  p?: number;
}

export function costModel(name: ModelName, machine: Machine, options: ModelOptions = {}): CostModel {
  switch (name) {
    case 'hockney':
      return hockney;
    case 'loggp':
      return logGP;
    case 'contention': {
      const { rho, p } = options;
      if (rho === undefined) throw new Error('the contention model needs rho (a number in [0, 1), or a calibrated law)');
      if (typeof rho === 'number') return contentionModel(machine, rho);
      if (p === undefined) throw new Error('a rho law needs the communicator size');
      return contentionModel(machine, rhoAt(rho, p));
    }
    default:
      throw new Error(`unknown model '${String(name)}' (valid: ${MODEL_NAMES.join(', ')})`);
  }
}

/** Hockney closed forms of the allgather algorithms of seed 000 (n bytes per block, one level). */
export function hockneyAllgather(algorithm: 'ring' | 'recursive_doubling' | 'bruck' | 'neighbor_exchange', p: number, n: number, level: Level): number {
  const { alpha, beta } = level;
  const lg = Math.ceil(Math.log2(p));
  switch (algorithm) {
    case 'ring':
      return (p - 1) * (alpha + n * beta);
    case 'recursive_doubling':
    case 'bruck':
      return lg * alpha + (p - 1) * n * beta;
    case 'neighbor_exchange':
      // Step 1 moves one block, the other p/2 - 1 steps two.
      return (p / 2) * alpha + (p - 1) * n * beta;
  }
}
