// Allreduce through the preload library (test/c/reductions.c): every algorithm the library lists,
// native and auto, forced in turn, on every predefined op on int/float/double, MINLOC/MAXLOC on
// MPI_DOUBLE_INT, user-defined ops that are not commutative (on a contiguous type and on a
// derived type with holes), counts 0 to 1 MiB, in place and not, blocking and nonblocking, and
// every other predefined type the library has loops for with each op MPI defines on it; every
// receive buffer byte for byte equal to PMPI_Allreduce's, and the same bits on every rank. Under
// TOPOCOLL_FALLBACK=error (the tests' setting) a forced algorithm that cannot run a call must fail
// it on every rank. TOPOCOLL_STATS proves the calls ran through the engine.
import { describeReductionSuite } from '../c/preload-helpers';

describeReductionSuite({
  collective: 'allreduce',
  algorithms: ['recursive_doubling', 'reduce_scatter_allgather', 'ring', 'hierarchical', 'multi_leader'],
  np: { openmpi: [1, 2, 3, 4, 5, 7, 8], mpich: [1, 2, 3] },
  // Oversubscribed Open MPI jobs (more ranks than the 2 cores) leave out the 1 MiB vectors (65539
  // elements still cut into uneven blocks and segments), and from 7 ranks keep to 1024 elements;
  // MPICH 4.0 busy-polls, and on 3 ranks keeps to 7 (about a minute per MPI in all on an idle machine).
  args: (flavour, np) => {
    if (np <= 2 || (flavour === 'openmpi' && np <= 3)) return [];
    return ['--max-count', flavour === 'mpich' ? '7' : np >= 7 ? '1024' : '65539'];
  },
  // The refusals the program expects were the library's, for the reasons it gives.
  refusals: [
    /TOPOCOLL_ALLREDUCE_ALGORITHM=ring cannot run this call: the op is not commutative/,
    /TOPOCOLL_ALLREDUCE_ALGORITHM=multi_leader cannot run this call: the op is not commutative/,
    /cannot run this call: a nonblocking call with a user-defined op/,
  ],
});
