// Shared by the preload tests (test/mpi/preload-*.test.ts): where the library is, how each MPI's
// launcher is told to preload it, the TOPOCOLL_STATS table it prints at MPI_Finalize, and the
// reductions' suite.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, repoRoot, type Flavour } from '../helpers/mpirun';
// @ts-expect-error plain ESM helper shared with the C build
import { buildPrograms } from './build.mjs';

export const preloadLibrary = (flavour: Flavour): string => path.join(repoRoot, 'lib/native', flavour, 'libtopocoll.so');

export const preloadArgs = (flavour: Flavour): string[] =>
  flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${preloadLibrary(flavour)}`] : ['-genv', 'LD_PRELOAD', preloadLibrary(flavour)];

/** One row of the job's TOPOCOLL_STATS table (rank 0 prints it at MPI_Finalize). */
export interface StatsRow {
  collective: string;
  algorithm: string;
  /** Ranks that made calls of it. */
  ranks: number;
  /** Summed over the ranks. */
  calls: number;
  bytes: number;
  /** "time min", "time mean", "time max", "per call", as printed ("1.23 us"). */
  times: string[];
}

/** The rows of the TOPOCOLL_STATS table(s) in `stderr` (the header and the per-rank lines of TOPOCOLL_STATS=2 are not rows). */
export function statsRows(stderr: string): StatsRow[] {
  return [...stderr.matchAll(/^topocoll stats: (\S+) +(\S+) +(\d+) +(\d+) +(\d+) +(\S+ \S+) +(\S+ \S+) +(\S+ \S+) +(\S+ \S+)$/gm)].map((m) => ({
    collective: m[1],
    algorithm: m[2],
    ranks: Number(m[3]),
    calls: Number(m[4]),
    bytes: Number(m[5]),
    times: m.slice(6, 10),
  }));
}

/** Calls per "<collective> <algorithm>", summed over the ranks, from the TOPOCOLL_STATS table. */
export function statsOf(stderr: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const row of statsRows(stderr)) calls.set(`${row.collective} ${row.algorithm}`, row.calls);
  return calls;
}

/**
 * The tests of test/c/reductions.c under the preload library for one collective: on every p of
 * `np`, every algorithm the library lists (`algorithms`, with native and auto) forced in turn;
 * the program must report 0 failures (its results byte for byte equal to the system MPI's), the
 * library must have run every algorithm (TOPOCOLL_STATS), and `refusals` must show in its
 * messages: the calls a forced algorithm could not run, which fail under TOPOCOLL_FALLBACK=error
 * (the tests' setting) as the program expects.
 */
export interface ReductionSuite {
  collective: 'allreduce' | 'reduce' | 'reduce_scatter_block' | 'reduce_scatter';
  algorithms: string[];
  np: Record<Flavour, number[]>;
  /** The program's extra arguments (--max-count) for a job. */
  args: (flavour: Flavour, np: number) => string[];
  refusals: RegExp[];
}

export function describeReductionSuite(suite: ReductionSuite): void {
  describe.each(FLAVOURS)(`${suite.collective} under the preload library (%s)`, (flavour) => {
    let bin = '';
    beforeAll(async () => {
      bin = await buildPrograms(flavour);
    });

    it.each(suite.np[flavour])('p = %i: every algorithm x op x type x count x in-place x blocking/nonblocking, bytes equal to the system MPI', async (np) => {
      const run = await mpirun({
        flavour,
        np,
        args: [path.join(bin, 'reductions'), '--collective', suite.collective, '--require-topocoll', ...suite.args(flavour, np)],
        mpirunArgs: preloadArgs(flavour),
        env: { TOPOCOLL_STATS: '1' },
        timeoutMs: 180_000,
      });
      expectSuccess(run);
      expect(run.stdout).toMatch(new RegExp(`reductions: \\d+ cases on ${np} ranks, 0 failures`));
      const listed = run.stdout.match(new RegExp(`^algorithms ${suite.collective}: (.*)$`, 'm'))?.[1].split(',') ?? [];
      expect(listed).toEqual(['native', 'auto', ...suite.algorithms]);
      const stats = statsOf(run.stderr);
      for (const name of listed.filter((n) => n !== 'auto')) {
        expect(stats.get(`${suite.collective} ${name}`) ?? 0, `${suite.collective} ${name} calls`).toBeGreaterThan(0);
      }
      for (const refusal of suite.refusals) expect(run.stderr).toMatch(refusal);
    });
  });
}
