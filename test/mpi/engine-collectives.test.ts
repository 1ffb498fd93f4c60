// The classic algorithms under real MPI: one launch per (MPI, p) runs every algorithm of
// allgather, bcast, barrier and alltoall (forced through the run-time override), over 0, 1, 7
// and 100 000 bytes and 13 doubles, in place and not, blocking and nonblocking, bcast from two
// roots, checking every received byte (test/mpi/programs/engine-collectives.js).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, rankReports, type Flavour } from '../helpers/mpirun';

/** Odd, even and non-power-of-two sizes; MPICH busy-polls, so it stays at 3 ranks on 2 cores. */
const RANKS: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 4, 5, 7, 8], mpich: [1, 2, 3] };

const markerRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'topocoll-barrier-'));
afterAll(() => fs.rmSync(markerRoot, { recursive: true, force: true }));

describe.each(FLAVOURS)('classic algorithms through the engine (%s)', (flavour) => {
  it.each(RANKS[flavour])('p=%i: every algorithm, size and mode delivers the right bytes', async (np) => {
    const markers = fs.mkdtempSync(path.join(markerRoot, `${flavour}-${np}-`));
    const run = await mpirun({
      flavour,
      np,
      args: ['test/mpi/programs/engine-collectives.js', markers],
      timeoutMs: flavour === 'mpich' ? 90_000 : 60_000,
    });
    expectSuccess(run);
    const lines = rankReports<{ rank: number; cases: number; bad: string[] }>(run, np);
    for (const l of lines) {
      expect(l.bad).toEqual([]);
      // 4 allgather x 7 sizes x 2 (in place) x 2 (nonblocking), 2 bcast x 7 x 2 roots x 2 (one root
      // when p = 1), 2 barrier x 3 x 2, 4 alltoall x 7 x 2 x 2.
      expect(l.cases).toBe(112 + 28 * (np > 1 ? 2 : 1) + 12 + 112);
    }
  });
});
