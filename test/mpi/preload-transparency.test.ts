// Legal programs that a transparent override must leave unchanged (test/c/transparency.c):
// signature-equal but different datatypes on different ranks, invalid roots (MPI_ERR_ROOT through
// the handler, once), MPI_Comm_free with collectives pending, the program's own MPI_COMM_SELF
// traffic, and "unidirectional" intercommunicator allgather/alltoall; under every algorithm of
// the library forced in turn, bytes and gaps checked against what MPI defines. The same program
// without the library is the control.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, type Flavour } from '../helpers/mpirun';
import { preloadArgs, statsOf } from '../c/preload-helpers';
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

  // test/c/progress.c: rank 0 blocks in a call the library does not define (MPI_Comm_split,
  // MPI_Gather, MPI_Scan) with an MPI_Ibcast pending that the others wait for. Under MPICH (no
  // progress hook) the library's thread moves it on, calling MPI: MPICH runs at
  // MPI_THREAD_MULTIPLE whatever the program asked for, and the program is told its own level.
  // The roots make rank 0 forward what it receives (rounds that depend on each other).
  type ProgressCase = { np: number; algorithm?: string; bytes: number; root: number; level: string; call: string; env?: Record<string, string> };
  const progressCases: [string, ProgressCase][] = [
    ['shared memory (default selection), MPI_Init', { np: 2, bytes: 32 << 20, root: 0, level: 'init', call: 'comm_split' }],
    ['scatter_allgather, MPI_THREAD_SINGLE', { np: 2, algorithm: 'scatter_allgather', bytes: 32 << 20, root: 1, level: 'single', call: 'gather' }],
    ['binomial, MPI_THREAD_FUNNELED', { np: 4, algorithm: 'binomial', bytes: 8 << 20, root: 2, level: 'funneled', call: 'comm_split' }],
    ['scatter_allgather, MPI_THREAD_SERIALIZED', { np: 3, algorithm: 'scatter_allgather', bytes: 8 << 20, root: 2, level: 'serialized', call: 'scan' }],
    ['scatter_allgather, MPI_THREAD_MULTIPLE', { np: 2, algorithm: 'scatter_allgather', bytes: 32 << 20, root: 1, level: 'multiple', call: 'comm_split' }],
  ];
  if (flavour === 'mpich') {
    progressCases.push([
      'binomial, MPI_Init with MPIR_CVAR_DEFAULT_THREAD_LEVEL=mpi_thread_funneled',
      { np: 4, algorithm: 'binomial', bytes: 8 << 20, root: 2, level: 'init', call: 'gather', env: { MPIR_CVAR_DEFAULT_THREAD_LEVEL: 'mpi_thread_funneled' } },
    ]);
  }
  it.each(progressCases)('a pending Ibcast moves on while its rank blocks in a call the library does not define: %s', async (_what, c) => {
    const run = await mpirun({
      flavour,
      np: c.np,
      args: [path.join(bin, 'progress'), String(c.bytes), String(c.root), c.level, c.call],
      mpirunArgs: preloadArgs(flavour),
      env: { ...c.env, ...(c.algorithm ? { TOPOCOLL_BCAST_ALGORITHM: c.algorithm } : {}), TOPOCOLL_STATS: '1' },
      timeoutMs: 60_000,
    });
    expectSuccess(run);
    expect(run.stdout).toMatch(new RegExp(`progress: ok on ${c.np} ranks \\(thread level \\d, ${c.call}\\)`));
    // The Ibcast ran through the library, not the MPI (and the set-up bcast before it).
    const calls = statsOf(run.stderr);
    const algorithm = c.algorithm ?? [...calls.keys()].find((k) => k.startsWith('bcast ') && k !== 'bcast native')?.slice(6);
    expect(algorithm).toBeDefined();
    expect(calls.get(`bcast ${algorithm}`)).toBe(2 * c.np);
  });

  // test/c/setup_nonblocking.c: the first call on a new communicator c is nonblocking, with an
  // algorithm forced; rank 0 starts it, then blocks in MPI_Barrier(d), which the others enter
  // first. MPICH: the library sets c up without blocking (MPI_Comm_idup, shared memory in steps)
  // and the forced algorithm runs that first call too (TOPOCOLL_FALLBACK=error). Open MPI cannot
  // duplicate a communicator without blocking the program's own communicator creation
  // (docs/preload.md): that one call goes to the MPI, with a warning; after a blocking call on c
  // the forced algorithm runs.
  it.each([
    ['bcast', 'binomial'],
    ['bcast', 'scatter_allgather'],
    ['bcast', 'shm_numa'],
    ['bcast', 'hierarchical'],
    ['allgather', 'ring'],
    ['allgather', 'hierarchical'],
    ['alltoall', 'pairwise'],
    ['barrier', 'shm_hierarchical'],
  ])('a forced %s algorithm (%s), first called nonblocking on a new communicator by one rank only before a barrier', async (coll, algorithm) => {
    const np = 3;
    const rounds = 3;
    const run = await mpirun({
      flavour,
      np,
      args: [path.join(bin, 'setup_nonblocking'), coll, '4096', String(rounds)],
      mpirunArgs: preloadArgs(flavour),
      env: { [`TOPOCOLL_${coll.toUpperCase()}_ALGORITHM`]: algorithm, TOPOCOLL_STATS: '1', TOPOCOLL_FALLBACK: flavour === 'mpich' ? 'error' : 'warn' },
      timeoutMs: 60_000,
    });
    expectSuccess(run);
    expect(run.stdout).toContain(`setup_nonblocking: ok on ${np} ranks (${coll})`);
    // Per rank: the nonblocking call in every round; a forced barrier also runs MPI_Barrier(d)
    // every round and MPI_Barrier(c) once.
    const forcedCalls = coll === 'barrier' ? 2 * rounds + 1 : rounds;
    const calls = statsOf(run.stderr);
    const handedOn = flavour === 'mpich' ? 0 : 1;
    expect(calls.get(`${coll} ${algorithm}`)).toBe(np * (forcedCalls - handedOn));
    expect(calls.get(`${coll} native`) ?? 0).toBe(np * handedOn);
    if (handedOn) expect(run.stderr).toContain(`${algorithm} cannot run this call (Open MPI cannot duplicate the communicator without blocking`);
  });
});
