// The Node API's reductions through the engine: one launch per (MPI, p) runs every algorithm of
// allreduce, reduce, reduceScatterBlock and reduceScatter, native and the default selection, over
// ops, element types, counts, in place and not, blocking and nonblocking, checking every result
// element and the argument errors (test/mpi/programs/engine-reductions.js).
import { describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, rankReports, type Flavour } from '../helpers/mpirun';

/** Odd, even and non-power-of-two sizes; MPICH busy-polls, so it stays at 3 ranks on 2 cores. */
const RANKS: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 4, 5, 8], mpich: [1, 2, 3] };

describe.each(FLAVOURS)('reductions of the Node API through the engine (%s)', (flavour) => {
  it.each(RANKS[flavour])('p=%i: every algorithm, op, type, count and mode gives the reduction', async (np) => {
    const run = await mpirun({ flavour, np, args: ['test/mpi/programs/engine-reductions.js'], timeoutMs: 180_000 });
    expectSuccess(run);
    const lines = rankReports<{ rank: number; cases: number; bad: string[] }>(run, np);
    for (const l of lines) {
      expect(l.bad).toEqual([]);
      expect(l.cases).toBeGreaterThan(500);
    }
  });
});
