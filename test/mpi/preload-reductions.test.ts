// Allreduce and reduce through the preload library (test/c/reductions.c): every algorithm the
// library lists, native and auto, forced in turn, on every predefined op on int/float/double,
// MINLOC/MAXLOC on MPI_DOUBLE_INT, user-defined ops that are not commutative (on a contiguous type
// and on a derived type with holes), counts 0 to 1 MiB, in place and not, blocking and
// nonblocking, reduce's root moving over the ranks, and every other predefined type the library
// has loops for with each op MPI defines on it; every receive buffer byte for byte equal to the
// system MPI's, and the same bits on every rank of an allreduce. Under TOPOCOLL_FALLBACK=error
// (the tests' setting) a forced algorithm that cannot run a call must fail it on every rank.
// TOPOCOLL_STATS proves the calls ran through the engine. Then the hierarchical algorithms over
// emulated nodes (TOPOCOLL_VIRTUAL_NODES), with data areas (TOPOCOLL_SHM_BYTES) that long
// vectors go through in chunks.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, type Flavour } from '../helpers/mpirun';
import { preloadArgs, statsOf } from '../c/preload-helpers';
import { algorithmNames } from '../../src/select/registry';
// @ts-expect-error plain ESM helper shared with the C build
import { buildPrograms } from '../c/build.mjs';

const NP: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 4, 5, 7, 8], mpich: [1, 2, 3] };
// Oversubscribed Open MPI jobs (more ranks than the 2 cores) leave out the 1 MiB vectors (65539
// elements still cut into uneven blocks and segments), and from 7 ranks keep to 1024 elements;
// MPICH 4.0 busy-polls, and on 3 ranks keeps to 7 (about a minute per MPI in all on an idle machine).
const ARGS = (flavour: Flavour, np: number): string[] => {
  if (np <= 2 || (flavour === 'openmpi' && np <= 3)) return [];
  return ['--max-count', flavour === 'mpich' ? '7' : np >= 7 ? '1024' : '65539'];
};

describe.each(FLAVOURS)('allreduce and reduce under the preload library (%s)', (flavour) => {
  let bin = '';
  beforeAll(async () => {
    bin = await buildPrograms(flavour);
  });

  it.each(NP[flavour].flatMap((np) => (['allreduce', 'reduce'] as const).map((coll) => ({ np, coll }))))(
    '$coll, p = $np: every algorithm x op x type x count x in-place x blocking/nonblocking, bytes equal to the system MPI',
    async ({ np, coll }) => {
      const run = await mpirun({
        flavour,
        np,
        args: [path.join(bin, 'reductions'), '--collective', coll, '--require-topocoll', ...ARGS(flavour, np)],
        mpirunArgs: preloadArgs(flavour),
        env: { TOPOCOLL_STATS: '1' },
        timeoutMs: 180_000,
      });
      expectSuccess(run);
      expect(run.stdout).toMatch(new RegExp(`reductions: \\d+ cases on ${np} ranks, 0 failures`));
      const listed = run.stdout.match(new RegExp(`^algorithms ${coll}: (.*)$`, 'm'))?.[1].split(',') ?? [];
      expect(listed).toEqual(['native', 'auto', ...algorithmNames(coll)]);
      const stats = statsOf(run.stderr);
      for (const name of listed.filter((n) => n !== 'auto')) {
        expect(stats.get(`${coll} ${name}`) ?? 0, `${coll} ${name} calls`).toBeGreaterThan(0);
      }
      // The refusals the program expects were the library's, for the reasons it gives.
      if (coll === 'allreduce') expect(run.stderr).toMatch(/TOPOCOLL_ALLREDUCE_ALGORITHM=ring cannot run this call: the op is not commutative/);
      expect(run.stderr).toMatch(/cannot run this call: a nonblocking call with a user-defined op/);
    },
  );
});

// Emulated nodes: by slot (the leaders' algorithms combine in rank order; on nodes of one size,
// from 64 KiB, a leader per part of the vector), uneven with a rank alone on its node, and
// interleaved (an op that is not commutative runs over all the ranks there); a 64 KiB data area
// puts the 16 KiB vectors of 5 ranks (combined whole) and longer ones through it in chunks.
const LAYOUTS: Record<Flavour, Array<{ np: number; nodes: string; shmBytes: string; maxCount: string; largeBytes?: string }>> = {
  openmpi: [
    { np: 4, nodes: 'block:2', shmBytes: '1048576', maxCount: '65539' },
    { np: 5, nodes: '0,1,1,2,2', shmBytes: '65536', maxCount: '65539' },
    { np: 6, nodes: 'cyclic:2', shmBytes: '1048576', maxCount: '1024' },
    // 16 MiB vectors on nodes of one size: a leader per part of the vector.
    { np: 4, nodes: 'block:2', shmBytes: '1048576', maxCount: String((16 << 20) / 4 + 1), largeBytes: String((16 << 20) + 4) },
    { np: 6, nodes: 'block:3', shmBytes: '65536', maxCount: String((16 << 20) / 4 + 1), largeBytes: String((16 << 20) + 4) },
    { np: 7, nodes: '0,0,0,0,0,1,1', shmBytes: '65536', maxCount: '65539' },
    { np: 5, nodes: '0,0,0,0,0', shmBytes: '65536', maxCount: '65539' },
  ],
  mpich: [
    { np: 2, nodes: '0,0', shmBytes: '65536', maxCount: '1048576' },
    { np: 3, nodes: '0,1,1', shmBytes: '65536', maxCount: '65539' },
  ],
};

describe.each(FLAVOURS)('hierarchical allreduce and reduce over emulated nodes (%s)', (flavour) => {
  let bin = '';
  beforeAll(async () => {
    bin = await buildPrograms(flavour);
  });

  it.each(LAYOUTS[flavour].flatMap((layout) => (['allreduce', 'reduce'] as const).map((coll) => ({ ...layout, coll }))))(
    '$coll, p = $np, TOPOCOLL_VIRTUAL_NODES=$nodes, TOPOCOLL_SHM_BYTES=$shmBytes, up to $maxCount elements',
    async ({ np, nodes, shmBytes, maxCount, largeBytes, coll }) => {
      const run = await mpirun({
        flavour,
        np,
        args: [
          ...[path.join(bin, 'reductions'), '--collective', coll, '--algorithm', 'hierarchical', '--require-topocoll', '--max-count', maxCount],
          ...(largeBytes ? ['--large-bytes', largeBytes] : []),
        ],
        mpirunArgs: preloadArgs(flavour),
        env: { TOPOCOLL_STATS: '1', TOPOCOLL_VIRTUAL_NODES: nodes, TOPOCOLL_SHM_BYTES: shmBytes },
        timeoutMs: 180_000,
      });
      expectSuccess(run);
      expect(run.stdout).toMatch(new RegExp(`reductions: \\d+ cases on ${np} ranks, 0 failures`));
      expect(statsOf(run.stderr).get(`${coll} hierarchical`) ?? 0, `${coll} hierarchical calls`).toBeGreaterThan(0);
    },
  );
});
