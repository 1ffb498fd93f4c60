// Allreduce and reduce through the preload library (test/c/reductions.c): every algorithm the
// library lists, native and auto, forced in turn, on every predefined op on int/float/double,
// MINLOC/MAXLOC on MPI_DOUBLE_INT, user-defined ops that are not commutative (on a contiguous type
// and on a derived type with holes), counts 0 to 1 MiB, in place and not, blocking and
// nonblocking, reduce to the first and the last rank; every receive buffer byte for byte equal to
// the system MPI's, and the same bits on every rank of an allreduce. Under TOPOCOLL_FALLBACK=error
// (the tests' setting) a forced algorithm that cannot run a call must fail it on every rank.
// TOPOCOLL_STATS proves the calls ran through the engine. Then the hierarchical algorithms over
// emulated nodes (TOPOCOLL_VIRTUAL_NODES: by-slot, uneven and interleaved), with a data area so
// small (TOPOCOLL_SHM_BYTES) that long vectors go through it in many chunks.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, type Flavour } from '../helpers/mpirun';
import { preloadArgs, statsOf } from '../c/preload-helpers';
import { algorithmNames } from '../../src/select/registry';
// @ts-expect-error plain ESM helper shared with the C build
import { buildPrograms } from '../c/build.mjs';

const NP: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 4, 5, 7, 8], mpich: [1, 2, 3] };
// Oversubscribed Open MPI jobs (more ranks than the 2 cores) leave out the 1 MiB vectors (65539
// elements still cut into uneven blocks and segments); MPICH 4.0 busy-polls, and on 3 ranks keeps
// to 1024 elements (about a minute per MPI in all).
const ARGS = (flavour: Flavour, np: number): string[] => {
  if (np <= 2 || (flavour === 'openmpi' && np <= 3)) return [];
  return ['--max-count', flavour === 'openmpi' ? '65539' : '1024'];
};

describe.each(FLAVOURS)('allreduce under the preload library (%s)', (flavour) => {
  let bin = '';
  beforeAll(async () => {
    bin = await buildPrograms(flavour);
  });

  it.each(NP[flavour])('p = %i: every algorithm x op x type x count x in-place x blocking/nonblocking, bytes equal to the system MPI', async (np) => {
    const run = await mpirun({
      flavour,
      np,
      args: [path.join(bin, 'reductions'), '--require-topocoll', ...ARGS(flavour, np)],
      mpirunArgs: preloadArgs(flavour),
      env: { TOPOCOLL_STATS: '1' },
      timeoutMs: 180_000,
    });
    expectSuccess(run);
    expect(run.stdout).toMatch(new RegExp(`reductions: \\d+ cases on ${np} ranks, 0 failures`));
    const stats = statsOf(run.stderr);
    for (const coll of ['allreduce', 'reduce'] as const) {
      const listed = run.stdout.match(new RegExp(`^algorithms ${coll}: (.*)$`, 'm'))?.[1].split(',') ?? [];
      expect(listed).toEqual(['native', 'auto', ...algorithmNames(coll)]);
      for (const name of listed.filter((n) => n !== 'auto')) {
        expect(stats.get(`${coll} ${name}`) ?? 0, `${coll} ${name} calls`).toBeGreaterThan(0);
      }
    }
    // The refusals the program expects were the library's, for the reasons it gives.
    expect(run.stderr).toMatch(/TOPOCOLL_ALLREDUCE_ALGORITHM=ring cannot run this call: the op is not commutative/);
    expect(run.stderr).toMatch(/cannot run this call: a nonblocking call with a user-defined op/);
  });
});

// Emulated nodes: by slot (the leaders' algorithms combine in rank order), uneven with a rank alone
// on its node, and interleaved (an op that is not commutative runs over all the ranks there); a
// 64 KiB data area puts 16 KiB vectors of 5 ranks (combined whole) and longer ones through it in chunks.
const LAYOUTS: Record<Flavour, Array<{ np: number; nodes: string; shmBytes: string }>> = {
  openmpi: [
    { np: 4, nodes: 'block:2', shmBytes: '1048576' },
    { np: 5, nodes: '0,1,1,2,2', shmBytes: '65536' },
    { np: 6, nodes: 'cyclic:2', shmBytes: '1048576' },
    { np: 7, nodes: '0,0,0,0,0,1,1', shmBytes: '65536' },
    { np: 5, nodes: '0,0,0,0,0', shmBytes: '65536' },
  ],
  mpich: [
    { np: 2, nodes: '0,0', shmBytes: '65536' },
    { np: 3, nodes: '0,1,1', shmBytes: '1048576' },
  ],
};

describe.each(FLAVOURS)('hierarchical allreduce and reduce over emulated nodes (%s)', (flavour) => {
  let bin = '';
  beforeAll(async () => {
    bin = await buildPrograms(flavour);
  });

  it.each(LAYOUTS[flavour])('p = $np, TOPOCOLL_VIRTUAL_NODES=$nodes, TOPOCOLL_SHM_BYTES=$shmBytes', async ({ np, nodes, shmBytes }) => {
    const run = await mpirun({
      flavour,
      np,
      args: [path.join(bin, 'reductions'), '--require-topocoll', '--algorithm', 'hierarchical', ...ARGS(flavour, np)],
      mpirunArgs: preloadArgs(flavour),
      env: { TOPOCOLL_STATS: '1', TOPOCOLL_VIRTUAL_NODES: nodes, TOPOCOLL_SHM_BYTES: shmBytes },
      timeoutMs: 180_000,
    });
    expectSuccess(run);
    expect(run.stdout).toMatch(new RegExp(`reductions: \\d+ cases on ${np} ranks, 0 failures`));
    const stats = statsOf(run.stderr);
    for (const coll of ['allreduce', 'reduce']) expect(stats.get(`${coll} hierarchical`) ?? 0, `${coll} hierarchical calls`).toBeGreaterThan(0);
  });
});
