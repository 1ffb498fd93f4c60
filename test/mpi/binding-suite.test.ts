// The Node binding under real mpirun: one launch per (MPI, size) runs test/mpi/programs/
// binding-suite.mjs (every operation, element type, in place, nonblocking, object mode, errors),
// and the abort path ends a job whose rank fails within seconds.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, rankReports, type Flavour } from '../helpers/mpirun';
// @ts-expect-error plain ESM helper shared with the project's scripts
import { launcherPath } from '../../scripts/mpi.mjs';

const SIZES: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 4, 5, 8], mpich: [1, 2, 3] };

interface RankReport {
  rank: number;
  size: number;
  checks: number;
  failures: { name: string; detail?: unknown }[];
  ompiOp: string | null;
  libraryVersion: string;
}

// The release the MPI's own launcher reports ("mpiexec (OpenRTE) 4.1.4", hydra's "Version: 4.0.2").
const releases = new Map<Flavour, string>();
function launcherRelease(flavour: Flavour): string {
  if (releases.has(flavour)) return releases.get(flavour)!;
  const r = spawnSync(launcherPath(flavour), ['--version'], { encoding: 'utf8' });
  const release = /(?:OpenRTE\)|Version:)\s*(\d+\.\d+\.\d+)/.exec(r.stdout + r.stderr)?.[1];
  if (!release) throw new Error(`no release in ${launcherPath(flavour)} --version: ${r.stdout}${r.stderr}`);
  releases.set(flavour, release);
  return release;
}

describe.each(FLAVOURS)('binding (%s)', (flavour) => {
  it.each(SIZES[flavour])('every operation delivers the right bytes at np=%i', async (np) => {
    // One Open MPI launch goes without the launcher's OMPI_MCA_op, so that init() itself must keep
    // Open MPI 4.1's saturating AVX op component out (the suite checks that 8-bit sums wrap).
    const env = flavour === 'openmpi' && np === 2 ? { OMPI_MCA_op: undefined as unknown as string } : undefined;
    const run = await mpirun({ flavour, np, args: ['test/mpi/programs/binding-suite.mjs'], env, timeoutMs: 90_000 });
    expectSuccess(run);
    const got = rankReports<RankReport>(run, np);
    for (const r of got) {
      expect(r.failures, `rank ${r.rank}`).toEqual([]);
      expect(r.size).toBe(np);
      expect(r.checks).toBeGreaterThan(800);
      if (flavour === 'openmpi') expect(r.ompiOp).toBe('^avx');
      // version(): MPI_Get_library_version names the release the launcher reports.
      const release = launcherRelease(flavour).replaceAll('.', '\\.');
      expect(r.libraryVersion).toMatch(flavour === 'openmpi' ? new RegExp(`^Open MPI v${release}\\b`) : new RegExp(`^MPICH Version:\\s+${release}\\b`));
    }
  });

  // The demo runs on Open MPI (MPICH's busy-polling makes it slow on 2 cores); defined, not skipped.
  if (flavour === 'openmpi') it('the demo (npm run demo) checks every operation and reports each', async () => {
    const run = await mpirun({ flavour, np: 2, args: ['examples/demo.mjs', '--bytes', '64', '--iterations', '3'], timeoutMs: 60_000 });
    expectSuccess(run);
    const rows = run.stdout.split('\n').filter((l) => / ok\s*$/.test(l));
    expect(rows.length).toBe(24);
    expect(run.stdout).toMatch(/^bcast\s+64 B\s+(?!system MPI)[a-z_]+\s/m); // the engine's algorithm is named
    expect(run.stdout).toMatch(/^allreduce SUM\s+64 B\s+(?!system MPI)[a-z_]+\s/m); // the reductions' too
    expect(run.stdout).toMatch(/24 operations, all results correct/);
  });

  // UCX's "bistro" hooks rewrite libc's mmap while V8's threads call it (SIGSEGV inside V8, about
  // one MPICH launch in a hundred); src/mpi/native.ts turns them off before UCX loads.
  if (flavour === 'mpich') it("UCX leaves libc's mmap unpatched in Node ranks", async () => {
    const run = await mpirun({ flavour, np: 2, args: ['test/mpi/programs/ucx-hooks.mjs'], env: { UCX_MEM_LOG_LEVEL: 'debug' }, timeoutMs: 60_000 });
    expectSuccess(run);
    const log = run.stdout + run.stderr;
    expect(log.match(/passed the barrier/g)?.length).toBe(2);
    expect(log.match(/installing mmap hooks is disabled by configuration/g)?.length).toBe(2);
    expect(log).not.toMatch(/installing bistro hook/);
  });

  const modes = flavour === 'openmpi' ? ['throw', 'reject', 'exitcode'] : ['throw'];
  it.each(modes)('a rank that fails (%s) aborts the whole job: no rank is left waiting', async (mode) => {
    const np = flavour === 'mpich' ? 2 : 3;
    // The other ranks wait in a barrier forever unless the job is aborted: the job must end by
    // itself, well before the harness would kill it (generous: a loaded machine starts ranks slowly).
    const run = await mpirun({ flavour, np, args: ['test/mpi/programs/binding-abort.js', mode], timeoutMs: 90_000 });
    expect(run.code, run.stderr).not.toBe(0);
    expect(run.stderr).not.toContain('[test harness] killed');
    expect(run.stdout).not.toMatch(/passed a barrier/);
    if (mode === 'throw') expect(run.stderr).toMatch(/uncaught exception in rank 1[\s\S]*deliberate failure in rank 1/);
    if (mode === 'reject') expect(run.stderr).toMatch(/unhandled rejection in rank 1[\s\S]*deliberate rejection in rank 1/);
  });
});
