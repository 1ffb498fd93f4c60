// Every allreduce algorithm the native build registers, built by the addon for every rank and
// replayed symbolically (src/model/replay.ts): every element of every rank's result must combine
// every rank's operand of that element exactly once, in rank order for the algorithms that claim
// it (the registry's rankOrdered: they run ops that are not commutative). Every p = 1..64, a
// sample above, counts 0, 1, below p, 7 and above p, in place and not; then the volumes the
// algorithms promise, and schedules the replayer must reject.
import { describe, expect, it } from 'vitest';
import { addon } from '../../src/mpi/native';
import { verifyCollective, type VerifyResult } from '../../src/model/replay';
import { collectiveInfo } from '../../src/select/registry';
import type { Schedule, ScheduleParams } from '../../src/select/schedule';
import { recv, schedule, send, span } from './model-builders';

const native = addon();
const ALGORITHMS = collectiveInfo('allreduce')!.algorithms;
const rankOrdered = (algorithm: string) => ALGORITHMS.find((a) => a.name === algorithm)!.rankOrdered === true;

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const yieldToWorker = () => new Promise((resolve) => setImmediate(resolve));
const SAMPLED = [65, 96, 100, 127, 128, 129, 191, 192, 255, 256, 383, 512];

function build(algorithm: string, p: number, params: ScheduleParams): Schedule[] {
  return Array.from({ length: p }, (_, rank) => native.buildSchedule('allreduce', algorithm, p, rank, params) as Schedule);
}

function verified(algorithm: string, p: number, params: ScheduleParams): { result: VerifyResult; schedules: Schedule[] } {
  const schedules = build(algorithm, p, params);
  const result = verifyCollective('allreduce', p, schedules, { rankOrdered: rankOrdered(algorithm) });
  if (!result.ok) throw new Error(`allreduce ${algorithm} p=${p} ${JSON.stringify(params)}: ${result.error}`);
  return { result, schedules };
}

/** Counts 0, 1, below p, 7, and above p but not a multiple of it (uneven blocks). */
const countsFor = (p: number) => [...new Set([0, 1, Math.max(1, p - 1), 7, 2 * p + 3])];

describe('allreduce schedules replay to the full reduction', () => {
  it('the native build registers every allreduce algorithm of the registry', () => {
    expect(native.registeredAlgorithms().allreduce).toEqual(ALGORITHMS.map((a) => a.name));
    expect(ALGORITHMS.filter((a) => a.rankOrdered).map((a) => a.name)).toEqual(['recursive_doubling', 'reduce_scatter_allgather', 'hierarchical']);
  });

  // ring's schedules hold 2(p-1) rounds per rank: its sample stops at 256 ranks.
  const sampleOf = (algorithm: string) => (algorithm === 'ring' ? SAMPLED.filter((p) => p <= 256) : SAMPLED);
  it.each(ALGORITHMS.flatMap((a) => [[a.name, '1..64', range(1, 64)] as const, [a.name, sampleOf(a.name).join(', '), sampleOf(a.name)] as const]))(
    '%s, p = %s, every rank, counts 0/1/<p/7/>p, in place and not',
    async (algorithm, _label, ps) => {
      let checked = 0;
      for (const p of ps) {
        await yieldToWorker();
        // Above 64 ranks: one count per p in turn (building every rank's schedule is what costs).
        const counts = p <= 64 ? countsFor(p) : [countsFor(p)[p % 5]];
        for (const count of counts) {
          for (const inPlace of [false, true]) {
            verified(algorithm, p, { count, inPlace, commutative: rankOrdered(algorithm) ? p % 2 === 0 : true });
            checked++;
          }
        }
      }
      expect(checked).toBeGreaterThanOrEqual(2 * ps.length);
    },
    120_000,
  );

  it('ring does not combine in rank order (so the engine runs it for commutative ops only)', () => {
    const schedules = build('ring', 5, { count: 10 });
    const result = verifyCollective('allreduce', 5, schedules, { rankOrdered: true });
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/not combined in rank order/);
  });
});

