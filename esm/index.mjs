// ES module entry of topocoll: the CommonJS API (dist/index.js) re-exported. As with
// `from mpi4py import MPI`, importing this entry initializes MPI (its named exports `world`,
// `rank`, `size` are values, not getters). To pass init() options (a thread level), import
// 'topocoll/manual' (esm/manual.mjs) instead, which initializes MPI when the program calls init().
import topocoll from '../dist/index.js';

export default topocoll;
// Every name that dist/index.js exports as tsc writes it (Node reads them from the CommonJS code).
export * from '../dist/index.js';
// These are getters on the CommonJS exports (MPI starts at the first use of the first five; the
// addon loads at the first use of BSEND_OVERHEAD), which Node's reading of CommonJS code does not
// see: values here.
export const { world, COMM_WORLD, COMM_SELF, rank, size, BSEND_OVERHEAD } = topocoll;
