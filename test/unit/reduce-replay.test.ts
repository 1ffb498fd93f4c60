// Every reduce, reduce_scatter_block and reduce_scatter algorithm the native build registers,
// built by the addon for every rank and replayed symbolically (src/model/replay.ts): every
// element of the result (the root's vector; each rank's part) must combine every rank's operand
// of that element exactly once, in rank order where the op is not commutative (the engine runs
// such ops only on the registry's rankOrdered algorithms). Every p = 1..64 and a sample above;
// counts 0, 1, below p, 7 and above p; in place and not; reduce at several roots (the first, the
// last, the middle, one that sits out of a fold-in); reduce_scatter with uneven and empty parts.
// Then the steps and volumes the algorithms promise, and the parameters the builders refuse.
import { describe, expect, it } from 'vitest';
import { addon } from '../../src/mpi/native';
import { verifyCollective, type VerifyResult } from '../../src/model/replay';
import { collectiveInfo, type CollectiveName } from '../../src/select/registry';
import type { Schedule, ScheduleParams } from '../../src/select/schedule';

const native = addon();
type Coll = Extract<CollectiveName, 'reduce' | 'reduce_scatter_block' | 'reduce_scatter'>;
const algorithmsOf = (coll: Coll) => collectiveInfo(coll)!.algorithms;
const rankOrdered = (coll: Coll, algorithm: string) => algorithmsOf(coll).find((a) => a.name === algorithm)!.rankOrdered === true;

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const yieldToWorker = () => new Promise((resolve) => setImmediate(resolve));
const SAMPLED = [65, 96, 100, 127, 128, 129, 191, 192, 255, 256, 383, 512];
// pairwise and ring take p-1 steps: p^2 messages, sampled less far.
const sampledFor = (algorithm: string) => (algorithm === 'pairwise' || algorithm === 'ring' ? SAMPLED.filter((p) => p <= 256) : SAMPLED);
const pof2Below = (p: number) => 2 ** Math.floor(Math.log2(p));

function build(coll: Coll, algorithm: string, p: number, params: ScheduleParams): Schedule[] {
  return Array.from({ length: p }, (_, rank) => native.buildSchedule(coll, algorithm, p, rank, params) as Schedule);
}

/** Builds and replays; the result must be the full reduction (in rank order for a non-commutative op). */
function verified(coll: Coll, algorithm: string, p: number, params: ScheduleParams): { result: VerifyResult; schedules: Schedule[] } {
  const schedules = build(coll, algorithm, p, params);
  const ordered = params.commutative === false;
  const result = verifyCollective(coll, p, schedules, { rankOrdered: ordered, recvCounts: params.recvCounts });
  if (!result.ok) throw new Error(`${coll} ${algorithm} p=${p} ${JSON.stringify(params)}: ${result.error}`);
  return { result, schedules };
}

/** Counts 0, 1, below p, 7, and above p but not a multiple of it (uneven blocks). */
const countsFor = (p: number) => [...new Set([0, 1, Math.max(1, p - 1), 7, 2 * p + 3])];

/** Roots: the first, the second, the middle, the last, and (non-power-of-two p) an even one that sits out of the fold-in. */
function rootsFor(p: number): number[] {
  const rem = p - pof2Below(p);
  return [...new Set([0, 1 % p, p >> 1, p - 1, rem > 0 ? 2 * rem - 2 : 0])];
}

/** reduce_scatter parts: even, uneven, some empty, one rank holding all, every one empty but the last. */
function partsFor(p: number, variant: number): number[] {
  switch (variant % 5) {
    case 0: return new Array<number>(p).fill(3);
    case 1: return range(0, p - 1).map((i) => (i * 7) % 5);
    case 2: return range(0, p - 1).map((i) => (i % 3 === 1 ? 0 : i + 1));
    case 3: return range(0, p - 1).map((i) => (i === p >> 1 ? 9 : 0));
    default: return range(0, p - 1).map((i) => (i === p - 1 ? 1 : 0));
  }
}

