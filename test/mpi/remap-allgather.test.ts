// The remapped allgathers of seed 004 under mpirun, with virtual nodes imposing even, uneven,
// interleaved and non-contiguous node layouts on one host: byte-correct results in rank order
// on the world, dup'ed and split communicators, from Node and from a C program through the
// preload library; the same pi on every rank.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, repoRoot, type Flavour, mpicc } from '../helpers/mpirun';

const ALGORITHMS = ['bruck_exch', 'bruck_reorder', 'recursive_doubling_exch', 'recursive_doubling_reorder'];
/** TOPOCOLL_VIRTUAL_NODES per job size: none of them is a plain one-rank-per-node layout. */
const LAYOUTS: Record<number, string> = {
  2: '0,0',
  3: '0,1,0',
  4: '0,1,1,0',
  5: '0,1,0,2,1',
  6: 'cyclic:2',
  7: '0,0,1,2,2,2,1',
  8: 'block:2',
};
const SIZES: Record<Flavour, number[]> = { openmpi: [2, 3, 4, 5, 6, 7, 8], mpich: [2, 3] };
const timeoutMs = (flavour: Flavour) => (flavour === 'mpich' ? 120_000 : 60_000);
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-remap-'));

interface RankReport {
  rank: number;
  checks: number;
  bad: string[];
  mappings?: Record<string, { nodes: number[]; pi: number[]; machineLevels: boolean }>;
}

describe.each(FLAVOURS)('remapped allgathers from Node (%s)', (flavour) => {
  it.each(SIZES[flavour])('p = %i: every algorithm, world/dup/split, bytes right', async (np) => {
    const run = await mpirun({
      flavour,
      np,
      args: ['test/mpi/programs/remap-allgather.js'],
      env: { TOPOCOLL_VIRTUAL_NODES: LAYOUTS[np] },
      timeoutMs: timeoutMs(flavour),
    });
    expectSuccess(run);
    const reports: RankReport[] = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(reports.map((r) => r.rank).sort((a, b) => a - b)).toEqual(Array.from({ length: np }, (_, i) => i));
    for (const r of reports) {
      expect(r.bad).toEqual([]);
      expect(r.checks).toBe(3 * ALGORITHMS.length * 10);
    }
    const mappings = reports.find((r) => r.rank === 0)!.mappings!;
    expect(Object.keys(mappings)).toHaveLength(3 * ALGORITHMS.length);
    if (np === 8) {
      // 4 nodes x 2 ranks placed contiguously: Bruck's heaviest edges (distance 4) go inside
      // nodes, so vertices v and v + 4 share a node.
      for (const algorithm of ['bruck_exch', 'bruck_reorder']) {
        const { nodes, pi } = mappings[`world ${algorithm}`];
        expect(nodes).toEqual([0, 0, 1, 1, 2, 2, 3, 3]);
        for (let v = 0; v < 4; v++) expect(nodes[pi[v]], `${algorithm} pi ${pi}`).toBe(nodes[pi[v + 4]]);
      }
    }
  });
});

describe('remapped allgathers with a topology file', () => {
  it('virtual nodes from TOPOCOLL_TOPOLOGY: bytes right; one host, so the nodes alone weigh pi', async () => {
    const topology = path.join(tmp, 'vnodes.json');
    writeFileSync(topology, JSON.stringify({
      levels: [
        { name: 'network', scope: 'system', latency: 1.5e-5, bandwidth: 1.25e8 },
        { name: 'node', scope: 'host', latency: 1e-6, bandwidth: 1e10 },
        { name: 'pair', scope: 'virtual_node', latency: 5e-7, bandwidth: 2e10 },
      ],
      virtual_nodes: '0,1,1,0,2,2',
    }));
    const run = await mpirun({ flavour: FLAVOURS[0], np: 6, args: ['test/mpi/programs/remap-allgather.js'], env: { TOPOCOLL_TOPOLOGY: topology }, timeoutMs: timeoutMs(FLAVOURS[0]) });
    expectSuccess(run);
    const reports: RankReport[] = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    for (const r of reports) expect(r.bad).toEqual([]);
    const world = reports.find((r) => r.rank === 0)!.mappings!['world bruck_reorder'];
    expect(world.nodes).toEqual([0, 1, 1, 0, 2, 2]);
    expect(world.machineLevels).toBe(false);
  });
});

describe.each(FLAVOURS)('remapped allgathers in a C program with the preload library (%s)', (flavour) => {
  let program = '';
  const preload = path.join(repoRoot, 'lib/native', flavour, 'libtopocoll.so');
  const preloadArgs = flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${preload}`] : ['-genv', 'LD_PRELOAD', preload];
  const cases: Array<[number, string]> =
    flavour === 'mpich'
      ? [[3, 'bruck_reorder'], [3, 'recursive_doubling_exch']]
      : [...ALGORITHMS.map((a) => [5, a] as [number, string]), [8, 'bruck_exch'], [8, 'recursive_doubling_reorder'], [7, 'bruck_reorder']];

  beforeAll(() => {
    program = path.join(tmp, `remap-allgather-${flavour}`);
    execFileSync(mpicc(flavour), ['-O1', '-o', program, path.join(repoRoot, 'test/mpi/programs/remap-allgather.c')]);
  });

  it.each(cases)('p = %i, %s: bytes right, every call in the algorithm', async (np, algorithm) => {
    const run = await mpirun({
      flavour,
      np,
      args: [program],
      mpirunArgs: preloadArgs,
      env: { TOPOCOLL_VIRTUAL_NODES: LAYOUTS[np], TOPOCOLL_ALLGATHER_ALGORITHM: algorithm, TOPOCOLL_STATS: '2' },
      timeoutMs: timeoutMs(flavour),
    });
    expectSuccess(run);
    // 3 communicators + 3 dup'ed-and-freed ones, 3 sizes, 4 modes.
    expect(run.stdout.trim().split('\n').sort()).toEqual(Array.from({ length: np }, (_, r) => `ok ${r} 72`).sort());
    for (let r = 0; r < np; r++) expect(run.stderr).toMatch(new RegExp(`rank ${r} allgather +${algorithm} +calls 72 `));
  });
});
