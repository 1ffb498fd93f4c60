// The build without Node: CMake alone, against an MPI whose wrapper sits in a folder of its own
// and with Debian's MPI names off PATH, installs libtopocoll.so, topocoll-preload and topocoll.pc;
// a C program under mpiexec then runs its collectives through the installed library. And the npm
// build (scripts/build-native.mjs) does nothing when nothing changed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FLAVOURS, repoRoot, runJob } from '../helpers/mpirun';
import { DEBIAN_WRAPPERS, hasWrapper, launcherVersion, toolsOnlyPath, wrapperAlone } from '../helpers/isolated-mpi';
import { spawnAsync } from '../helpers/spawn';

const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));
const temp = (name: string) => {
  const d = mkdtempSync(path.join(tmpdir(), `topocoll-${name}-`));
  made.push(d);
  return d;
};

// MPICH: its hydra needs no root or oversubscription settings; 2 ranks (it busy-polls).
describe.skipIf(!hasWrapper('mpich'))('CMake without Node', () => {
  it('builds and installs the preload library, which a C program under mpiexec then runs through', async () => {
    const mpicc = wrapperAlone(DEBIAN_WRAPPERS.mpich);
    made.push(path.dirname(mpicc));
    const tools = toolsOnlyPath();
    made.push(tools);
    const build = temp('cmake-build');
    const prefix = temp('cmake-prefix');
    // No node on PATH, no MPI but MPICC.
    const env = { HOME: process.env.HOME ?? '/root', PATH: tools, MPICC: mpicc };
    const started = Date.now();
    for (const args of [
      ['-S', repoRoot, '-B', build],
      // A count: a bare --parallel is make -j, without a limit.
      ['--build', build, '--parallel', String(availableParallelism())],
      ['--install', build, '--prefix', prefix],
    ]) {
      const r = await spawnAsync(path.join(tools, 'cmake'), args, { env });
      expect(r.status, `cmake ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
      if (args[0] === '-S') expect(r.stdout).toContain(`building against MPICH ${launcherVersion('mpich')} (MPICC=${mpicc})`);
    }
    console.log(`CMake configure + build + install without Node: ${((Date.now() - started) / 1000).toFixed(0)} s`);
    expect(existsSync(path.join(build, 'topocoll_native.node'))).toBe(false);
    const lib = path.join(prefix, 'lib/libtopocoll.so');
    const nm = spawnSync('nm', ['-D', '--defined-only', lib], { encoding: 'utf8' });
    for (const sym of ['MPI_Allgather', 'MPI_Bcast', 'MPI_Barrier', 'MPI_Alltoall']) expect(nm.stdout).toMatch(new RegExp(` T ${sym}\\b`));

    // What to preload, told two ways.
    const preload = path.join(prefix, 'bin/topocoll-preload');
    expect(spawnSync(preload, [], { encoding: 'utf8' }).stdout.trim()).toBe(lib);
    const pc = spawnSync('pkg-config', ['--variable=preload', 'topocoll'], { env: { ...process.env, PKG_CONFIG_PATH: path.join(prefix, 'lib/pkgconfig') }, encoding: 'utf8' });
    expect(pc.status, pc.stderr).toBe(0);
    expect(path.resolve(pc.stdout.trim())).toBe(lib);

    // A C program built with the same wrapper, run through topocoll-preload: the library's
    // choices are printed (TOPOCOLL_VERBOSE), the program checks every received byte.
    const program = path.join(build, 'preload_basic');
    const cc = spawnSync(mpicc, ['-O1', '-o', program, path.join(repoRoot, 'test/c/preload_basic.c')], { env, encoding: 'utf8' });
    expect(cc.status, cc.stderr).toBe(0);
    const job = await runJob(preload, ['/usr/bin/mpiexec.mpich', '-n', '2', program], {
      env: { PATH: tools, TOPOCOLL_VERBOSE: '1', TOPOCOLL_STATS: '2' },
      timeoutMs: 120_000,
    });
    expect(job.code, job.stdout + job.stderr).toBe(0);
    expect(job.stdout).toContain('preload_basic: ok on 2 ranks');
    expect(job.stderr).toMatch(/^topocoll: comm \d+ \(p=2\) allgather .* -> /m);
    expect(job.stderr).toMatch(/^topocoll stats: rank 0 allgather/m);
  }, 900_000);
});

describe.skipIf(FLAVOURS.length === 0)('scripts/build-native.mjs', () => {
  const buildNative = (env: Record<string, string> = {}) =>
    spawnAsync(process.execPath, ['scripts/build-native.mjs'], { cwd: repoRoot, env: { ...process.env, ...env } });

  it('rebuilds and replaces nothing when nothing changed; TOPOCOLL_MPI restricts it to one flavour', async () => {
    const first = await buildNative(); // brings everything up to date (a no-op after npm test's own build)
    expect(first.status, first.stderr).toBe(0);
    const products = FLAVOURS.flatMap((f) => ['libtopocoll.so', 'topocoll_native.node', 'mpi.json'].map((p) => path.join(repoRoot, 'lib/native', f, p)));
    const mtimes = products.map((p) => statSync(p).mtimeMs);
    const started = Date.now();
    const again = await buildNative();
    console.log(`build-native.mjs with nothing to do: ${Date.now() - started} ms`);
    expect(again.status, again.stderr).toBe(0);
    for (const f of FLAVOURS) expect(again.stdout).toMatch(new RegExp(`: up to date in lib/native/${f}/`));
    expect(again.stdout).not.toMatch(/Building CXX|Linking/);
    expect(products.map((p) => statSync(p).mtimeMs)).toEqual(mtimes);

    const one = await buildNative({ TOPOCOLL_MPI: FLAVOURS[0] });
    expect(one.status, one.stderr).toBe(0);
    expect(one.stdout.match(/: up to date in lib\/native\/(\w+)\//g)).toEqual([`: up to date in lib/native/${FLAVOURS[0]}/`]);
  }, 900_000);

  it('records in mpi.json the MPI each build used, with a launcher of that same MPI', () => {
    for (const f of FLAVOURS) {
      const m = JSON.parse(readFileSync(path.join(repoRoot, 'lib/native', f, 'mpi.json'), 'utf8'));
      expect(m.flavour).toBe(f);
      expect(m.version).toMatch(/^\d+\.\d+/);
      const v = spawnSync(m.launcher, ['--version'], { encoding: 'utf8' });
      expect(v.stdout + v.stderr).toContain(m.version);
    }
  });
});