/** Elements each rank sends in all. */
function sentPerRank(result: VerifyResult, p: number): number[] {
  const sent = new Array<number>(p).fill(0);
  for (const m of result.messages) sent[m.src] += m.blocks;
  return sent;
}

describe('allreduce steps and volumes', () => {
  const log2 = (p: number) => Math.floor(Math.log2(p));

  it('recursive_doubling: log p exchanges of the whole vector on powers of two, 2 more rounds (noted) otherwise', () => {
    for (const p of range(2, 40)) {
      const { result, schedules } = verified('recursive_doubling', p, { count: 6 });
      const pow2 = (p & (p - 1)) === 0;
      expect(Math.max(...schedules.map((s) => s.rounds.length))).toBe(pow2 ? log2(p) : log2(p) + 2);
      expect(schedules[0].note === '').toBe(pow2);
      for (const m of result.messages) expect(m.blocks).toBe(6);
    }
  });

  it('reduce_scatter_allgather: each rank of a power-of-two p sends 2(p-1)/p of the vector in 2 log p steps', () => {
    for (const p of [2, 4, 8, 16, 32, 64]) {
      const count = 3 * p;
      const { result, schedules } = verified('reduce_scatter_allgather', p, { count });
      expect(Math.max(...schedules.map((s) => s.rounds.length))).toBe(2 * log2(p));
      for (const sent of sentPerRank(result, p)) expect(sent).toBe((2 * (p - 1) * count) / p);
    }
  });

  it('ring: each rank sends 2(p-1)/p of the vector, for every p', () => {
    for (const p of range(2, 24)) {
      const count = 4 * p;
      const { result } = verified('ring', p, { count });
      for (const sent of sentPerRank(result, p)) expect(sent).toBe((2 * (p - 1) * count) / p);
    }
  });

  it('ring: segments of segmentBlocks elements in both phases, tmp no larger than the segments in flight', () => {
    const p = 4;
    const count = 4 * 10;
    for (const inPlace of [false, true]) {
      const { result, schedules } = verified('ring', p, { count, segmentBlocks: 3, inPlace });
      // A block of 10 elements: segments 3 + 3 + 3 + 1 in each of the 2(p - 1) steps.
      const sizes = [...result.messages].filter((m) => m.src === 0).map((m) => m.blocks);
      expect(sizes).toEqual(Array.from({ length: 2 * (p - 1) }, () => [3, 3, 3, 1]).flat());
      // In place a received segment waits in one of 5 places (the round completing and the 4 the
      // executor may post ahead of it), so that no round posted ahead receives into one still to
      // be combined.
      for (const s of schedules) expect(s.tmpBlocks).toBe(inPlace ? 5 * 3 : 0);
    }
  });
});

describe('multi_leader on nodes', () => {
  // Node of every rank: by slot (runs of k), round robin (--map-by node) or uneven.
  const bySlot = (h: number, k: number) => Array.from({ length: h * k }, (_, r) => Math.floor(r / k));
  const roundRobin = (h: number, k: number) => Array.from({ length: h * k }, (_, r) => r % h);

  it('replays to the full reduction on nodes by slot, round robin and uneven, in place and not', () => {
    const layouts = [bySlot(4, 2), roundRobin(4, 2), bySlot(3, 3), roundRobin(2, 3), bySlot(5, 1), bySlot(1, 4), [0, 0, 0, 1, 1], [0, 1, 0, 1, 1, 2, 2]];
    let checked = 0;
    for (const nodes of layouts) {
      for (const count of [0, 1, nodes.length - 1, 7, 4 * nodes.length + 3]) {
        for (const inPlace of [false, true]) {
          verified('multi_leader', nodes.length, { count, inPlace, nodes, segmentBlocks: 2 });
          checked++;
        }
      }
    }
    expect(checked).toBe(layouts.length * 10);
  });

  it('each link between nodes carries 2(h-1)/h of the vector, the ranks of a node in K lanes', () => {
    for (const [h, k] of [
      [4, 2],
      [3, 3],
      [2, 4],
    ]) {
      const nodes = bySlot(h, k);
      const count = 12 * h * k;
      const { result, schedules } = verified('multi_leader', h * k, { count, nodes });
      const leaving = new Array<number>(h).fill(0);
      for (const m of result.messages) {
        if (nodes[m.src] !== nodes[m.dst]) leaving[nodes[m.src]] += m.blocks;
        // Lanes stay lanes: a message between nodes joins ranks of the same index in their node.
        if (nodes[m.src] !== nodes[m.dst]) expect(m.src % k).toBe(m.dst % k);
      }
      expect(leaving).toEqual(new Array<number>(h).fill((2 * (h - 1) * count) / h));
      for (const s of schedules) expect(s.note).toBe('');
    }
  });

  it('nodes of different sizes run the ring over all ranks (noted)', () => {
    const { schedules } = verified('multi_leader', 5, { count: 20, nodes: [0, 0, 0, 1, 1] });
    expect(schedules[0].note).toMatch(/nodes of different sizes: the ring over all ranks/);
  });
});

