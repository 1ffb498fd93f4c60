// Types of esm/manual.mjs: those of 'topocoll', with init() setting world, COMM_WORLD, COMM_SELF,
// rank and size (typed as set: use them after init()).
import type { Comm, InitOptions, InitResult } from '../dist/index.js';

export * from '../dist/index.js';
export { default } from '../dist/index.js';

/** MPI_BSEND_OVERHEAD (see 'topocoll'). */
export declare const BSEND_OVERHEAD: number;
/** MPI_COMM_WORLD, set by init(). */
export declare let world: Comm;
/** Alias of `world`, set by init(). */
export declare let COMM_WORLD: Comm;
/** MPI_COMM_SELF, set by init(). */
export declare let COMM_SELF: Comm;
/** Rank of this process in `world`, set by init(). */
export declare let rank: number;
/** Number of processes in `world`, set by init(). */
export declare let size: number;
/** Initializes MPI with these options (once; see 'topocoll' init) and sets the bindings above. */
export declare function init(options?: InitOptions): InitResult;