/** Every case of one p: the collective's parameters, commutative and not (where the algorithm claims rank order). */
function casesFor(coll: Coll, algorithm: string, p: number, sampled: boolean): ScheduleParams[] {
  const commutatives = rankOrdered(coll, algorithm) ? [true, false] : [true];
  const cases: ScheduleParams[] = [];
  for (const inPlace of [false, true]) {
    for (const commutative of commutatives) {
      if (coll === 'reduce') {
        // Every root with two of the counts, in turn: every count meets every kind of root over the p.
        const counts = countsFor(p);
        for (const [k, root] of rootsFor(p).entries()) {
          for (const count of new Set([counts[(k + p) % counts.length], counts[(k + p + 2) % counts.length]])) cases.push({ count, root, inPlace, commutative });
        }
      } else if (coll === 'reduce_scatter_block') {
        for (const count of [0, 1, 2, 7]) cases.push({ count, inPlace, commutative });
      } else {
        for (let variant = 0; variant < 5; variant++) {
          const recvCounts = partsFor(p, variant);
          cases.push({ count: recvCounts.reduce((a, b) => a + b, 0), recvCounts, inPlace, commutative });
        }
      }
    }
  }
  // Above 64 ranks: one case per p in turn, of at most p elements (the replay's terms grow as
  // p x elements x p/32 words).
  const small = cases.filter((c) => (coll === 'reduce_scatter_block' ? p : 1) * c.count! <= p);
  return sampled ? [small[p % small.length]] : cases;
}

const COLLS: Coll[] = ['reduce', 'reduce_scatter_block', 'reduce_scatter'];

describe('reduce and reduce_scatter schedules replay to the full reduction', () => {
  it('the native build registers every algorithm of the registry; which combine in rank order', () => {
    for (const coll of COLLS) expect(native.registeredAlgorithms()[coll]).toEqual(algorithmsOf(coll).map((a) => a.name));
    const ordered = (coll: Coll) => algorithmsOf(coll).filter((a) => a.rankOrdered).map((a) => a.name);
    expect(ordered('reduce')).toEqual(['binomial', 'reduce_scatter_gather', 'hierarchical']);
    expect(ordered('reduce_scatter_block')).toEqual(['pairwise']);
    expect(ordered('reduce_scatter')).toEqual(['pairwise']);
  });

  it.each(
    COLLS.flatMap((coll) =>
      algorithmsOf(coll).flatMap((a) => [
        [coll, a.name, '1..64', range(1, 64)] as const,
        [coll, a.name, sampledFor(a.name).join(', '), sampledFor(a.name)] as const,
      ]),
    ),
  )(
    '%s %s, p = %s, every rank',
    async (coll, algorithm, _label, ps) => {
      let checked = 0;
      for (const p of ps) {
        await yieldToWorker();
        for (const params of casesFor(coll, algorithm, p, p > 64)) {
          verified(coll, algorithm, p, params);
          checked++;
        }
      }
      expect(checked).toBeGreaterThanOrEqual(ps.length);
    },
    120_000,
  );

  it('the algorithms that are not rankOrdered do not combine in rank order (so the engine runs them for commutative ops only)', () => {
    for (const coll of ['reduce_scatter_block', 'reduce_scatter'] as const) {
      for (const algorithm of ['recursive_halving', 'ring']) {
        const params = coll === 'reduce_scatter' ? { count: 10, recvCounts: [1, 2, 3, 4] } : { count: 3 };
        const result = verifyCollective(coll, 4, build(coll, algorithm, 4, params), { rankOrdered: true, recvCounts: params.recvCounts });
        expect(result.ok, `${coll} ${algorithm}`).toBe(false);
        expect(result.error).toMatch(/not combined in rank order/);
      }
    }
    // binomial reduce runs a commutative op on the tree rooted at the root, which is not rank order.
    const result = verifyCollective('reduce', 5, build('reduce', 'binomial', 5, { count: 4, root: 3 }), { rankOrdered: true });
    expect(result.error).toMatch(/not combined in rank order/);
  });
});

/** Elements each rank sends in all. */
function sentPerRank(result: VerifyResult, p: number): number[] {
  const sent = new Array<number>(p).fill(0);
  for (const m of result.messages) sent[m.src] += m.blocks;
  return sent;
}
const roundsOf = (schedules: Schedule[]) => Math.max(...schedules.map((s) => s.rounds.length));
const log2 = (p: number) => Math.ceil(Math.log2(p));

