// Buffer reductions with ops that run in JS (src/mpi/user-op.ts): a matrix product that is not
// commutative, MINLOC and MAXLOC, through every reduction, blocking and nonblocking, checked
// element by element against rank-order products (test/mpi/programs/user-ops.js).
import { describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, rankReports, type Flavour } from '../helpers/mpirun';

const RANKS: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 5], mpich: [1, 2] };

describe.each(FLAVOURS)('reductions with JS ops on buffers (%s)', (flavour) => {
  it.each(RANKS[flavour])('p=%i: rank order, every reduction and mode, the arguments refused', async (np) => {
    const run = await mpirun({ flavour, np, args: ['test/mpi/programs/user-ops.js'], timeoutMs: 120_000 });
    expectSuccess(run);
    for (const l of rankReports<{ rank: number; cases: number; bad: string[] }>(run, np)) {
      expect(l.bad).toEqual([]);
      expect(l.cases).toBe(3 * 9 + (np > 1 ? 10 : 8)); // 9 results per mode (a reduce at its root), the refusals (two need p > 1)
    }
  });
});
