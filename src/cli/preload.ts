// `topocoll preload`: the absolute path of the libtopocoll.so to put in LD_PRELOAD, for the MPI
// the program runs under. Loads no MPI: it only looks at files and the environment.
import fs from 'node:fs';
import path from 'node:path';
import { envValue } from '../config/env';
import { UsageError, parseOptions } from '../config/args';
import { packageRoot, type Flavour } from '../mpi/native';
import { MPI_FLAVOUR_TITLES } from '../select/registry';
import type { Command } from './main';

const FLAVOURS = Object.keys(MPI_FLAVOUR_TITLES) as Flavour[];

export function preloadLibrary(flavour: Flavour): string {
  return path.join(packageRoot, 'lib', 'native', flavour, 'libtopocoll.so');
}

function builtFlavours(): Flavour[] {
  return FLAVOURS.filter((f) => fs.existsSync(preloadLibrary(f)));
}

/** The real file behind the launcher each build recorded (lib/native/<flavour>/mpi.json). */
function builtLauncher(flavour: Flavour): string | null {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(packageRoot, 'lib', 'native', flavour, 'mpi.json'), 'utf8'));
    return typeof manifest.launcher === 'string' ? fs.realpathSync(manifest.launcher) : null;
  } catch {
    return null;
  }
}

/**
 * The MPI that the plain `mpirun` on PATH belongs to, or null: the build whose launcher it is
 * (a module's, Spack's, Debian's alternative), else a guess from the file it resolves to.
 */
function defaultMpirunFlavour(env: NodeJS.ProcessEnv = process.env): Flavour | null {
  for (const dir of (env.PATH ?? '').split(':')) {
    if (!dir) continue;
    const candidate = path.join(dir, 'mpirun');
    let target: string;
    try {
      target = fs.realpathSync(candidate);
    } catch {
      continue;
    }
    const built = FLAVOURS.find((f) => builtLauncher(f) === target);
    if (built) return built;
    if (/openmpi|orterun|prterun/.test(target)) return 'openmpi';
    if (/mpich|hydra/.test(target)) return 'mpich';
    return null;
  }
  return null;
}

/**
 * Which MPI's library to preload: `explicit` (--mpi), else TOPOCOLL_MPI, else the launcher of the
 * job we run in, else the MPI of the plain `mpirun`, else the only one built. Errors name the
 * valid choices and how to build the missing one.
 */
export function preloadFlavour(explicit?: string, env: NodeJS.ProcessEnv = process.env): Flavour {
  const built = builtFlavours();
  const check = (name: string, source: string): Flavour => {
    if (!(FLAVOURS as readonly string[]).includes(name)) {
      throw new UsageError(`${source}="${name}" is not a supported MPI; valid choices: ${FLAVOURS.join(', ')}`);
    }
    const f = name as Flavour;
    // Not built: a failure of the installation (exit 1), not of the command line.
    if (!built.includes(f)) {
      throw new Error(
        `libtopocoll.so is not built for ${MPI_FLAVOUR_TITLES[f]} (${preloadLibrary(f)} is missing); build it: TOPOCOLL_MPI=${f} npm run build:native` +
          (built.length ? ` (built: ${built.join(', ')})` : ''),
      );
    }
    return f;
  };
  if (explicit !== undefined) return check(explicit, '--mpi');
  const requested = envValue('TOPOCOLL_MPI', env);
  if (requested) return check(requested, 'TOPOCOLL_MPI');
  if (env.OMPI_COMM_WORLD_SIZE !== undefined) return check('openmpi', 'the launcher (Open MPI)');
  if (env.PMI_SIZE !== undefined || env.HYDRA_CONTROL_FD !== undefined) return check('mpich', 'the launcher (MPICH)');
  const fromPath = defaultMpirunFlavour(env);
  if (fromPath && built.includes(fromPath)) return fromPath;
  if (built.length === 0) {
    throw new Error('libtopocoll.so is not built for any MPI; run `npm run build:native` (or `bash scripts/setup.sh`)');
  }
  if (built.length > 1 && fromPath === null) {
    throw new UsageError(`libtopocoll.so is built for ${built.join(' and ')}; say which: --mpi ${built.join('|')} or TOPOCOLL_MPI`);
  }
  return built[0];
}

export const preload: Command = {
  summary: 'print the absolute path of libtopocoll.so, for LD_PRELOAD',
  usage: 'topocoll preload [--mpi openmpi|mpich]   (default: TOPOCOLL_MPI, else the MPI of `mpirun`)',
  async run(args: string[]): Promise<number> {
    const { options } = parseOptions(args, { mpi: { type: 'string', choices: FLAVOURS } });
    console.log(preloadLibrary(preloadFlavour(options.mpi as string | undefined)));
    return 0;
  },
};
