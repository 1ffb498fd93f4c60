// MPI's lifecycle in a Node process, as mpi4py does it: initialized on first use (or by init()),
// never twice, finalized at a clean exit, and aborted when the process dies of an error so that
// no rank waits forever for a dead one.
import { addon, launcherFor, launcherWorldSize, loadedFlavour } from './native';
import { installTopologyFromEnvironment } from '../topology';

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
  /** False when MPI was already initialized by someone else (then we never finalize it). */
  initializedHere: boolean;
}

let state: InitResult | undefined;
let aborting = false;

function levelName(value: number): ThreadLevel {
  const levels = addon().threadLevels as Record<ThreadLevel, number>;
  return (Object.keys(levels) as ThreadLevel[]).find((k) => levels[k] === value) ?? 'single';
}

/** Initializes MPI (once). Called implicitly by the first use of `world` or any communicator. */
export function init(options: InitOptions = {}): InitResult {
  if (state) return state;
  const native = addon();
  const level = options.threadLevel ?? 'single';
  const levels = native.threadLevels as Record<string, number>;
  if (!(level in levels)) {
    throw new TypeError(`init: threadLevel "${level}" is not valid; valid choices: ${Object.keys(levels).join(', ')}`);
  }
  // A bad TOPOCOLL_* value stops us here, before MPI_Init, so nothing is left half-started.
  native.loadConfig();
  installTopologyFromEnvironment(native); // TOPOCOLL_TOPOLOGY, read here (YAML or JSON) for the engine
  const r = native.init(levels[level]);
  state = { provided: levelName(r.provided), initializedHere: r.initializedHere };
  if (options.exitHandlers !== false) installExitHandlers();
  checkLauncherAgreement();
  return state;
}

export function initialized(): boolean {
  return state !== undefined;
}

/** Finalizes MPI if we initialized it. Called automatically at a clean exit. */
export function finalize(): void {
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
        `${flavour === 'openmpi' ? 'Open MPI' : 'MPICH'}, so launch with ${launcherFor(flavour)}`,
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
    abort(1);
  };
  process.on('uncaughtException', die('uncaught exception'));
  process.on('unhandledRejection', die('unhandled rejection'));
}
