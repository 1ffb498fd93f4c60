// CMakeLists.txt builds the same products as binding.gyp, from the same source list.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/mpirun';
import { spawnAsync } from '../helpers/spawn';

describe('CMake build', () => {
  it('builds libtopocoll.so (exporting the MPI_* overrides) and a loadable addon', async () => {
    const r = await spawnAsync(process.execPath, ['scripts/build-native.mjs', '--cmake'], {
      cwd: repoRoot,
      env: { ...process.env, TOPOCOLL_MPI: 'openmpi' },
    });
    expect(r.status, r.stderr + r.stdout).toBe(0);
    const dir = path.join(repoRoot, 'build-cmake/openmpi');
    expect(existsSync(path.join(dir, 'libtopocoll.so'))).toBe(true);
    const nm = spawnSync('nm', ['-D', '--defined-only', path.join(dir, 'libtopocoll.so')], { encoding: 'utf8' });
    for (const sym of ['MPI_Allgather', 'MPI_Bcast', 'MPI_Barrier', 'MPI_Alltoall']) expect(nm.stdout).toMatch(new RegExp(` T ${sym}\\b`));
    // The addon loads (no MPI_Init needed) and knows the same algorithms as the node-gyp build.
    const load = spawnSync(process.execPath, ['-p', `JSON.stringify(require(${JSON.stringify(path.join(dir, 'topocoll_native.node'))}).registeredAlgorithms())`], {
      encoding: 'utf8',
    });
    expect(load.status, load.stderr).toBe(0);
    const gyp = spawnSync(process.execPath, ['-p', `JSON.stringify(require(${JSON.stringify(path.join(repoRoot, 'lib/native/openmpi/topocoll_native.node'))}).registeredAlgorithms())`], {
      encoding: 'utf8',
    });
    expect(JSON.parse(load.stdout)).toEqual(JSON.parse(gyp.stdout));
  }, 600_000);
});
