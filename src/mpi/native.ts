// Loads the addon built for the MPI that launched us. Each installed flavour has its own build
// under lib/native/<flavour>/; the launcher's environment tells which mpirun started the job.
import fs from 'node:fs';
import path from 'node:path';
import type { NativeAddon } from './addon';
import { MpiError } from './errors';
import { envValue } from '../config/env';
import { MPI_FLAVOUR_TITLES, MPI_FLAVOURS, type MpiFlavour } from '../select/registry';

export type Flavour = MpiFlavour;
export const FLAVOUR_TITLES = MPI_FLAVOUR_TITLES;

export const packageRoot = path.resolve(__dirname, '..', '..');
export const nativeRoot = path.join(packageRoot, 'lib', 'native');

/** Which MPI's launcher started this process, from the variables each one sets; null if none. */
export function launcherFlavour(env: NodeJS.ProcessEnv = process.env): Flavour | null {
  if (env.OMPI_COMM_WORLD_SIZE !== undefined) return 'openmpi';
  if (env.PMI_SIZE !== undefined || env.PMI_RANK !== undefined || env.HYDRA_CONTROL_FD !== undefined) return 'mpich';
  return null;
}

/** The size of the job according to the launcher, or null when not launched by one. */
export function launcherWorldSize(env: NodeJS.ProcessEnv = process.env): number | null {
  const v = env.OMPI_COMM_WORLD_SIZE ?? env.PMI_SIZE;
  return v === undefined ? null : Number(v);
}

function builtFlavours(): Flavour[] {
  return MPI_FLAVOURS.filter((f) => fs.existsSync(path.join(nativeRoot, f, 'topocoll_native.node')));
}

/** The flavour to load: TOPOCOLL_MPI, else the launcher's, else the first built one. */
function chooseFlavour(env: NodeJS.ProcessEnv = process.env): Flavour {
  const built = builtFlavours();
  if (built.length === 0) {
    throw new Error('topocoll: the native addon is not built; run `npm run build:native` (or `bash scripts/setup.sh`)');
  }
  const requested = envValue('TOPOCOLL_MPI', env) as Flavour | undefined;
  if (requested !== undefined && !(requested in FLAVOUR_TITLES)) {
    throw new Error(`topocoll: TOPOCOLL_MPI="${requested}" is not a supported MPI; valid choices: openmpi, mpich`);
  }
  const launcher = launcherFlavour(env);
  const wanted = requested ?? launcher ?? built[0];
  if (!built.includes(wanted)) {
    const how = requested ? 'TOPOCOLL_MPI asks for' : 'this job was launched by';
    throw new Error(
      `topocoll: ${how} ${FLAVOUR_TITLES[wanted]}, but topocoll is built only for ${built.map((f) => FLAVOUR_TITLES[f]).join(', ')}; ` +
        `launch with ${built.map((f) => launcherFor(f)).join(' or ')}, or build for it: TOPOCOLL_MPI=${wanted} npm run build:native`,
    );
  }
  if (launcher && launcher !== wanted) {
    throw new Error(
      `topocoll: this job was launched by ${FLAVOUR_TITLES[launcher]}'s mpirun but TOPOCOLL_MPI=${wanted}; ` +
        `launch with ${launcherFor(wanted)} instead`,
    );
  }
  return wanted;
}

/**
 * The launcher of the MPI that `flavour` was built against, from the build's manifest
 * (lib/native/<flavour>/mpi.json, written by scripts/build-native.mjs); `mpirun` when unknown.
 */
export function launcherFor(flavour: Flavour): string {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(nativeRoot, flavour, 'mpi.json'), 'utf8'));
    if (typeof manifest.launcher === 'string' && manifest.launcher) return manifest.launcher;
  } catch {
    /* not built, or built before manifests existed */
  }
  return 'mpirun';
}

let loaded: { flavour: Flavour; addon: NativeAddon } | undefined;

/**
 * MPICH 4.0 here runs over UCX, whose memory hooks (mode "bistro") rewrite the first bytes of
 * libc's mmap/munmap/mremap/shmat/shmdt in the running process at MPI_Init. A C program has one
 * thread then; Node has V8's compiler and GC threads calling mmap at that moment, and one can run
 * a half-written instruction: MPICH Node ranks died with SIGSEGV inside V8, about one launch in
 * a hundred (UCX's known bistro-patching race). Unless the user chose a mode, the hooks are off:
 * MPICH's shared-memory and TCP paths keep no registration cache that needs them. Set before the
 * addon loads UCX.
 */
function avoidUcxMmapHooks(env: NodeJS.ProcessEnv, flavour: Flavour): void {
  if (flavour === 'mpich' && env.UCX_MEM_MMAP_HOOK_MODE === undefined) env.UCX_MEM_MMAP_HOOK_MODE = 'none';
}

/**
 * Whether some thread of this process has loaded the addon (Linux: it is mapped; elsewhere
 * assumed). A worker_thread asks before loading it itself: loading MPICH there first would set up
 * UCX's memory hooks with the worker's copy of the environment, which does not reach the C
 * library (avoidUcxMmapHooks above has no effect from a worker), and UCX patching mmap under
 * V8's running threads corrupts memory.
 */
export function addonLoadedInProcess(): boolean {
  let maps: string;
  try {
    maps = fs.readFileSync('/proc/self/maps', 'utf8');
  } catch {
    return true;
  }
  return maps.includes('topocoll_native.node');
}

/** The addon (loaded once), typed by its declaration (src/mpi/addon.ts). */
export function addon(): NativeAddon {
  if (!loaded) {
    const flavour = chooseFlavour();
    avoidUcxMmapHooks(process.env, flavour);
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const loadedExports: NativeAddon = require(path.join(nativeRoot, flavour, 'topocoll_native.node'));
    // A copy with fast properties: the addon's exports object, given its ~170 properties one by
    // one, is a dictionary, so that every addon().f() of a hot path looked f up in a hash table
    // (a LoadIC miss) instead of loading a field. Its values are all set by the addon's init.
    const native: NativeAddon = { ...loadedExports };
    // MPI failures thrown by the addon are then `instanceof MpiError`.
    native.setMpiErrorClass(MpiError);
    // Every Status (a receive's, a probe's) is this object literal, made in JS: one shape for all.
    native.setStatusFactory((source, tag, count, bytes, cancelled, error) => ({ source, tag, count, bytes, cancelled, error }));
    loaded = { flavour, addon: native };
  }
  return loaded.addon;
}

export function loadedFlavour(): Flavour {
  addon();
  return loaded!.flavour;
}
