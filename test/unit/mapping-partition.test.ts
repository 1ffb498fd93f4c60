// The rank-mapping core of seed 004 through the addon: information graphs (closed forms agree
// with the schedules), the partitioner (exact part sizes, cut never worse than simple
// placements, determinism, speed), pi; and the standalone C++ tests of test/native.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyCollective } from '../../src/model/replay';
import { addon } from '../../src/mpi/native';
import { spawnAsync } from '../helpers/spawn';
import {
  allgatherRankMapping,
  cutWeight,
  informationGraph,
  machineCost,
  partitionGraph,
  rankMapping,
  type InformationGraph,
  type MachineLevels,
} from '../../src/mpi/mapping';

const native = addon();
const repoRoot = path.resolve(__dirname, '..', '..');

/** Pair weights of a CSR graph, keyed "u,v" with u < v; checks that both rows agree. */
function pairWeights(g: InformationGraph): Map<string, number> {
  const out = new Map<string, number>();
  for (let u = 0; u < g.n; u++) {
    for (let e = g.xadj[u]; e < g.xadj[u + 1]; e++) {
      const v = g.adjncy[e];
      const key = u < v ? `${u},${v}` : `${v},${u}`;
      if (u < v) out.set(key, g.adjwgt[e]);
      else expect(out.get(key), `edge ${key} in both rows`).toBe(g.adjwgt[e]);
    }
  }
  return out;
}

/** The same from the replayed schedules of all ranks. */
function replayedPairWeights(algorithm: string, p: number, blockBytes: number): Map<string, number> {
  const r = verifyCollective('allgather', p, (rank) => native.buildSchedule('allgather', algorithm, p, rank, {}));
  expect(r.ok).toBe(true);
  const out = new Map<string, number>();
  for (const m of r.messages) {
    if (m.src === m.dst) continue;
    const key = m.src < m.dst ? `${m.src},${m.dst}` : `${m.dst},${m.src}`;
    out.set(key, (out.get(key) ?? 0) + m.blocks * blockBytes);
  }
  return out;
}

function counts(part: ArrayLike<number>, h: number): number[] {
  const c = new Array(h).fill(0);
  for (let i = 0; i < part.length; i++) c[part[i]]++;
  return c;
}

const contiguous = (sizes: number[]) => sizes.flatMap((s, u) => new Array(s).fill(u));
const roundRobin = (n: number, h: number) => Array.from({ length: n }, (_, v) => v % h);

describe('information graphs', () => {
  it.each(Array.from({ length: 40 }, (_, i) => i + 1))('bruck, p=%i: closed form = the schedules\' messages', (p) => {
    const g = informationGraph('allgather', 'bruck', p, { blockBytes: 3 });
    expect(pairWeights(g)).toEqual(replayedPairWeights('bruck', p, 3));
  });

  it.each([2, 4, 8, 16, 32, 64])('recursive doubling, p=%i: closed form = the schedules\' messages', (p) => {
    expect(pairWeights(informationGraph('allgather', 'recursive_doubling', p, { blockBytes: 5 }))).toEqual(
      replayedPairWeights('recursive_doubling', p, 5),
    );
  });

  it('any registered schedule: ring, neighbor exchange, recursive doubling on other p', () => {
    for (const [algorithm, p] of [['ring', 7], ['neighbor_exchange', 10], ['recursive_doubling', 12], ['bruck_exch', 9]] as const) {
      expect(pairWeights(informationGraph('allgather', algorithm, p, { blockBytes: 2 }))).toEqual(replayedPairWeights(algorithm, p, 2));
    }
    // Other collectives too (bcast: a block is one element).
    const bcast = informationGraph('bcast', 'binomial', 8, { count: 4, blockBytes: 1 });
    expect(bcast.n).toBe(8);
    expect([...bcast.adjwgt].reduce((a, b) => a + b, 0) / 2).toBe(7 * 4);
  });

  it('seed 004 example: bruck n = 8 into 2 nodes of 4 puts ranks 0, 2, 4, 6 together', () => {
    const g = informationGraph('allgather', 'bruck', 8);
    const part = partitionGraph(g, [4, 4]);
    const side = (v: number) => part[v] === part[0];
    expect([0, 2, 4, 6].every(side)).toBe(true);
    expect([1, 3, 5, 7].some(side)).toBe(false);
  });

  it('bad input names the argument', () => {
    expect(() => informationGraph('allgather', 'nope', 4)).toThrow(/unknown allgather algorithm nope/);
    const g = informationGraph('allgather', 'bruck', 8);
    expect(() => partitionGraph(g, [4, 3])).toThrow(/sum to 7 but the graph has 8/);
    expect(() => partitionGraph({ ...g, adjncy: g.adjncy.map(() => 0) }, [4, 4])).toThrow(/validateGraph/);
  });
});

