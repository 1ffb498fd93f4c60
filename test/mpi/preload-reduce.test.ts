// Reduce through the preload library (test/c/reductions.c --collective reduce): every algorithm
// the library lists, native and auto, forced in turn, on every predefined op on int/float/double,
// MINLOC/MAXLOC, user-defined ops that are not commutative (on a contiguous type and on a derived
// type with holes), counts 0, 1, 7, 1024 and 65539, in place at the root and not, blocking and
// nonblocking, the root moving over every rank; every rank's receive buffer byte for byte equal
// to PMPI_Reduce's (the root's result, the others' left untouched). Both reduce algorithms combine
// in rank order; a nonblocking call with a user-defined op must be refused under
// TOPOCOLL_FALLBACK=error (the tests' setting).
import { describeReductionSuite } from '../c/preload-helpers';

describeReductionSuite({
  collective: 'reduce',
  algorithms: ['binomial', 'reduce_scatter_gather', 'hierarchical'],
  np: { openmpi: [1, 2, 3, 4, 5, 7, 8], mpich: [1, 2, 3] },
  // No 1 MiB vectors (the allreduce test has them); MPICH 4.0 busy-polls: 1024 elements on 3 ranks.
  args: (flavour, np) => ['--max-count', flavour === 'mpich' && np > 2 ? '1024' : '65539'],
  refusals: [/TOPOCOLL_REDUCE_ALGORITHM=\w+ cannot run this call: a nonblocking call with a user-defined op/],
});
