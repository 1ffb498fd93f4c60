// Shared by the preload tests (test/mpi/preload-*.test.ts): where the library is, how each MPI's
// launcher is told to preload it, the TOPOCOLL_STATS lines it prints at MPI_Finalize, and the
// reductions' suite.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, repoRoot, type Flavour } from '../helpers/mpirun';
// @ts-expect-error plain ESM helper shared with the C build
import { buildPrograms } from './build.mjs';

export const preloadLibrary = (flavour: Flavour): string => path.join(repoRoot, 'lib/native', flavour, 'libtopocoll.so');

export const preloadArgs = (flavour: Flavour): string[] =>
  flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${preloadLibrary(flavour)}`] : ['-genv', 'LD_PRELOAD', preloadLibrary(flavour)];

/** "topocoll stats: rank R <coll> <algorithm> calls N bytes B" lines, calls summed over ranks. */
export function statsOf(stderr: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const m of stderr.matchAll(/^topocoll stats: rank \d+ (\S+)\s+(\S+)\s+calls (\d+)/gm)) {
    const key = `${m[1]} ${m[2]}`;
    calls.set(key, (calls.get(key) ?? 0) + Number(m[3]));
  }
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
