// A PATH without the system's MPIs: a folder of links to just the tools a build needs, and an MPI
// compiler wrapper in a folder of its own, as an environment module or Spack would provide one.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Compilers, CMake, the build tool and what the MPI wrappers (shell scripts) call. No pkg-config. */
export const BUILD_TOOLS = [
  'cmake', 'ninja', 'make', 'c++', 'g++', 'gcc', 'cc', 'cpp', 'as', 'ld', 'ar', 'ranlib', 'nm', 'strip',
  'sh', 'bash', 'sed', 'grep', 'cat', 'dirname', 'basename', 'uname', 'rm', 'mkdir', 'tr', 'expr', 'cp', 'mv',
];

/** A folder of links to `tools` (those this machine has), for PATH. */
export function toolsOnlyPath(tools: string[] = BUILD_TOOLS): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'topocoll-tools-'));
  for (const tool of tools) {
    let real = '';
    try {
      real = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim();
    } catch {
      continue; // not on this machine (make when ninja is there, ...)
    }
    if (real.startsWith('/')) symlinkSync(real, path.join(dir, tool));
  }
  return dir;
}

/** `name` in a folder of its own, linking to `target`. */
export function wrapperAlone(target: string, name = 'mpicc'): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'topocoll-mpi-'));
  mkdirSync(dir, { recursive: true });
  const link = path.join(dir, name);
  symlinkSync(target, link);
  return link;
}

/** Debian's suffixed wrappers, where this machine has them. */
export const DEBIAN_WRAPPERS = { openmpi: '/usr/bin/mpicc.openmpi', mpich: '/usr/bin/mpicc.mpich' } as const;
export const hasWrapper = (flavour: keyof typeof DEBIAN_WRAPPERS): boolean => existsSync(DEBIAN_WRAPPERS[flavour]);

/**
 * The version each MPI's launcher reports (`mpiexec --version`), to check discovery against a
 * source other than the mpi.h it reads.
 */
export function launcherVersion(flavour: keyof typeof DEBIAN_WRAPPERS): string {
  const launcher = flavour === 'openmpi' ? '/usr/bin/mpiexec.openmpi' : '/usr/bin/mpiexec.mpich';
  const text = execFileSync(launcher, ['--version'], { encoding: 'utf8' });
  const m = flavour === 'openmpi' ? /\)\s+(\d+\.\d+\.\d+)/.exec(text) : /Version:\s+(\S+)/.exec(text);
  if (!m) throw new Error(`no version in ${launcher} --version: ${text}`);
  return m[1];
}