describe('partitioner', () => {
  it('exact part sizes and a cut never worse than contiguous or round-robin placement', () => {
    let seed = 11;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    for (const algorithm of ['bruck', 'recursive_doubling', 'ring', 'neighbor_exchange']) {
      for (const [per, h] of [[2, 4], [3, 5], [4, 8], [8, 8], [6, 16], [16, 4]]) {
        const n = per * h;
        const g = informationGraph('allgather', algorithm, n);
        const sizes = new Array(h).fill(per);
        const part = partitionGraph(g, sizes);
        expect(counts(part, h)).toEqual(sizes);
        const cut = cutWeight(g, part);
        expect(cut, `${algorithm} ${h} x ${per}`).toBeLessThanOrEqual(cutWeight(g, contiguous(sizes)));
        expect(cut, `${algorithm} ${h} x ${per}`).toBeLessThanOrEqual(cutWeight(g, roundRobin(n, h)));
      }
      // Uneven sizes.
      for (let trial = 0; trial < 6; trial++) {
        const h = 2 + rand(6);
        const sizes = Array.from({ length: h }, () => 1 + rand(9));
        const n = sizes.reduce((a, b) => a + b, 0);
        const g = informationGraph('allgather', algorithm, n);
        const part = partitionGraph(g, sizes);
        expect(counts(part, h)).toEqual(sizes);
        expect(cutWeight(g, part)).toBeLessThanOrEqual(cutWeight(g, contiguous(sizes)));
      }
    }
  });

  it('pi: a permutation onto the nodes, never worse than the identity placement, deterministic', () => {
    for (const nodes of [
      [0, 1, 0, 2, 1],
      [0, 0, 1, 1, 2, 2, 3, 3],
      [0, 0, 0, 1, 1, 2, 3, 3, 3, 3, 1, 0, 2],
      Array.from({ length: 64 }, (_, r) => Math.floor(r / 8)),
    ]) {
      const p = nodes.length;
      const g = informationGraph('allgather', 'bruck', p);
      const m = rankMapping(g, nodes);
      expect([...m.pi].sort((a, b) => a - b)).toEqual(Array.from({ length: p }, (_, i) => i));
      for (let r = 0; r < p; r++) expect(m.pi[m.piInv[r]]).toBe(r);
      const placed = Array.from(m.pi, (r) => nodes[r]);
      expect(cutWeight(g, placed)).toBeLessThanOrEqual(cutWeight(g, nodes));
      expect(rankMapping(g, nodes)).toEqual(m);
    }
  });

  it('pi is never worse than the blocked or cyclic placement, even where the raw partition is', () => {
    // Power-of-two recursive doubling into many parts: the raw partition can miss the stride
    // structure by a little; the mapping keeps the cheapest candidate.
    for (const [n, h] of [[4096, 256], [2048, 512], [96, 8], [384, 32]]) {
      const g = informationGraph('allgather', 'recursive_doubling', n);
      const per = n / h;
      const nodes = Array.from({ length: n }, (_, r) => Math.floor(r / per));
      const placed = Array.from(rankMapping(g, nodes).pi, (r) => nodes[r]);
      expect(counts(placed, h).every((c) => c === per)).toBe(true);
      const cut = cutWeight(g, placed);
      expect(cut, `n=${n} h=${h}`).toBeLessThanOrEqual(cutWeight(g, roundRobin(n, h)));
      expect(cut, `n=${n} h=${h}`).toBeLessThanOrEqual(cutWeight(g, nodes));
    }
  });

  it('with machine levels (racks of nodes), pi minimises F over every level', () => {
    // 8 nodes of 4 ranks in 2 racks of 4 nodes, even and odd nodes (the flat partition, blind to
    // racks, splits nodes 0-3 from 4-7 first); links: 1 between racks, 10 in a rack, 100 in a node.
    const nodes = Array.from({ length: 32 }, (_, r) => Math.floor(r / 4));
    const machine: MachineLevels = {
      modules: [new Array(8).fill(0), [0, 1, 0, 1, 0, 1, 0, 1], [0, 1, 2, 3, 4, 5, 6, 7]],
      bandwidths: [1, 10, 100],
    };
    const g = informationGraph('allgather', 'bruck', 32);
    const placed = (m: { pi: Int32Array }) => Array.from(m.pi, (r) => nodes[r]);
    const levels = allgatherRankMapping('bruck_reorder', nodes, machine);
    const flat = allgatherRankMapping('bruck_reorder', nodes);
    const rack = (part: number[]) => part.map((q) => machine.modules[1][q]);
    const f = machineCost(g, placed(levels), machine);
    expect(f).toBeLessThan(machineCost(g, nodes, machine));
    expect(f).toBeLessThan(machineCost(g, placed(flat), machine) / 2);
    // The slowest level first: bytes between racks are those of the best 2-way split into 16 + 16.
    expect(cutWeight(g, rack(placed(levels)))).toBe(cutWeight(g, partitionGraph(g, [16, 16])));
    // F on one level is the cut divided by its bandwidth.
    const one: MachineLevels = { modules: [new Array(8).fill(0), [0, 1, 2, 3, 4, 5, 6, 7]], bandwidths: [4, 100] };
    expect(machineCost(g, placed(flat), one)).toBe(cutWeight(g, placed(flat)) / 4);
    expect(() => allgatherRankMapping('bruck_reorder', nodes, { modules: [[0, 0]], bandwidths: [1] })).toThrow(/names the modules of 2 nodes, not 8/);
  });

  it('deterministic across runs and thread counts', () => {
    const g = informationGraph('allgather', 'bruck', 32768);
    const sizes = new Array(1024).fill(32);
    const a = partitionGraph(g, sizes);
    expect(partitionGraph(g, sizes)).toEqual(a);
    expect(partitionGraph(g, sizes, { threads: 2 })).toEqual(a);
  });

  it('Bruck, n = 65536 into 8192 nodes of 8: exact sizes, cut of the stride placement', () => {
    const t0 = performance.now();
    const g = informationGraph('allgather', 'bruck', 65536);
    const part = partitionGraph(g, new Array(8192).fill(8));
    const seconds = (performance.now() - t0) / 1000;
    expect(counts(part, 8192).every((c) => c === 8)).toBe(true);
    const cut = cutWeight(g, part);
    // Far below contiguous blocks of 8 (the identity placement).
    expect(cut).toBeLessThan(cutWeight(g, contiguous(new Array(8192).fill(8))) / 2);
    // Seed 004 took 32.73 s for 16x this graph; timed for the log, not asserted (see bench/native).
    console.log(`partition: Bruck n = 65536 into 8192 parts in ${seconds.toFixed(2)} s`);
  });
});

describe('standalone C++ tests (test/native)', () => {
  it('build and pass', async () => {
    const r = await spawnAsync('sh', [path.join(repoRoot, 'test/native/build.sh'), '--no-bench'], { cwd: repoRoot });
    expect(r.stderr + r.stdout).toMatch(/15 passed, 0 failed/);
    expect(r.stderr + r.stdout).toMatch(/^5 passed, 0 failed$/m); // json_test
    expect(r.stderr + r.stdout).toMatch(/^9 passed, 0 failed$/m); // rules_test
    expect(r.stderr + r.stdout).toMatch(/^7 passed, 0 failed$/m); // config_test
    expect(r.status).toBe(0);
  }, 240_000);
});
