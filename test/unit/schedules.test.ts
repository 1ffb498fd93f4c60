// Every classic (non-shm) algorithm the native build registers, built by the addon for every rank
// and replayed symbolically: each rank must end with the collective's result (barrier: must have
// heard from every rank) for every p = 1..64, a sample of p = 65..256 (a different one for each
// algorithm, always with the powers of two and their neighbours) and a handful up to 1024,
// counts 0/1/3, in place and not, and several bcast roots. Plus the step and message counts the
// algorithms promise.
import { describe, expect, it } from 'vitest';
import { addon } from '../../src/mpi/native';
import { MessageLog } from '../../src/model/messages';
import { verifyCollective, type VerifyResult } from '../../src/model/replay';
import { collectiveInfo, PARAMETERS, type CollectiveName } from '../../src/select/registry';
import type { Schedule, ScheduleParams } from '../../src/select/schedule';

const native = addon();
const registered: Record<CollectiveName, string[]> = native.registeredAlgorithms();
const COLLECTIVES: CollectiveName[] = ['allgather', 'bcast', 'barrier', 'alltoall'];
const classic = (coll: CollectiveName) =>
  registered[coll].filter((name) => !collectiveInfo(coll)!.algorithms.find((a) => a.name === name)!.shm);

/** Back to the event loop: synchronous tests back to back would starve the worker's heartbeat. */
const yieldToWorker = () => new Promise((resolve) => setImmediate(resolve));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const SMALL = range(1, 40);
/**
 * Every p up to 64; above, up to 256, a sample: every 7th p from an offset that differs from one
 * algorithm to the next (so that the algorithms together cover most p), and always the powers of
 * two, their neighbours and some multiples of 3 and 5 (the shapes builders special-case); then a
 * handful up to 1024 (alltoall's schedules hold p(p-1) messages, so its handful stops at 512).
 * Building every rank's schedule is what costs (a JS object per op): replaying every p up to 256
 * took 5 minutes on a loaded 2-core machine, this takes a fraction of it.
 */
const EVERY: number[] = range(1, 64);
const ALWAYS = [65, 96, 127, 128, 129, 192, 255, 256];
const sampled = (offset: number) => range(65, 256).filter((p) => (p + offset) % 7 === 0 || ALWAYS.includes(p));
const HANDFUL: Record<CollectiveName, number[]> = { allgather: [383, 511, 512, 1000, 1024], bcast: [383, 511, 512, 1000, 1024], barrier: [383, 511, 512, 1000, 1024], alltoall: [383, 511, 512] };
/** For the step and message counts. */
const STEPS = [...SMALL, 64, 127];
const COUNTS = [0, 1, 3];
const log2floor = (p: number) => Math.floor(Math.log2(p));
const log2ceil = (p: number) => Math.ceil(Math.log2(p));

function build(coll: CollectiveName, algorithm: string, p: number, params: ScheduleParams): Schedule[] {
  return Array.from({ length: p }, (_, rank) => native.buildSchedule(coll, algorithm, p, rank, params) as Schedule);
}

function verified(coll: CollectiveName, algorithm: string, p: number, params: ScheduleParams): { result: VerifyResult; schedules: Schedule[] } {
  const schedules = build(coll, algorithm, p, params);
  // Blocks of zero elements: an algorithm may move nothing at all (the engine never runs it then);
  // if it moves anything, it must move every block where it belongs.
  if (params.count === 0 && schedules.every((s) => s.rounds.length === 0)) {
    return { result: { ok: true, messages: new MessageLog(), rounds: 0 }, schedules };
  }
  const result = verifyCollective(coll, p, schedules);
  if (!result.ok) throw new Error(`${coll} ${algorithm} p=${p} ${JSON.stringify(params)}: ${result.error}`);
  return { result, schedules };
}

/**
 * The cases checked for a collective on p ranks: all of them up to 24 ranks, then (the block
 * algorithms' schedules do not depend on the count) a third of them in turn, and one on large p.
 */
function cases(coll: CollectiveName, p: number): ScheduleParams[] {
  const all = allCases(coll, p);
  if (p <= 24) return all;
  if (p <= 40) return all.filter((_, i) => all.length < 3 || i % 3 === p % 3);
  return [all[(p * 7) % all.length]];
}

