// Legal programs that a transparent override must leave unchanged (test/c/transparency.c):
// signature-equal but different datatypes on different ranks, invalid roots (MPI_ERR_ROOT through
// the handler, once), MPI_Comm_free with collectives pending, the program's own MPI_COMM_SELF
// traffic, and "unidirectional" intercommunicator allgather/alltoall; under every algorithm of
// the library forced in turn, bytes and gaps checked against what MPI defines. The same program
// without the library is the control.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, type Flavour } from '../helpers/mpirun';
import { preloadArgs } from '../c/preload-helpers';
// @ts-expect-error plain ESM helper shared with the C build
import { buildPrograms } from '../c/build.mjs';

const NP: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 4, 5], mpich: [2, 3] };
const TIMEOUT = 180_000;

describe.each(FLAVOURS)('legal programs the preload must not change (%s)', (flavour) => {
  let bin = '';
  beforeAll(async () => {
    bin = await buildPrograms(flavour);
  });

  it('the program passes without the library (control)', async () => {
    const run = await mpirun({ flavour, np: 3, args: [path.join(bin, 'transparency'), '--ints', '1024'], timeoutMs: TIMEOUT });
    expectSuccess(run);
    expect(run.stdout).toMatch(/transparency: \d+ checks on 3 ranks, 0 failures/);
  });

  it.each(NP[flavour])('p = %i: every algorithm, same bytes and error classes as MPI defines', async (np) => {
    // 60000 ints (240 KB) a block at 2 ranks: the size at which MPICH hung on signature-equal types.
    const ints = np <= 2 ? '60000' : '4096';
    const run = await mpirun({
      flavour,
      np,
      args: [path.join(bin, 'transparency'), '--ints', ints],
      mpirunArgs: preloadArgs(flavour),
      env: { TOPOCOLL_FALLBACK: 'silent' },
      timeoutMs: TIMEOUT,
    });
    expectSuccess(run);
    expect(run.stdout).toMatch(new RegExp(`transparency: \\d+ checks on ${np} ranks, 0 failures`));
    // Every round forced its algorithms (the library was loaded and took the calls).
    expect(run.stdout).toMatch(/round \d+: allgather=\w+ bcast=\w+ barrier=\w+ alltoall=\w+/);
    expect(run.stdout).not.toMatch(/=system/);
  });

  // test/c/progress.c: rank 0 blocks in MPI_Allreduce with a 32 MiB MPI_Ibcast pending that the
  // others wait for. Under MPICH (no progress hook) the library's thread moves it on: its
  // shared-memory rounds at any thread level, its messages too at MPI_THREAD_MULTIPLE.
  it.each([
    ['shared memory (default selection), MPI_THREAD_SINGLE', {}, []],
    ['messages (scatter_allgather), MPI_THREAD_MULTIPLE', { TOPOCOLL_BCAST_ALGORITHM: 'scatter_allgather' }, ['multiple']],
  ] as const)('a pending Ibcast moves on while its rank blocks in MPI_Allreduce: %s', async (_what, env, extra) => {
    const np = flavour === 'mpich' ? 2 : 3;
    const run = await mpirun({
      flavour,
      np,
      args: [path.join(bin, 'progress'), String(32 << 20), '0', ...extra],
      mpirunArgs: preloadArgs(flavour),
      env: { ...env, TOPOCOLL_STATS: '1' },
      timeoutMs: 60_000,
    });
    expectSuccess(run);
    expect(run.stdout).toMatch(new RegExp(`progress: ok on ${np} ranks`));
    // The Ibcast ran through the library, not the MPI.
    expect(run.stderr).toMatch(env.TOPOCOLL_BCAST_ALGORITHM ? /bcast\s+scatter_allgather\s+calls 2/ : /bcast\s+(?!native\b)\w+\s+calls 2/);
  });
});
