// The binding's point-to-point beyond send/recv (matched probes and Messages, buffered and ready
// sends, sendrecvReplace, persistent requests, cancel) and MPI from worker_threads, under real
// mpirun with both MPIs: each program checks the bytes every rank receives and prints one JSON
// line per rank.
import { describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, rankReports, type Flavour, type MpiRun } from '../helpers/mpirun';

// MPICH busy-polls: two ranks on this machine.
const SIZES: Record<Flavour, number[]> = { openmpi: [2, 3], mpich: [2] };

interface RankReport {
  rank: number;
  size: number;
  checks: number;
  failures: { name: string; detail?: unknown }[];
}

function expectEveryRank(run: MpiRun, np: number, minChecks: number): void {
  for (const r of rankReports<RankReport>(run, np)) {
    expect(r.failures, `rank ${r.rank}`).toEqual([]);
    expect(r.size).toBe(np);
    expect(r.checks).toBeGreaterThanOrEqual(minChecks);
  }
}

describe.each(FLAVOURS)('point-to-point and threads (%s)', (flavour) => {
  it.each(SIZES[flavour])('mprobe/Message, bsend/rsend, sendrecvReplace, persistent requests, cancel and datatype specs deliver the right bytes at np=%i', async (np) => {
    const run = await mpirun({ flavour, np, args: ['test/mpi/programs/binding-p2p.mjs'], timeoutMs: 120_000 });
    expectSuccess(run);
    expectEveryRank(run, np, 55);
  });

  it.each(['single', 'multiple'])('worker_threads under thread level %s', async (level) => {
    const run = await mpirun({ flavour, np: 2, args: ['test/mpi/programs/binding-threads.mjs', level], timeoutMs: 120_000 });
    expectSuccess(run);
    expectEveryRank(run, 2, level === 'single' ? 6 : 11);
  });
});
