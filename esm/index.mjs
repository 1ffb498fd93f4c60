// ES module entry of topocoll: the CommonJS API (dist/index.js) re-exported. As with
// `from mpi4py import MPI`, importing this entry initializes MPI (its named exports `world`,
// `rank`, `size` are values, not getters); to pass init() options, call init() through the
// CommonJS entry (`createRequire(import.meta.url)('topocoll').init({...})`) before importing it.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const topocoll = require('../dist/index.js');

export default topocoll;
export const {
  Comm,
  Request,
  MpiError,
  IN_PLACE,
  ANY_SOURCE,
  ANY_TAG,
  PROC_NULL,
  UNDEFINED,
  OPS,
  SUM,
  PROD,
  MIN,
  MAX,
  LAND,
  LOR,
  LXOR,
  BAND,
  BOR,
  BXOR,
  init,
  initialized,
  isFinalized,
  queryThread,
  isThreadMain,
  finalize,
  abort,
  waitAll,
  waitAllSync,
  waitAny,
  processorName,
  libraryVersion,
  wtime,
  wtick,
  version,
} = topocoll;
export const world = topocoll.world;
export const COMM_WORLD = world;
export const COMM_SELF = topocoll.COMM_SELF;
export const rank = world.rank;
export const size = world.size;