describe('reduce steps and volumes', () => {
  it('binomial: ceil(log p) steps of the whole vector; one more to a root other than 0 for an op that is not commutative', () => {
    for (const p of range(2, 40)) {
      for (const root of rootsFor(p)) {
        for (const commutative of [true, false]) {
          const { result, schedules } = verified('reduce', 'binomial', p, { count: 6, root, commutative });
          const extra = !commutative && root !== 0 ? 1 : 0;
          expect(roundsOf(schedules)).toBe(log2(p) + extra);
          // Each rank sends once, but the tree's root, which sends the result to the root if that is another.
          expect(sentPerRank(result, p)).toEqual(range(0, p - 1).map((r) => (r === root && !extra ? 0 : 6)));
        }
      }
    }
  });

  it('reduce_scatter_gather: on a power of two each rank sends (p-1)/p of the vector in the reduce-scatter, the root receives (p-1)/p in the gather', () => {
    for (const p of [2, 4, 8, 16, 32]) {
      for (const root of [0, 1, p - 1]) {
        const count = 3 * p;
        const { result } = verified('reduce', 'reduce_scatter_gather', p, { count, root });
        const halving = [...result.messages].filter((m) => m.round < Math.log2(p));
        for (const r of range(0, p - 1)) expect(halving.filter((m) => m.src === r).reduce((a, m) => a + m.blocks, 0)).toBe(((p - 1) * count) / p);
        const gathered = [...result.messages].filter((m) => m.dst === root && m.round >= Math.log2(p)).reduce((a, m) => a + m.blocks, 0);
        expect(gathered).toBe(((p - 1) * count) / p);
      }
    }
  });

  it('reduce_scatter_gather: a root that sits out of the fold-in gets the result from the rank that stood in for it', () => {
    // p = 6: q = 4, ranks 0..3 fold in pairs; root 2 hands its operand to 3.
    const { result } = verified('reduce', 'reduce_scatter_gather', 6, { count: 12, root: 2 });
    const toRoot = [...result.messages].filter((m) => m.dst === 2);
    expect(toRoot.map((m) => [m.src, m.blocks])).toEqual([[3, 12]]);
  });
});

describe('reduce_scatter steps and volumes', () => {
  it('recursive_halving: log p steps on a power of two, each rank sending (p-1)/p of the vector', () => {
    for (const p of [2, 4, 8, 16, 32]) {
      const { result, schedules } = verified('reduce_scatter_block', 'recursive_halving', p, { count: 5 });
      expect(roundsOf(schedules)).toBe(Math.log2(p) + 1); // the last round copies my part out
      for (const sent of sentPerRank(result, p)) expect(sent).toBe(5 * (p - 1));
    }
  });

  it('pairwise and ring: p-1 steps, each rank sending every part but its own once', () => {
    for (const algorithm of ['pairwise', 'ring']) {
      for (const p of range(2, 24)) {
        const recvCounts = partsFor(p, 1);
        const total = recvCounts.reduce((a, b) => a + b, 0);
        const { result, schedules } = verified('reduce_scatter', algorithm, p, { count: total, recvCounts });
        expect(roundsOf(schedules)).toBeLessThanOrEqual(p - 1);
        expect(sentPerRank(result, p)).toEqual(recvCounts.map((own) => total - own));
      }
    }
  });

  it('pairwise: at most two parts of scratch, ring two of the longest part', () => {
    const recvCounts = [4, 1, 7, 2, 5];
    for (const inPlace of [false, true]) {
      const pairwise = build('reduce_scatter', 'pairwise', 5, { count: 19, recvCounts, inPlace });
      for (const [r, s] of pairwise.entries()) expect(s.tmpBlocks).toBeLessThanOrEqual(2 * recvCounts[r]);
      const ring = build('reduce_scatter', 'ring', 5, { count: 19, recvCounts, inPlace });
      for (const s of ring) expect(s.tmpBlocks).toBeLessThanOrEqual(14);
    }
  });
});

describe('the builders refuse parameters that describe no call', () => {
  it('reduce_scatter needs recvCounts of p counts adding up to count; the others take none', () => {
    expect(() => native.buildSchedule('reduce_scatter', 'ring', 3, 0, { count: 3 })).toThrow(/reduce_scatter needs recvCounts/);
    expect(() => native.buildSchedule('reduce_scatter', 'ring', 3, 0, { count: 4, recvCounts: [1, 1, 1] })).toThrow(/adding up to count/);
    expect(() => native.buildSchedule('reduce_scatter', 'ring', 3, 0, { count: 3, recvCounts: [1, 2] })).toThrow(/array of 3/);
    expect(() => native.buildSchedule('reduce_scatter_block', 'ring', 3, 0, { count: 1, recvCounts: [1, 1, 1] })).toThrow(/recvCounts is for reduce_scatter/);
    expect(() => native.buildSchedule('reduce', 'binomial', 3, 0, { count: 1, root: 3 })).toThrow(/root = 3 is out of range/);
  });
});