describe('the replayer rejects wrong reductions', () => {
  const reduce = (src: ReturnType<typeof span>, dst: ReturnType<typeof span>, order: 'src_first' | 'dst_first' = 'src_first') =>
    ({ kind: 'reduce', src, dst, order }) as const;
  const extra = { count: 2, tmpBlocks: 2, inPlace: true };

  it('a rank that never combines a peer operand', () => {
    const s = (rank: number) =>
      schedule('allreduce', 'test', 2, rank, [[send(1 - rank, span('recv', 0, 2)), recv(1 - rank, span('tmp', 0, 2)), ...(rank === 0 ? [reduce(span('tmp', 0, 2), span('recv', 0, 2))] : [])]], extra);
    const result = verifyCollective('allreduce', 2, s);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/rank 1 recv\[0\] holds element 0 of ranks \{1\}.*1 of 2 operands missing/);
  });

  it("a rank's operand combined twice", () => {
    const s = (rank: number) =>
      schedule('allreduce', 'test', 2, rank, [
        [send(1 - rank, span('recv', 0, 2)), recv(1 - rank, span('tmp', 0, 2)), reduce(span('tmp', 0, 2), span('recv', 0, 2)), reduce(span('tmp', 0, 2), span('recv', 0, 2))],
      ], extra);
    expect(verifyCollective('allreduce', 2, s).error).toMatch(/a rank's operand twice/);
  });

  it('different elements combined', () => {
    const s = (rank: number) =>
      schedule('allreduce', 'test', 2, rank, [[send(1 - rank, span('recv', 0, 2)), recv(1 - rank, span('tmp', 0, 2)), reduce(span('tmp', 0, 1), span('recv', 1, 1))]], extra);
    expect(verifyCollective('allreduce', 2, s).error).toMatch(/different elements/);
  });

  it('the higher rank on the left, where rank order is claimed', () => {
    // Both ranks put the received operand on the left: rank 0 computes r1 op r0.
    const s = (rank: number) =>
      schedule('allreduce', 'test', 2, rank, [[send(1 - rank, span('recv', 0, 2)), recv(1 - rank, span('tmp', 0, 2)), reduce(span('tmp', 0, 2), span('recv', 0, 2))]], extra);
    expect(verifyCollective('allreduce', 2, s).ok).toBe(true);
    expect(verifyCollective('allreduce', 2, s, { rankOrdered: true }).error).toMatch(/rank 0 recv\[0\].*not combined in rank order/);
    const ordered = (rank: number) =>
      schedule('allreduce', 'test', 2, rank, [
        [send(1 - rank, span('recv', 0, 2)), recv(1 - rank, span('tmp', 0, 2)), reduce(span('tmp', 0, 2), span('recv', 0, 2), rank === 0 ? 'dst_first' : 'src_first')],
      ], extra);
    expect(verifyCollective('allreduce', 2, ordered, { rankOrdered: true }).ok).toBe(true);
  });

  it('a reduction cut into units, and a reduce op in a schedule of another collective', () => {
    const cut = (rank: number) => schedule('allreduce', 'test', 1, rank, [], { ...extra, unitsPerBlock: 2 });
    expect(verifyCollective('allreduce', 1, cut).error).toMatch(/a reduction's block is one element/);
    const bcast = (rank: number) => schedule('bcast', 'test', 1, rank, [[reduce(span('recv', 0, 1), span('recv', 1, 1))]], { count: 2 });
    expect(verifyCollective('bcast', 1, bcast).error).toMatch(/a reduce op in a bcast schedule/);
  });
});

describe('the layouts of reduce and the reduce_scatters (hand-built two-rank schedules)', () => {
  const reduce = (src: ReturnType<typeof span>, dst: ReturnType<typeof span>, order: 'src_first' | 'dst_first') => ({ kind: 'reduce', src, dst, order }) as const;
  const copy = (src: ReturnType<typeof span>, dst: ReturnType<typeof span>) => ({ kind: 'copy', src, dst }) as const;
  // Rank r keeps part r: it sends the other part and combines the part it receives, rank 0's operand on the left.
  const scatter = (coll: 'reduce_scatter_block' | 'reduce_scatter', parts: number[], wrongPart = false) => (rank: number) => {
    const at = [0, parts[0]];
    const peer = 1 - rank;
    const mine = span('send', wrongPart && rank === 1 ? at[peer] : at[rank], parts[rank]);
    return schedule(coll, 'test', 2, rank, [[send(peer, span('send', at[peer], parts[peer])), recv(peer, span('tmp', 0, parts[rank])), copy(mine, span('recv', 0, parts[rank])), reduce(span('tmp', 0, parts[rank]), span('recv', 0, parts[rank]), rank === 0 ? 'dst_first' : 'src_first')]], {
      count: coll === 'reduce_scatter_block' ? parts[0] : parts[0] + parts[1],
      tmpBlocks: Math.max(...parts),
    });
  };

  it('reduce_scatter_block: part r of the combined vector on rank r; a rank keeping the wrong part is caught', () => {
    expect(verifyCollective('reduce_scatter_block', 2, scatter('reduce_scatter_block', [2, 2]), { rankOrdered: true }).ok).toBe(true);
    expect(verifyCollective('reduce_scatter_block', 2, scatter('reduce_scatter_block', [2, 2], true)).error).toMatch(/different elements/);
  });

  it('reduce_scatter: parts of recvCounts elements (required)', () => {
    expect(verifyCollective('reduce_scatter', 2, scatter('reduce_scatter', [1, 3]), { recvCounts: [1, 3], rankOrdered: true }).ok).toBe(true);
    expect(verifyCollective('reduce_scatter', 2, scatter('reduce_scatter', [1, 3])).error).toMatch(/needs recvCounts of 2 whole numbers/);
  });

  it('reduce: the result at the root only; the other rank has no receive buffer', () => {
    const toRoot = (rank: number) =>
      schedule('reduce', 'test', 2, rank, rank === 0 ? [[send(1, span('send', 0, 3))]] : [[recv(0, span('tmp', 0, 3)), copy(span('send', 0, 3), span('recv', 0, 3)), reduce(span('tmp', 0, 3), span('recv', 0, 3), 'src_first')]], {
        count: 3,
        root: 1,
        tmpBlocks: rank === 1 ? 3 : 0,
      });
    expect(verifyCollective('reduce', 2, toRoot, { rankOrdered: true }).ok).toBe(true);
    const intoNonRoot = (rank: number) => schedule('reduce', 'test', 2, rank, rank === 0 ? [[recv(1, span('recv', 0, 3))]] : [[send(0, span('send', 0, 3))]], { count: 3, root: 1 });
    expect(verifyCollective('reduce', 2, intoNonRoot).error).toMatch(/exceeds the 0-unit recv buffer/);
  });
});
