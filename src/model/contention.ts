// Seed 002 (Luo, Zhang, Wei 2018): alltoall cost with network contention.
//
// Each k x k switch output port is a FIFO queue; in every cycle each input receives a packet
// with probability ρ, bound for a uniformly random output. Arrivals at one output are then
// Binomial(k, ρ/k): E = ρ, V = ρ(1 - ρ/k), and the M/G/1 mean wait is (eq. 3)
//     w̄ = V / (2E(1 - E)) - 1/2 = (1 - 1/k) ρ / (2 (1 - ρ))      [clock cycles]
// A message of n bytes is n / k_p packets, each waiting w̄ at each of n_hop switches (eq. 4):
//     T = (p - 1) (α + nβ + (n / k_p) n_hop w̄ t_c)
// Here k is the switch radix and n the block size: the paper writes k for both.
//
// How ρ is obtained: the paper only says it is "converted from the data volume" and prints no
// formula. Solving its Tables 5-6 for ρ gives two-decimal values (0.59 ... 0.97) chosen per row,
// i.e. fitted to the measurements. We fit instead a law ρ(p) = 1 - (1 - ρ0) (p / p0)^-γ on a
// few small runs (512 and 1024 processes) and predict larger ones; docs/models.md compares.
import type { Machine } from './machine';
import { networkLevel } from './machine';

/** Mean wait in clock cycles at a k x k switch output with input load ρ (seed 002 eq. 3). */
export function meanSwitchWait(rho: number, radix: number): number {
  if (!(rho >= 0 && rho < 1)) throw new RangeError(`rho must be in [0, 1), got ${rho}`);
  return ((1 - 1 / radix) * rho) / (2 * (1 - rho));
}

/** The ρ at which the mean wait is `wait` cycles (the inverse of meanSwitchWait). */
export function rhoForWait(wait: number, radix: number): number {
  const x = wait / ((1 - 1 / radix) / 2); // = ρ / (1 - ρ)
  return x / (1 + x);
}

/** ρ(p) = 1 - (1 - rho0) (p / p0)^-gamma: load approaching saturation as a power of the size. */
export interface RhoLaw {
  readonly p0: number;
  readonly rho0: number;
  readonly gamma: number;
}

export function rhoAt(law: RhoLaw, p: number): number {
  return 1 - (1 - law.rho0) * Math.pow(p / law.p0, -law.gamma);
}

/** Least squares of ln(1 - ρ) on ln p; two points give the exact law through both. */
export function fitRhoLaw(points: readonly { p: number; rho: number }[]): RhoLaw {
  if (points.length < 2) throw new RangeError('fitting a rho law needs at least two points');
  const xs = points.map((pt) => Math.log(pt.p));
  const ys = points.map((pt) => {
    if (!(pt.rho >= 0 && pt.rho < 1)) throw new RangeError(`rho must be in [0, 1), got ${pt.rho} at p=${pt.p}`);
    return Math.log(1 - pt.rho);
  });
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  if (sxx === 0) throw new RangeError('fitting a rho law needs points at two different sizes');
  const slope = sxy / sxx;
  const p0 = Math.min(...points.map((pt) => pt.p));
  return { p0, rho0: 1 - Math.exp(my + slope * (Math.log(p0) - mx)), gamma: -slope };
}

/** An alltoall of p processes, `blockBytes` per destination, `ppn` processes per node. */
export interface AlltoallCase {
  readonly p: number;
  readonly blockBytes: number;
  readonly ppn: number;
}

/**
 * Processes sharing one network port. Seed 002 §4.2 "accounts for the per-port data of 8 and 12
 * processes per node": its Tables 5-6 equal the equations times ppn (one port per node).
 */
function nicShare(machine: Machine, ppn: number): number {
  return Math.max(1, ppn / machine.node.nics);
}

/** Eq. (1), Bruck (short messages): lg p α + ½ lg p (p - 1) n β, per sharing process. */
export function alltoallBruckTime(machine: Machine, c: AlltoallCase): number {
  const { alpha, beta } = networkLevel(machine);
  const lg = Math.log2(c.p);
  return nicShare(machine, c.ppn) * (lg * alpha + 0.5 * lg * (c.p - 1) * c.blockBytes * beta);
}

/** Eq. (2), pairwise/shift (long messages): (p - 1)(α + nβ), per sharing process: the "old model". */
export function alltoallLongTime(machine: Machine, c: AlltoallCase): number {
  const { alpha, beta } = networkLevel(machine);
  return nicShare(machine, c.ppn) * (c.p - 1) * (alpha + c.blockBytes * beta);
}

function networkOf(machine: Machine) {
  const net = machine.network;
  if (!net) throw new Error(`${machine.source}: the contention model needs the network section (switch_radix, hops, clock, packet)`);
  return net;
}

/** Seconds of switch waiting per byte at load ρ over the machine's hops: (1 / k_p) n_hop w̄ t_c. */
function waitPerByte(machine: Machine, rho: number): number {
  const net = networkOf(machine);
  return (net.hops * meanSwitchWait(rho, net.switchRadix)) / net.clockHz / net.packetBytes;
}

/** Eq. (4): the long-message alltoall with contention at load ρ: the "new model". */
export function alltoallContentionTime(machine: Machine, c: AlltoallCase, rho: number): number {
  const { alpha, beta } = networkLevel(machine);
  const n = c.blockBytes;
  return nicShare(machine, c.ppn) * (c.p - 1) * (alpha + n * beta + n * waitPerByte(machine, rho));
}

/**
 * The ρ at which eq. (4) gives `seconds`: what a measurement says about the load. 0 when the
 * measurement is no slower than the contention-free eq. (2).
 */
export function rhoFromAlltoallTime(machine: Machine, c: AlltoallCase, seconds: number): number {
  const net = networkOf(machine);
  const { alpha, beta } = networkLevel(machine);
  const perStep = seconds / ((c.p - 1) * nicShare(machine, c.ppn));
  const contention = perStep - alpha - c.blockBytes * beta;
  if (contention <= 0) return 0;
  const waitCycles = (contention * net.clockHz * net.packetBytes) / (c.blockBytes * net.hops);
  return rhoForWait(waitCycles, net.switchRadix);
}