function allCases(coll: CollectiveName, p: number): ScheduleParams[] {
  switch (coll) {
    case 'allgather':
    case 'alltoall':
      return COUNTS.flatMap((count) => [false, true].map((inPlace) => ({ count, inPlace })));
    case 'bcast': {
      const roots = [...new Set([0, p - 1, p >> 1])];
      // Counts below, at and above p, and not multiples of it (scatter_allgather's pieces).
      const counts = [...new Set([...COUNTS, 2 * p + 1])];
      return roots.flatMap((root) => counts.map((count) => ({ count, root })));
    }
    case 'barrier':
      return [{}];
  }
}

describe('the native build registers the classic algorithms', () => {
  it.each([
    ['allgather', ['ring', 'recursive_doubling', 'bruck', 'neighbor_exchange']],
    ['bcast', ['binomial', 'scatter_allgather']],
    ['barrier', ['dissemination', 'recursive_doubling']],
    ['alltoall', ['bruck', 'isend_irecv', 'pairwise', 'ring']],
  ] as const)('%s: %j', (coll, names) => {
    for (const name of names) expect(classic(coll)).toContain(name);
  });
});

describe.each(COLLECTIVES)('%s schedules replay correctly', (coll) => {
  const algorithms = classic(coll);
  const groups = (offset: number): [string, number[]][] => {
    const sample = sampled(offset);
    return [['1..64', EVERY], [`65..256 sampled (${sample.length} of 192)`, sample], [HANDFUL[coll].join(', '), HANDFUL[coll]]];
  };
  it.each(algorithms.flatMap((algorithm, i) => groups(i).map(([label, ps]) => [algorithm, label, ps] as const)))(
    '%s, p = %s, every rank',
    async (algorithm, _label, ps) => {
      let checked = 0;
      for (const p of ps) {
        // Back to the event loop between sizes: the worker must answer vitest's heartbeat.
        await yieldToWorker();
        for (const params of cases(coll, p)) {
          verified(coll, algorithm, p, params);
          checked++;
        }
      }
      expect(checked).toBeGreaterThanOrEqual(ps.length);
    },
  );

});

/** The most rounds any rank runs. */
const rounds = (schedules: Schedule[]) => Math.max(...schedules.map((s) => s.rounds.length));

