// Average logical communication distance (seed 000 §4): D = Σ|i - j| over all point-to-point
// messages of an algorithm / the number of messages. With ranks numbered along the machine, a
// small D means neighbour traffic; the paper ties it to neighbor exchange beating Bruck on long
// messages over Fast Ethernet.
import type { MessageLog } from './messages';

/** D of the messages a replay recorded; 0 when there were none. */
export function alcdOf(messages: MessageLog): number {
  const { src, dst } = messages.columns();
  let sum = 0;
  for (let i = 0; i < src.length; i++) sum += Math.abs(src[i] - dst[i]);
  return src.length === 0 ? 0 : sum / src.length;
}

/** Ring: p - 1 messages of distance 1 and one of p - 1 per step. */
export function alcdRing(p: number): number {
  return 2 - 2 / p;
}

/** Neighbor exchange, even p (seed 000 Table 1); the paper gives no closed form for odd p. */
export function alcdNeighborExchange(p: number): number {
  if (p % 2 !== 0) throw new RangeError(`neighbor exchange has a closed-form ALCD for even p only, got ${p}`);
  return p % 4 === 0 ? 2 - 2 / p : 2 - 4 / p + 4 / (p * p);
}

/** Recursive doubling, power-of-two p: step i has p messages of distance 2^(i-1). */
export function alcdRecursiveDoubling(p: number): number {
  if (p < 2 || (p & (p - 1)) !== 0) throw new RangeError(`recursive doubling has a closed-form ALCD for powers of two, got ${p}`);
  return (p - 1) / Math.log2(p);
}

/**
 * Bruck, every p ≥ 2: at step k (0 ≤ k < L = ⌈log p⌉), p - 2^k ranks send at distance 2^k and
 * 2^k ranks wrap around at distance p - 2^k, so
 *     D = [2p(2^L - 1) - (2/3)(4^L - 1)] / (p L).
 */
export function alcdBruck(p: number): number {
  if (p < 2) throw new RangeError(`Bruck ALCD needs p >= 2, got ${p}`);
  const L = Math.ceil(Math.log2(p));
  return (2 * p * (2 ** L - 1) - (2 / 3) * (4 ** L - 1)) / (p * L);
}

/**
 * Bruck as printed in seed 000 Table 1: the sums run to k = ⌈log p⌉ inclusive. The extra term
 * 2·2^L(p - 2^L) vanishes when p is a power of two, where this equals alcdBruck (and the
 * paper's simplified (4p - 6 + 2/p) / (3 log p)); for other p it is negative and the printed
 * formula undercounts. Kept to document the discrepancy.
 */
export function alcdBruckTable1(p: number): number {
  const L = Math.ceil(Math.log2(p));
  return (2 * p * (2 ** (L + 1) - 1) - (2 / 3) * (4 ** (L + 1) - 1)) / (p * L);
}
