// A rank that fails must end the whole job (MPI_Abort), not leave the others waiting forever.
//   node binding-abort.js throw|reject|exitcode
// Rank 1 fails after the others have entered a barrier (or a receive) that it will never join.
const { world } = require('../../../dist/index.js');

const mode = process.argv[2];
world.barrier();
if (world.rank === 1) {
  if (mode === 'throw') setTimeout(() => { throw new Error('deliberate failure in rank 1'); }, 100);
  else if (mode === 'reject') setTimeout(() => Promise.reject(new Error('deliberate rejection in rank 1')), 100);
  else if (mode === 'exitcode') process.exitCode = 3; // returns normally: exit handler must abort, not finalize
  else throw new Error(`unknown mode ${mode}; valid: throw, reject, exitcode`);
} else {
  world.barrier(); // never completes: rank 1 does not come
  console.log(`rank ${world.rank} passed a barrier rank 1 never entered`);
}