describe('steps and messages', () => {
  it('allgather bruck: ceil(log p) steps, every block received once', () => {
    for (const p of STEPS.filter((p) => p > 1)) {
      const { result, schedules } = verified('allgather', 'bruck', p, { count: 1, inPlace: true });
      expect(rounds(schedules)).toBe(log2ceil(p));
      expect(result.messages.length).toBe(p * log2ceil(p));
      expect(result.messages.totalBlocks()).toBe(p * (p - 1));
    }
  });

  it('allgather neighbor_exchange: p/2 steps for even p, (p+3)/2 for odd p, neighbours only', () => {
    for (const p of STEPS.filter((p) => p > 1)) {
      for (const inPlace of [false, true]) {
        const { result, schedules } = verified('allgather', 'neighbor_exchange', p, { count: 1, inPlace });
        expect(rounds(schedules)).toBe(p % 2 === 0 ? p / 2 : (p + 3) / 2);
        const { src, dst } = result.messages.columns();
        const far = src.filter((s, i) => {
          const d = Math.abs(s - dst[i]);
          return !(d === 1 || d === p - 1 || (p % 2 === 1 && d === p - 2));
        });
        expect(far.length).toBe(0);
      }
    }
  });

  it('allgather recursive_doubling: log p exchanges on powers of two, fold-in (noted) otherwise', () => {
    for (const p of STEPS.filter((p) => p > 1)) {
      const { result, schedules } = verified('allgather', 'recursive_doubling', p, { count: 1, inPlace: true });
      const pow2 = (p & (p - 1)) === 0;
      expect(rounds(schedules)).toBe(pow2 ? Math.log2(p) : log2floor(p) + 2);
      expect(schedules[0].note === '').toBe(pow2);
      // Every rank receives every other block exactly once.
      expect(result.messages.totalBlocks()).toBe(p * (p - 1));
    }
  });

  it('bcast binomial: p-1 messages of the whole vector, depth = the most bits set in a relative rank', () => {
    for (const p of STEPS) {
      const { result } = verified('bcast', 'binomial', p, { count: 5, root: p - 1 });
      expect(result.messages.length).toBe(p - 1);
      expect(result.messages.totalBlocks()).toBe(5 * (p - 1));
      // Tree depth: a rank forwards only what it received, in matching order.
      const depth = new Map<number, number>([[p - 1, 0]]);
      for (const m of result.messages) depth.set(m.dst, depth.get(m.src)! + 1);
      const popcount = (v: number) => v.toString(2).replace(/0/g, '').length;
      expect(Math.max(...depth.values())).toBe(Math.max(...Array.from({ length: p }, (_, v) => popcount(v))));
    }
  });

  it('bcast scatter_allgather: every non-root receives at most about twice the vector', () => {
    for (const p of STEPS.filter((p) => p > 1)) {
      const count = 1000;
      const { result } = verified('bcast', 'scatter_allgather', p, { count, root: 1 % p });
      const received = new Array<number>(p).fill(0);
      for (const m of result.messages) received[m.dst] += m.blocks;
      expect(received[1 % p]).toBe(0);
      const piece = Math.ceil(count / p);
      for (let r = 0; r < p; r++) if (r !== 1 % p) expect(received[r]).toBeLessThanOrEqual(2 * count + piece);
    }
  });

  it('barrier dissemination: ceil(log p) rounds, one message out per round', () => {
    for (const p of STEPS) {
      const { result, schedules } = verified('barrier', 'dissemination', p, {});
      expect(rounds(schedules)).toBe(log2ceil(p));
      expect(result.messages.length).toBe(p * log2ceil(p));
      expect(result.messages.totalBlocks()).toBe(0);
    }
  });

  it('barrier recursive_doubling: log p exchanges, two more rounds on other sizes', () => {
    for (const p of STEPS.filter((p) => p > 1)) {
      const { schedules } = verified('barrier', 'recursive_doubling', p, {});
      const pow2 = (p & (p - 1)) === 0;
      expect(rounds(schedules)).toBe(pow2 ? Math.log2(p) : log2floor(p) + 2);
    }
  });

  it('alltoall: p(p-1) messages of one block (pairwise, ring, isend_irecv), p ceil(log p) for bruck', () => {
    for (const p of [2, 3, 4, 5, 7, 8, 12, 16, 21, 32, 33]) {
      for (const algorithm of ['pairwise', 'ring', 'isend_irecv']) {
        const { result } = verified('alltoall', algorithm, p, { count: 1 });
        expect(result.messages.length).toBe(p * (p - 1));
        expect(result.messages.totalBlocks()).toBe(p * (p - 1));
      }
      const { result, schedules } = verified('alltoall', 'bruck', p, { count: 1, inPlace: true });
      expect(result.messages.length).toBe(p * log2ceil(p));
      expect(rounds(schedules)).toBe(log2ceil(p) + 1);
    }
  });

  it('alltoall pairwise pairs ranks by xor on powers of two', () => {
    const p = 16;
    const { result } = verified('alltoall', 'pairwise', p, { count: 1 });
    for (const m of result.messages) expect(m.src ^ m.dst).toBe(m.round);
    expect(verified('alltoall', 'pairwise', 12, { count: 1 }).schedules[0].note).toMatch(/shift/);
  });

  it('without MPI, builders see the registry defaults (what the engine runs when nothing is set)', () => {
    // TOPOCOLL_ALLTOALL_MAX_OUTSTANDING defaults to 32: all 7 exchanges of 8 ranks in one round.
    const def = Number(PARAMETERS.find((v) => v.env === 'TOPOCOLL_ALLTOALL_MAX_OUTSTANDING')!.default);
    const s = addon().buildSchedule('alltoall', 'isend_irecv', 8, 0, { count: 1 }) as Schedule;
    expect(def).toBe(32);
    expect(s.note).toBe('');
    expect(s.rounds.length).toBe(1);
    expect(s.rounds[0].filter((op) => op.kind === 'send').length).toBe(7);
  });

  it('alltoall isend_irecv keeps at most maxOutstanding requests in flight', () => {
    for (const maxOutstanding of [1, 2, 3, 4, 7, 64]) {
      for (const p of [1, 2, 5, 9, 16, 33]) {
        for (const inPlace of [false, true]) {
          const { schedules } = verified('alltoall', 'isend_irecv', p, { count: 2, inPlace, maxOutstanding });
          for (const s of schedules) {
            for (const round of s.rounds) {
              const requests = round.filter((op) => op.kind === 'send' || op.kind === 'recv').length;
              expect(requests).toBeLessThanOrEqual(Math.max(2, maxOutstanding));
            }
          }
        }
      }
    }
  });
});
