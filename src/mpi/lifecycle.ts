// MPI's lifecycle in a Node process, as mpi4py does it: initialized on first use (or by init()),
// never twice, finalized at a clean exit, and aborted when the process dies of an error so that
// no rank waits forever for a dead one.
import { isMainThread } from 'node:worker_threads';
import { addon, addonLoadedInProcess, launcherFor, launcherWorldSize, loadedFlavour } from './native';
import { MPI_FLAVOUR_TITLES } from '../select/registry';
import { installRulesFromEnvironment, installTopologyFromEnvironment } from './files';

export type ThreadLevel = 'single' | 'funneled' | 'serialized' | 'multiple';

export interface InitOptions {
  /** Thread support requested from MPI_Init_thread. Default 'single' (Node calls MPI from its main thread). */
  threadLevel?: ThreadLevel;
  /** Finalize at a clean exit and abort the job on an uncaught error. Default true. */
  exitHandlers?: boolean;
}

export interface InitResult {
  /** The thread level MPI provides. */
  provided: ThreadLevel;
  /**
   * True only on the thread that initialized MPI: false when MPI was already initialized by
   * someone else (then we never finalize it), and in every worker_thread.
   */
  initializedHere: boolean;
}

let state: InitResult | undefined;
let requestedLevel: ThreadLevel = 'single';
let aborting = false;

function levelName(value: number): ThreadLevel {
  const levels = addon().threadLevels;
  return (Object.keys(levels) as ThreadLevel[]).find((k) => levels[k] === value) ?? 'single';
}

/**
 * Open MPI 4.1's AVX reduction component saturates 8-bit MPI_SUM (int8/uint8) instead of wrapping
 * (open-mpi/ompi#8045). Unless the user chose op components (OMPI_MCA_op), exclude it before
 * MPI_Init reads its parameters, so that Int8Array/Uint8Array sums wrap as MPI specifies.
 */
export function avoidOpenMpiAvxOp(env: NodeJS.ProcessEnv, flavour: string): void {
  if (flavour === 'openmpi' && env.OMPI_MCA_op === undefined) env.OMPI_MCA_op = '^avx';
}

/**
 * Initializes MPI (once). Called implicitly by the first use of `world` or any communicator.
 * In a worker_thread it joins the MPI the main thread initialized, which must provide
 * 'multiple'; otherwise it throws (MPI must not be called from that thread).
 */
export function init(options: InitOptions = {}): InitResult {
  if (!isMainThread) return (state ??= joinFromWorker());
  if (state) {
    if (options.threadLevel !== undefined && options.threadLevel !== requestedLevel) {
      throw new Error(
        `init: MPI is already initialized (thread level "${requestedLevel}" requested); call init({ threadLevel }) before any other use of topocoll`,
      );
    }
    return state;
  }
  const native = addon();
  avoidOpenMpiAvxOp(process.env, loadedFlavour());
  const level = options.threadLevel ?? 'single';
  const levels = native.threadLevels;
  if (!(level in levels)) {
    throw new TypeError(`init: threadLevel "${level}" is not valid; valid choices: ${Object.keys(levels).join(', ')}`);
  }
  // A bad TOPOCOLL_* value stops us here, before MPI_Init, so nothing is left half-started.
  installRulesFromEnvironment(native); // TOPOCOLL_RULES (YAML or JSON), before loadConfig reads it as JSON
  native.loadConfig();
  installTopologyFromEnvironment(native); // TOPOCOLL_TOPOLOGY, read here (YAML or JSON) for the engine
  const r = native.init(levels[level]);
  requestedLevel = level;
  state = { provided: levelName(r.provided), initializedHere: r.initializedHere };
  native.commErrorsReturn(1); // COMM_SELF too: MPI errors become MpiErrors, not a dead job
  if (options.exitHandlers !== false) installExitHandlers();
  checkLauncherAgreement();
  return state;
}

// A worker_thread uses the MPI the main thread started, at MPI_THREAD_MULTIPLE only: under any
// lower level a call from a second thread can deadlock or corrupt MPI (native init throws). It
// never starts MPI, reads no configuration (the main thread did), and installs no exit handlers:
// finalizing and aborting are the main thread's.
function joinFromWorker(): InitResult {
  if (!addonLoadedInProcess() || !addon().state().initialized) {
    throw new Error(
      "topocoll: MPI is not initialized; a worker_thread cannot start it: call init({ threadLevel: 'multiple' }) on the main thread before starting workers that use MPI",
    );
  }
  const native = addon();
  const r = native.init(native.threadLevels.multiple);
  return { provided: levelName(r.provided), initializedHere: r.initializedHere };
}

export function initialized(): boolean {
  return state !== undefined;
}

/** MPI_Finalized: whether MPI has been finalized (by topocoll or by whoever initialized it). */
export function isFinalized(): boolean {
  return addon().state().finalized;
}

// MPI_Query_thread and MPI_Is_thread_main are defined only between MPI_Init and MPI_Finalize.
function initializedForQuery(what: string): void {
  if (isFinalized()) throw new Error(`${what}: MPI is finalized; it can be asked only between init() and finalize()`);
  init();
}

/** MPI_Query_thread: the thread level MPI provides (what init() returned as `provided`). */
export function queryThread(): ThreadLevel {
  initializedForQuery('queryThread');
  return levelName(addon().queryThread());
}

/** MPI_Is_thread_main: whether the calling thread is the one that initialized MPI. */
export function isThreadMain(): boolean {
  initializedForQuery('isThreadMain');
  return addon().isThreadMain();
}

/** Finalizes MPI if we initialized it. Called automatically at a clean exit. A TypeError in a worker_thread. */
export function finalize(): void {
  if (!isMainThread) throw new TypeError('finalize: only the main thread finalizes MPI (at its exit, or by calling finalize())');
  if (state && !aborting) addon().finalize();
}

/** Ends every rank of the job now (MPI_Abort on COMM_WORLD). */
export function abort(errorcode = 1): never {
  aborting = true;
  addon().abort(errorcode);
  process.exit(errorcode); // not reached: MPI_Abort does not return
}

// A program built for one MPI but started by the other's mpirun runs as p singletons.
function checkLauncherAgreement(): void {
  const expected = launcherWorldSize();
  const size = addon().commSize(0);
  if (expected !== null && expected > 1 && size === 1) {
    const flavour = loadedFlavour();
    throw new Error(
      `topocoll: the launcher started ${expected} processes but MPI sees a world of 1: this build uses ` +
        `${MPI_FLAVOUR_TITLES[flavour]}, so launch with ${launcherFor(flavour)}`,
    );
  }
}

function rankLabel(): string {
  try {
    return `rank ${addon().commRank(0)}`;
  } catch {
    return 'rank ?';
  }
}

const ABORT_FLUSH_MS = 200;

function installExitHandlers(): void {
  process.on('exit', (code) => {
    if (aborting) return;
    if (code === 0) {
      finalize();
    } else {
      aborting = true;
      addon().abort(code & 0xff || 1);
    }
  });
  const die = (kind: string) => (err: unknown) => {
    const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
    process.stderr.write(`topocoll: ${kind} in ${rankLabel()}, aborting the job:\n${text}\n`);
    // MPICH's hydra can kill the job before it has forwarded what this rank just wrote; give the
    // launcher a moment to pass the message on (the job still ends within a second).
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ABORT_FLUSH_MS);
    abort(1);
  };
  process.on('uncaughtException', die('uncaught exception'));
  process.on('unhandledRejection', die('unhandled rejection'));
}
