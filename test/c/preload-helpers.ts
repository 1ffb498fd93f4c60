// Shared by the preload tests (test/mpi/preload-*.test.ts): where the library is, how each MPI's
// launcher is told to preload it, and the TOPOCOLL_STATS lines it prints at MPI_Finalize.
import path from 'node:path';
import { repoRoot, type Flavour } from '../helpers/mpirun';

export const preloadLibrary = (flavour: Flavour): string => path.join(repoRoot, 'lib/native', flavour, 'libtopocoll.so');

export const preloadArgs = (flavour: Flavour): string[] =>
  flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${preloadLibrary(flavour)}`] : ['-genv', 'LD_PRELOAD', preloadLibrary(flavour)];

/** "topocoll stats: rank R <coll> <algorithm> calls N bytes B" lines, calls summed over ranks. */
export function statsOf(stderr: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const m of stderr.matchAll(/^topocoll stats: rank \d+ (\S+)\s+(\S+)\s+calls (\d+)/gm)) {
    const key = `${m[1]} ${m[2]}`;
    calls.set(key, (calls.get(key) ?? 0) + Number(m[3]));
  }
  return calls;
}
