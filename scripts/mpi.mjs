// Where the system MPIs are and how to compile against them. Debian installs Open MPI and MPICH
// side by side; their wrappers and launchers carry the flavour as a suffix (mpicc.openmpi,
// mpirun.mpich), and the unsuffixed names follow update-alternatives, so we never use those.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const FLAVOURS = {
  openmpi: {
    title: 'Open MPI',
    packages: ['openmpi-bin', 'libopenmpi-dev'],
    mpicc: 'mpicc.openmpi',
    mpirun: 'mpirun.openmpi',
    compileArgs: ['--showme:compile'],
    linkArgs: ['--showme:link'],
  },
  mpich: {
    title: 'MPICH',
    packages: ['mpich', 'libmpich-dev'],
    mpicc: 'mpicc.mpich',
    mpirun: 'mpirun.mpich',
    compileArgs: ['-compile_info'],
    linkArgs: ['-link_info'],
  },
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

function onPath(cmd) {
  return (process.env.PATH || '/usr/bin').split(':').some((dir) => existsSync(`${dir}/${cmd}`));
}

export function isInstalled(flavour) {
  const f = FLAVOURS[flavour];
  return onPath(f.mpicc) && onPath(f.mpirun);
}

export function installedFlavours() {
  return Object.keys(FLAVOURS).filter(isInstalled);
}

function wrapperWords(flavour, args) {
  const f = FLAVOURS[flavour];
  if (!isInstalled(flavour)) {
    throw new Error(`${f.title} is not installed (${f.mpicc} not found); ${installHint()}`);
  }
  const out = execFileSync(f.mpicc, args, { encoding: 'utf8' }).trim().split(/\s+/);
  // MPICH's -compile_info starts with the compiler itself.
  return out.filter((w, i) => !(i === 0 && !w.startsWith('-')));
}

/** Compiler and linker flags for one flavour, from its compiler wrapper. */
export function mpiFlags(flavour) {
  const compile = wrapperWords(flavour, FLAVOURS[flavour].compileArgs);
  const link = wrapperWords(flavour, FLAVOURS[flavour].linkArgs);
  return {
    includeDirs: compile.filter((w) => w.startsWith('-I')).map((w) => w.slice(2)),
    libDirs: link.filter((w) => w.startsWith('-L')).map((w) => w.slice(2)),
    libs: link.filter((w) => w.startsWith('-l')),
    ldflags: link.filter((w) => w.startsWith('-Wl,')),
  };
}
