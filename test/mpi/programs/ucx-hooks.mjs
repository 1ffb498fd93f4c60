// Starts MPI and passes a barrier: under MPICH with UCX_MEM_LOG_LEVEL=debug, UCX says whether it
// patched libc's mmap (binding-suite.test.ts checks that Node ranks keep it from doing so).
import { world } from '../../../esm/index.mjs';

world.barrier();
console.log(`rank ${world.rank} passed the barrier`);
