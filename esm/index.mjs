// ES module entry of topocoll: the CommonJS API (dist/index.js) re-exported. As with
// `from mpi4py import MPI`, importing this entry initializes MPI (its named exports `world`,
// `rank`, `size` are values, not getters); to pass init() options, call init() through the
// CommonJS entry (`createRequire(import.meta.url)('topocoll').init({...})`) before importing it.
import topocoll from '../dist/index.js';

export default topocoll;
// Every name that dist/index.js exports as tsc writes it (Node reads them from the CommonJS code).
export * from '../dist/index.js';
// These five are getters on the CommonJS exports (MPI starts at the first use), which Node's
// reading of CommonJS code does not see: values here.
export const { world, COMM_WORLD, COMM_SELF, rank, size } = topocoll;
