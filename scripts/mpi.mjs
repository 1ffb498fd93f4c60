// Which MPIs there are and what topocoll was built against. Finding MPI installations is done in
// one place, cmake/TopocollMPI.cmake (run here as `cmake -P cmake/find-mpi.cmake`); each build
// leaves lib/native/<flavour>/mpi.json, its manifest (flavour, version, mpicc, launcher, flags),
// which everything after the build reads instead of guessing names.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The flavours topocoll builds for, by ABI family: MVAPICH and Intel MPI build as mpich. */
export const FLAVOURS = {
  openmpi: { title: 'Open MPI', packages: ['openmpi-bin', 'libopenmpi-dev'] },
  mpich: { title: 'MPICH', packages: ['mpich', 'libmpich-dev'] },
};

export const DEFAULT_FLAVOUR = 'openmpi';

export function installHint() {
  const pkgs = Object.values(FLAVOURS).flatMap((f) => f.packages);
  return `install an MPI and libnuma: apt-get install ${pkgs.join(' ')} libnuma-dev (or run: bash scripts/setup.sh)`;
}

/** The flavour chosen for a build: TOPOCOLL_MPI, or npm's --topocoll-mpi config, or Open MPI. */
export function requestedFlavour(env = process.env) {
  // Trimmed, as every TOPOCOLL_* variable (src/config/env.ts).
  const name = env.TOPOCOLL_MPI?.trim() || env.npm_config_topocoll_mpi || DEFAULT_FLAVOUR;
  if (!FLAVOURS[name]) {
    throw new Error(`TOPOCOLL_MPI="${name}" is not a supported MPI; valid choices: ${Object.keys(FLAVOURS).join(', ')}`);
  }
  return name;
}

/**
 * Every MPI installation found (MPICC, MPI_HOME, PATH, pkg-config, Debian's names), first the one
 * a plain CMake build would use: the records of cmake/find-mpi.cmake. Throws with the places tried.
 */
export function findMpis(env = process.env) {
  const r = spawnSync('cmake', ['-P', path.join(root, 'cmake/find-mpi.cmake')], { cwd: root, env, encoding: 'utf8' });
  if (r.error) throw new Error(`cannot run cmake (${r.error.message}); install CMake 3.18 or later (Debian/Ubuntu: apt-get install cmake)`);
  if (r.status !== 0) {
    // CMake's own "CMake Error at ..." frame adds nothing to our message.
    const text = r.stderr.replace(/CMake Error at [^\n]*\n\s*no MPI found\s*$/, '').replace(/^topocoll: /, '').trim();
    throw new Error(text || `cmake -P cmake/find-mpi.cmake failed (exit ${r.status})`);
  }
  return r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

/** The manifest of the build for `flavour` (lib/native/<flavour>/mpi.json), or null when not built. */
export function mpiInstallation(flavour, nativeRoot = path.join(root, 'lib/native')) {
  const file = path.join(nativeRoot, flavour, 'mpi.json');
  if (!FLAVOURS[flavour] || !existsSync(file) || !existsSync(path.join(nativeRoot, flavour, 'libtopocoll.so'))) return null;
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** The manifests of every flavour built. */
export function builtMpis(nativeRoot) {
  return Object.keys(FLAVOURS).map((f) => mpiInstallation(f, nativeRoot)).filter(Boolean);
}

/** Built, and its launcher is still where the build found it. */
export function isInstalled(flavour) {
  const mpi = mpiInstallation(flavour);
  return !!mpi?.launcher && existsSync(mpi.launcher);
}

/** The flavours built for this machine's MPIs (tests and scripts run each). */
export function installedFlavours() {
  return Object.keys(FLAVOURS).filter(isInstalled);
}

function built(flavour) {
  const mpi = mpiInstallation(flavour);
  if (!mpi) throw new Error(`topocoll is not built for ${FLAVOURS[flavour]?.title ?? flavour}; run: TOPOCOLL_MPI=${flavour} npm run build:native`);
  return mpi;
}

/** The mpiexec/mpirun of the MPI that `flavour` was built against. */
export function launcherPath(flavour) {
  const mpi = built(flavour);
  if (!mpi.launcher) {
    throw new Error(`no launcher (mpiexec, mpirun) was found beside ${mpi.mpicc ?? 'the MPI'} for ${mpi.title}; put it on PATH beside its mpicc and rebuild`);
  }
  return mpi.launcher;
}

/** A compiler wrapper (mpicc, mpifort, mpicxx) of the MPI that `flavour` was built against. */
export function mpiWrapper(flavour, name = 'mpicc') {
  const mpi = built(flavour);
  if (!mpi.mpicc) throw new Error(`${mpi.title} was found through pkg-config, without an mpicc; build with MPICC=/path/to/mpicc`);
  // Its siblings carry the same suffix: mpicc.mpich -> mpifort.mpich.
  return path.join(path.dirname(mpi.mpicc), path.basename(mpi.mpicc).replace(/^mpicc/, name));
}
