// ES module entry that leaves MPI alone until the program calls init(): `import { init, world }
// from 'topocoll/manual'`, then `init({ threadLevel: 'multiple' })`. Everything 'topocoll'
// exports is here; `world`, `COMM_WORLD`, `COMM_SELF`, `rank` and `size` are live bindings that
// this entry's init() sets (undefined until then), since an ES module cannot export getters.
import topocoll from '../dist/index.js';

export default topocoll;
export * from '../dist/index.js';

// A getter on the CommonJS exports (loads the addon, starts no MPI), which `export *` misses.
export const { BSEND_OVERHEAD } = topocoll;

export let world;
export let COMM_WORLD;
export let COMM_SELF;
export let rank;
export let size;

/** init() of 'topocoll' (MPI_Init_thread with these options, once), then sets the bindings above. */
export function init(options) {
  const result = topocoll.init(options);
  ({ world, COMM_WORLD, COMM_SELF, rank, size } = topocoll);
  return result;
}
