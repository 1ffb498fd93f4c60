// The hierarchical allreduce and reduce through the preload library (test/c/reductions.c
// --algorithm hierarchical) over emulated nodes (TOPOCOLL_VIRTUAL_NODES), with data areas
// (TOPOCOLL_SHM_BYTES) that long vectors go through in chunks: every receive buffer byte for byte
// equal to the system MPI's, the same bits on every rank of an allreduce.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, type Flavour } from '../helpers/mpirun';
import { preloadArgs, statsOf } from '../c/preload-helpers';
// @ts-expect-error plain ESM helper shared with the C build
import { buildPrograms } from '../c/build.mjs';

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
