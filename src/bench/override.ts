// The run-time algorithm override (native/engine/override.h) as TypeScript sees it: force one
// algorithm for a collective in this process, outranking TOPOCOLL_<COLL>_ALGORITHM and the rules.
// For benchmarks and tests; every rank must set the same override before its next call.
import { addon } from '../mpi/native';
import type { CollectiveName } from '../select/registry';

/** Forces `name` (an algorithm of `collective`, or 'native') for this process; null or 'auto' clears it. */
export function setAlgorithm(collective: CollectiveName, name: string | null): void {
  addon().setAlgorithm(collective, name);
}

/** The override in force for `collective`, or null. */
export function getAlgorithm(collective: CollectiveName): string | null {
  return addon().getAlgorithm(collective);
}

/**
 * Why the overridden algorithm of `collective` could not run a call since the last query (native
 * ran instead), or null if it always ran. Clears the note.
 */
export function takeFallback(collective: CollectiveName): string | null {
  return addon().takeFallback(collective);
}
