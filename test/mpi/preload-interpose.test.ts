// The preload library's switches and boundaries, on small C and Fortran programs: forcing by
// environment with TOPOCOLL_VERBOSE saying what ran and why, intercommunicators passed through,
// TOPOCOLL_PASSTHROUGH, a bad value stopping the job at MPI_Init, Fortran under each MPI, and
// the `topocoll preload` / `topocoll mpirun` commands.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, repoRoot, type Flavour } from '../helpers/mpirun';
// @ts-expect-error plain ESM helper shared with the C build
import { buildPrograms } from '../c/build.mjs';
import { preloadArgs, preloadLibrary, statsOf } from '../c/preload-helpers';

const NP: Record<Flavour, number> = { openmpi: 3, mpich: 2 };
const TIMEOUT = 60_000;
const COLLECTIVES = ['allgather', 'bcast', 'barrier', 'alltoall', 'allreduce', 'reduce', 'reduce_scatter_block', 'reduce_scatter'];

function topocoll(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [path.join(repoRoot, 'bin/topocoll.js'), ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: TIMEOUT,
  });
}

describe.each(FLAVOURS)('the preload library in C and Fortran programs (%s)', (flavour) => {
  const np = NP[flavour];
  let bin = '';
  beforeAll(async () => {
    bin = await buildPrograms(flavour);
  });
  const run = (program: string, env: Record<string, string>) =>
    mpirun({ flavour, np, args: [path.join(bin, program)], mpirunArgs: preloadArgs(flavour), env, timeoutMs: TIMEOUT });

  it('TOPOCOLL_<COLL>_ALGORITHM forces the algorithm; VERBOSE says so; intercommunicators pass through to the system MPI', async () => {
    const r = await run('preload_basic', {
      TOPOCOLL_ALLGATHER_ALGORITHM: 'ring',
      TOPOCOLL_VERBOSE: '1',
      TOPOCOLL_FALLBACK: 'warn',
      TOPOCOLL_STATS: '1',
    });
    expectSuccess(r);
    expect(r.stdout).toContain(`preload_basic: ok on ${np} ranks`);
    expect(r.stderr).toMatch(/topocoll: comm \d+ \(p=\d+\) allgather 3000 B\/block -> ring \(forced by TOPOCOLL_ALLGATHER_ALGORITHM\)/);
    // The intercommunicator's allgather went to the system MPI, and the trace says why.
    expect(r.stderr).toContain('TOPOCOLL_ALLGATHER_ALGORITHM=ring cannot run this call (intercommunicators are not handled by the engine); using native');
    expect(r.stderr).toMatch(/bcast 3000 B -> native \(fallback: intercommunicators are not handled by the engine\)/);
    const stats = statsOf(r.stderr);
    expect(stats.get('allgather ring')).toBe(np * 2); // world, blocking and nonblocking
    expect(stats.get('allgather native')).toBe(np * 2); // the intercommunicator's
  });

  it('TOPOCOLL_PASSTHROUGH=1 leaves every call to the system MPI: same bytes, nothing traced or counted', async () => {
    const r = await run('preload_basic', { TOPOCOLL_PASSTHROUGH: '1', TOPOCOLL_VERBOSE: '2', TOPOCOLL_STATS: '1', TOPOCOLL_ALLGATHER_ALGORITHM: 'ring' });
    expectSuccess(r);
    expect(r.stdout).toContain(`preload_basic: ok on ${np} ranks`);
    expect(r.stderr).not.toContain('topocoll');
  });

  it('stacked above a profiler, it hands that profiler init, finalize and what the engine does not run; TOPOCOLL_PASSTHROUGH hands it everything', async () => {
    const chain = `${preloadLibrary(flavour)}:${path.join(bin, 'libcountcalls.so')}`;
    const stacked = (env: Record<string, string>) =>
      mpirun({
        flavour,
        np,
        args: [path.join(bin, 'preload_basic')],
        mpirunArgs: flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${chain}`] : ['-genv', 'LD_PRELOAD', chain],
        env,
        timeoutMs: TIMEOUT,
      });
    const counts = (stderr: string) =>
      [...stderr.matchAll(/^countcalls: rank (\d+) init (\d+) allgather (\d+) bcast (\d+) send (\d+) wait (\d+)$/gm)]
        .map((m) => m.slice(1).map(Number))
        .sort((a, b) => a[0] - b[0])
        .map(([rank, init, allgather, bcast, send, wait]) => ({ rank, init, allgather, bcast, send, wait }));

    const engine = await stacked({ TOPOCOLL_STATS: '1' });
    expectSuccess(engine);
    expect(engine.stdout).toContain(`preload_basic: ok on ${np} ranks`);
    const seen = counts(engine.stderr);
    expect(seen.map((c) => c.rank)).toEqual(Array.from({ length: np }, (_, r) => r));
    for (const c of seen) {
      expect(c.init).toBe(1);
      expect([c.allgather, c.bcast]).toEqual([0, 0]); // ours: run by the engine on PMPI_*
    }
    expect(seen[0].send).toBe(1);
    expect(seen[1].wait).toBeGreaterThanOrEqual(1);
    expect([...statsOf(engine.stderr).keys()].some((k) => k.startsWith('allgather '))).toBe(true);

    const passthrough = await stacked({ TOPOCOLL_PASSTHROUGH: '1' });
    expectSuccess(passthrough);
    for (const c of counts(passthrough.stderr)) expect([c.init, c.allgather, c.bcast]).toEqual([1, 2, 2]); // world and intercommunicator
  });

  it('a bad TOPOCOLL_* value stops the job at MPI_Init with one message naming the variable and the valid choices', async () => {
    const r = await run('preload_basic', { TOPOCOLL_ALLTOALL_ALGORITHM: 'fastest' });
    expect(r.code).not.toBe(0);
    expect(r.stdout).not.toContain('preload_basic');
    const message = 'topocoll: TOPOCOLL_ALLTOALL_ALGORITHM="fastest" names no alltoall algorithm; valid choices: ';
    expect(r.stderr).toContain(message);
    expect(r.stderr.split(message).length - 1).toBe(1);
    expect(r.stderr).toMatch(/valid choices: auto, native, [^\n]*pairwise/);
  });

  it('a misspelled TOPOCOLL_* variable is reported once, by rank 0, with the closest name; values are trimmed', async () => {
    const r = await run('preload_basic', { TOPOCOLL_ALLGATHER_ALGORITM: 'ring', TOPOCOLL_BCAST_ALGORITHM: ' binomial ', TOPOCOLL_VERBOSE: ' 1', TOPOCOLL_FALLBACK: 'warn ' });
    expectSuccess(r);
    const warning = 'topocoll: warning: TOPOCOLL_ALLGATHER_ALGORITM is not a topocoll variable and is ignored; did you mean TOPOCOLL_ALLGATHER_ALGORITHM?';
    expect(r.stderr.split(warning).length - 1).toBe(1);
    expect(r.stderr).toMatch(/bcast 3000 B -> binomial \(forced by TOPOCOLL_BCAST_ALGORITHM\)/);
    expect(r.stderr).not.toMatch(/allgather [^\n]*forced/);
  });

  // Open MPI's Fortran bindings call PMPI_* (the library exports the Fortran symbols itself);
  // MPICH's mpif.h/`use mpi` layer calls MPI_* (the C symbols catch it). MPICH's `use mpi_f08`
  // layer calls PMPI_* from MPI_Init on: not intercepted (docs/preload.md), it must still run
  // right, untouched by the engine.
  const intercepted = flavour === 'openmpi' ? ['preload_f90', 'preload_f08'] : ['preload_f90'];
  it.each(intercepted)('Fortran (%s): the engine\'s collectives and their nonblocking forms run through the engine', async (program) => {
    const r = await run(program, { TOPOCOLL_STATS: '1' });
    expectSuccess(r);
    expect(r.stdout).toContain(`${program}: ok on ${np} ranks`);
    const stats = statsOf(r.stderr);
    for (const coll of COLLECTIVES) {
      const calls = [...stats].filter(([k]) => k.startsWith(`${coll} `)).reduce((n, [, c]) => n + c, 0);
      expect(calls, `${coll} calls seen by the engine`).toBeGreaterThanOrEqual(np * 2);
    }
  });

  if (flavour === 'mpich') {
    it('Fortran (preload_f08 under MPICH): passes through to the system MPI, bytes right, the engine never started', async () => {
      const r = await run('preload_f08', { TOPOCOLL_STATS: '1', TOPOCOLL_VERBOSE: '1' });
      expectSuccess(r);
      expect(r.stdout).toContain(`preload_f08: ok on ${np} ranks`);
      expect(r.stderr).not.toContain('topocoll');
    });
  }

  it('`topocoll preload` prints the absolute path of this MPI\'s libtopocoll.so', () => {
    const r = topocoll(['preload'], { TOPOCOLL_MPI: flavour });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(preloadLibrary(flavour));
    expect(path.isAbsolute(r.stdout.trim()) && existsSync(r.stdout.trim())).toBe(true);
    const bad = topocoll(['preload', '--mpi', 'lam']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--mpi=lam is not valid; valid choices: openmpi, mpich');
    const badEnv = topocoll(['preload'], { TOPOCOLL_MPI: 'lam' });
    expect(badEnv.status).toBe(2);
    expect(badEnv.stderr).toContain('TOPOCOLL_MPI="lam" is not a supported MPI; valid choices: openmpi, mpich');
  });

  it('`topocoll mpirun` preloads the library and forwards TOPOCOLL_* to every rank', async () => {
    const r = topocoll(['mpirun', '--mpi', flavour, '--test-machine', '-np', String(np), '--', path.join(bin, 'preload_basic')], {
      TOPOCOLL_STATS: '1',
      TOPOCOLL_ALLGATHER_ALGORITHM: 'ring',
      TOPOCOLL_FALLBACK: 'silent',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`preload_basic: ok on ${np} ranks`);
    expect(statsOf(r.stderr).get('allgather ring')).toBe(np * 2);
    const dry = topocoll(['mpirun', '--mpi', flavour, '--dry-run', '-np', '2', '--', 'app.js', 'x'], { TOPOCOLL_VERBOSE: '1' });
    expect(dry.status).toBe(0);
    const forward = flavour === 'openmpi' ? `-x TOPOCOLL_VERBOSE -x LD_PRELOAD=${preloadLibrary(flavour)}` : `-genv TOPOCOLL_VERBOSE 1 -genv LD_PRELOAD ${preloadLibrary(flavour)}`;
    expect(dry.stdout).toContain(`${forward} -np 2 ${process.execPath} app.js x`);
  });
});
