import { describe, expect, it } from 'vitest';
import {
  alcdBruck,
  alcdBruckTable1,
  alcdNeighborExchange,
  alcdOf,
  alcdRecursiveDoubling,
  alcdRing,
  verifyCollective,
} from '../../src/model';
import type { Schedule } from '../../src/select/schedule';
import { bruckAllgather, neighborExchangeAllgather, recursiveDoublingAllgather, ringAllgather } from './model-builders';

/** ALCD of the messages the replayer records for a builder, after checking the schedule is correct. */
function replayedAlcd(p: number, build: (p: number, rank: number) => Schedule): number {
  const r = verifyCollective('allgather', p, (rank) => build(p, rank));
  expect(r.error).toBeUndefined();
  return alcdOf(r.messages);
}

const range = (a: number, b: number, step = 1) => Array.from({ length: Math.floor((b - a) / step) + 1 }, (_, i) => a + i * step);
// Every size while replays are cheap, then a spread up to 1024: odd, 4k, 4k + 2, powers of two
// and their neighbours. (A replay holds p blocks per rank, so it costs O(p^2) at least.)
const SPREAD = [127, 128, 130, 255, 256, 258, 383, 510, 512, 513, 766, 1022, 1023, 1024];
const QUADRATIC_SIZES = [...range(4, 64), ...SPREAD];
const POWERS_OF_TWO = [4, 8, 16, 32, 64, 128, 256, 512, 1024];

describe('ALCD (seed 000 Table 1) against replayed schedules', () => {
  it('ring: 2 - 2/p', () => {
    for (const p of QUADRATIC_SIZES) expect(replayedAlcd(p, ringAllgather)).toBeCloseTo(alcdRing(p), 12);
  });

  it('neighbor exchange, even p: 2 - 2/p (p = 4k) or 2 - 4/p + 4/p^2 (p = 4k + 2)', () => {
    for (const p of QUADRATIC_SIZES.filter((n) => n % 2 === 0)) {
      expect(replayedAlcd(p, neighborExchangeAllgather)).toBeCloseTo(alcdNeighborExchange(p), 12);
    }
    expect(alcdNeighborExchange(8)).toBe(alcdRing(8));
    expect(alcdNeighborExchange(10)).toBeLessThan(alcdRing(10));
    expect(() => alcdNeighborExchange(7)).toThrow(/even p only/);
  });

  it('recursive doubling, power-of-two p: (p - 1) / log p', () => {
    for (const p of POWERS_OF_TWO) expect(replayedAlcd(p, recursiveDoublingAllgather)).toBeCloseTo(alcdRecursiveDoubling(p), 12);
  });

  it('Bruck, p from 4 to 1024', () => {
    for (const p of [...range(4, 160), ...SPREAD]) expect(replayedAlcd(p, bruckAllgather)).toBeCloseTo(alcdBruck(p), 9);
  });

  it("Bruck: Table 1's printed form holds for powers of two only", () => {
    for (const p of POWERS_OF_TWO) {
      expect(alcdBruckTable1(p)).toBeCloseTo(alcdBruck(p), 12);
      // The paper's simplification for p = 2^L.
      expect(alcdBruck(p)).toBeCloseTo((4 * p - 6 + 2 / p) / (3 * Math.log2(p)), 12);
    }
    for (const p of [5, 6, 7, 12, 100, 1000]) {
      // The extra k = ceil(log p) term, 2^(L+1) (p - 2^L) / (pL), is negative when 2^L > p.
      const L = Math.ceil(Math.log2(p));
      expect(alcdBruckTable1(p)).toBeLessThan(replayedAlcd(p, bruckAllgather));
      expect(alcdBruckTable1(p) - alcdBruck(p)).toBeCloseTo((2 * 2 ** L * (p - 2 ** L)) / (p * L), 9);
    }
  });

  it('orders the algorithms as the paper says for even p, from p = 8 on', () => {
    // neighbor exchange <= ring < recursive doubling < Bruck. At p = 4 ring and recursive
    // doubling tie (both 3/2), so the paper's strict inequality needs p >= 8.
    expect(alcdRing(4)).toBe(alcdRecursiveDoubling(4));
    for (const p of POWERS_OF_TWO.filter((n) => n >= 8)) {
      expect(alcdNeighborExchange(p)).toBeLessThanOrEqual(alcdRing(p));
      expect(alcdRing(p)).toBeLessThan(alcdRecursiveDoubling(p));
      expect(alcdRecursiveDoubling(p)).toBeLessThan(alcdBruck(p));
    }
  });
});
