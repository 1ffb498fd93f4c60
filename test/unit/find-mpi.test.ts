// Finding MPI (cmake/TopocollMPI.cmake through cmake/find-mpi.cmake, as scripts/build-native.mjs
// runs it): a wrapper anywhere, named anything, is identified by its own mpi.h; with none, the
// error says where it looked and how to point at one.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/mpirun';
import { BUILD_TOOLS, DEBIAN_WRAPPERS, hasWrapper, launcherVersion, toolsOnlyPath, wrapperAlone } from '../helpers/isolated-mpi';

const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

const cmake = spawnSync('sh', ['-c', 'command -v cmake'], { encoding: 'utf8' }).stdout.trim();

/**
 * Runs the discovery as scripts/build-native.mjs does (scripts/mpi.mjs findMpis), with only `vars`
 * and PATH `pathDirs`: by default a folder of build tools (no MPI, no pkg-config).
 */
function discover(vars: Record<string, string>, pathDirs?: string[]) {
  let dirs = pathDirs;
  if (!dirs) {
    dirs = [toolsOnlyPath()];
    made.push(dirs[0]);
  }
  return spawnSync(process.execPath, ['-e', `import('./scripts/mpi.mjs').then((m) => console.log(JSON.stringify(m.findMpis())))`], {
    cwd: repoRoot,
    env: { HOME: process.env.HOME ?? '/root', PATH: dirs.join(':'), ...vars },
    encoding: 'utf8',
  });
}

describe('finding MPI', () => {
  for (const flavour of ['mpich', 'openmpi'] as const) {
    it.skipIf(!hasWrapper(flavour))(`MPICC=<a folder of its own>/mpicc -> ${DEBIAN_WRAPPERS[flavour]}: ${flavour}, its version`, () => {
      const mpicc = wrapperAlone(DEBIAN_WRAPPERS[flavour]);
      made.push(path.dirname(mpicc));
      const r = discover({ MPICC: mpicc });
      expect(r.status, r.stderr).toBe(0);
      const mpis = JSON.parse(r.stdout);
      expect(mpis).toHaveLength(1);
      expect(mpis[0]).toMatchObject({ flavour, version: launcherVersion(flavour), source: `MPICC=${mpicc}` });
      expect(mpis[0].includeDirs.length).toBeGreaterThan(0);
      // The launcher of the same MPI, found by following the link.
      expect(mpis[0].launcher).toMatch(/mpi(exec|run)/);
      expect(spawnSync(mpis[0].launcher, ['--version'], { encoding: 'utf8' }).stdout).toContain(launcherVersion(flavour));
    });
  }

  it.skipIf(!hasWrapper('mpich'))('a link named mpicc.openmpi to MPICH\'s wrapper is MPICH (the name says nothing)', () => {
    const link = wrapperAlone(DEBIAN_WRAPPERS.mpich, 'mpicc.openmpi');
    const tools = toolsOnlyPath();
    made.push(path.dirname(link), tools);
    // On PATH under Debian's Open MPI name.
    const r = discover({}, [path.dirname(link), tools]);
    expect(r.status, r.stderr).toBe(0);
    const mpis = JSON.parse(r.stdout);
    expect(mpis).toHaveLength(1);
    expect(mpis[0]).toMatchObject({ flavour: 'mpich', version: launcherVersion('mpich') });
    expect(mpis[0].source).toContain('mpicc.openmpi on PATH');
  });

  it.skipIf(!hasWrapper('mpich') || !hasWrapper('openmpi'))('the same MPI through several names is listed once; the given one first', () => {
    const mpicc = wrapperAlone(DEBIAN_WRAPPERS.mpich);
    made.push(path.dirname(mpicc));
    // The system's PATH: Debian's names (and plain mpicc, an alternative to one of them) as well.
    const r = discover({ MPICC: mpicc }, [process.env.PATH ?? '/usr/bin']);
    expect(r.status, r.stderr).toBe(0);
    const mpis = JSON.parse(r.stdout);
    expect(mpis.map((m: { flavour: string }) => m.flavour)).toEqual(['mpich', 'openmpi']);
    expect(mpis[0].source).toBe(`MPICC=${mpicc}`);
  });

  it.skipIf(spawnSync('pkg-config', ['--exists', 'ompi-c', 'mpich']).status !== 0)('pkg-config alone (no wrapper on PATH): flags from ompi-c and mpich, the flavour from their mpi.h', () => {
    const tools = toolsOnlyPath([...BUILD_TOOLS, 'pkg-config']);
    made.push(tools);
    const r = discover({}, [tools]);
    expect(r.status, r.stderr).toBe(0);
    const mpis = JSON.parse(r.stdout);
    expect(mpis.map((m: { flavour: string; pkgconfig: string; mpicc: null }) => [m.flavour, m.pkgconfig, m.mpicc])).toEqual([
      ['openmpi', 'ompi-c', null],
      ['mpich', 'mpich', null],
    ]);
    expect(mpis[0].version).toBe(launcherVersion('openmpi'));
    expect(mpis[1].version).toBe(launcherVersion('mpich'));
    expect(mpis[1].libs).toContain('mpich');
  });

  it('with no MPI anywhere, the error lists every place tried and how to point at one', () => {
    // An empty PATH: cmake itself by its full path.
    const r = spawnSync(cmake, ['-P', path.join(repoRoot, 'cmake/find-mpi.cmake')], { env: { PATH: '' }, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stdout).toBe('');
    for (const place of ['TOPOCOLL_MPICC', 'MPICC', 'MPI_HOME', 'mpicc on PATH', 'pkg-config ompi-c', 'pkg-config mpich', 'mpicc.openmpi on PATH', 'mpicc.mpich on PATH']) {
      expect(r.stderr).toContain(place);
    }
    expect(r.stderr).toContain('MPICC=/path/to/mpicc');
    expect(r.stderr).toContain('MPI_HOME=/path/to/mpi');
  });

  it('a given MPICC that is no MPI is an error, not a silent fall-back to another MPI', () => {
    const r = discover({ MPICC: '/nonexistent/mpicc' }, [process.env.PATH ?? '/usr/bin']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('MPICC=/nonexistent/mpicc is not a usable MPI compiler wrapper');
  });
});
