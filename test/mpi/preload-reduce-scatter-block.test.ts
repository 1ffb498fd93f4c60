// reduce_scatter_block through the preload library (test/c/reductions.c --collective
// reduce_scatter_block), parts of count elements: every algorithm the library lists, native and
// auto, forced in turn, on every predefined op on int/float/double, MINLOC/MAXLOC, user-defined
// ops that are not commutative (on a contiguous type and on a derived type with holes), counts 0,
// 1, 7, 1024 and 65539 per part, in place (every part taken from the receive buffer) and not,
// blocking and nonblocking; each rank's part byte for byte equal to
// PMPI_Reduce_scatter_block's. pairwise combines in rank order; recursive_halving and ring must
// refuse an op that is not commutative, and every forced algorithm a nonblocking call with a
// user-defined op, under TOPOCOLL_FALLBACK=error (the tests' setting).
import { describeReductionSuite } from '../c/preload-helpers';

describeReductionSuite({
  collective: 'reduce_scatter_block',
  algorithms: ['recursive_halving', 'pairwise', 'ring'],
  np: { openmpi: [1, 2, 3, 4, 5, 7, 8], mpich: [1, 2, 3] },
  // Parts of 65539 elements on up to 3 ranks (a vector of p parts), 1024 beyond, and on MPICH 4.0,
  // which busy-polls, on 3 ranks.
  args: (flavour, np) => ['--max-count', np <= 2 || (flavour === 'openmpi' && np <= 3) ? '65539' : '1024'],
  refusals: [
    /TOPOCOLL_REDUCE_SCATTER_BLOCK_ALGORITHM=recursive_halving cannot run this call: the op is not commutative/,
    /TOPOCOLL_REDUCE_SCATTER_BLOCK_ALGORITHM=ring cannot run this call: the op is not commutative/,
    /TOPOCOLL_REDUCE_SCATTER_BLOCK_ALGORITHM=\w+ cannot run this call: a nonblocking call with a user-defined op/,
  ],
});
