// The binding's structure calls under real mpirun: derived datatypes as [buffer, count, datatype]
// in point-to-point and the block collectives, Cartesian grids (a 2-D halo exchange), distributed
// graphs and neighbour collectives, groups, communicators of groups, names, intercommunicators.
// One launch per (MPI, size) runs test/mpi/programs/binding-structure.mjs, which checks every
// received byte and prints one JSON line per rank.
import { describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, type Flavour } from '../helpers/mpirun';

const SIZES: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 4], mpich: [2, 3] };

interface RankReport {
  rank: number;
  size: number;
  checks: number;
  failures: { name: string; detail?: unknown }[];
}

describe.each(FLAVOURS)('binding structure (%s)', (flavour) => {
  it.each(SIZES[flavour])('datatypes, topologies, groups and intercommunicators deliver the right bytes at np=%i', async (np) => {
    const run = await mpirun({ flavour, np, args: ['test/mpi/programs/binding-structure.mjs'], timeoutMs: 120_000 });
    expectSuccess(run);
    const got = run.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as RankReport)
      .sort((a, b) => a.rank - b.rank);
    expect(got.map((r) => r.rank)).toEqual([...Array(np).keys()]);
    for (const r of got) {
      expect(r.failures, `rank ${r.rank}`).toEqual([]);
      expect(r.size).toBe(np);
      expect(r.checks).toBeGreaterThan(90);
    }
  });
});
