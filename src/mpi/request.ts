// Nonblocking operations as awaitable requests. Awaited requests are progressed by MPI_Test from
// the calling thread, so MPI needs no thread support beyond MPI_THREAD_SINGLE (a completion thread
// blocked in MPI_Wait would need MPI_THREAD_MULTIPLE, which costs every call).
import type { MpiRequest, NativeRequest } from './addon';
import type { Status } from './comm';
import { addon } from './native';
import { statusArray, statusAt } from './status';

/**
 * How an awaited request is progressed. Right after the program awaits (in a microtask, so that
 * `Promise.all` has handed over every request first), the awaited requests are polled for up to
 * SPIN_US: sends and receives by one native call that spins over them all (p2pTestSome), other
 * requests by MPI_Test from JS. A small operation completes there as fast as its blocking form,
 * and the await costs one microtask. Past that, one poll per event-loop turn (setImmediate), so
 * timers and I/O run, for SPIN_MS after the last await or completion; then timers growing to
 * MAX_DELAY_MS (CPU). A count of spins would end in microseconds, far sooner than a peer rank
 * sharing a core gets to run.
 */
const SPIN_US = 100;
const SPIN_MS = 10;
const MAX_DELAY_MS = 4;
/**
 * Microseconds a spin polls before each further poll idles (idleWhileWaiting), as every
 * event-loop turn's poll does. Where the kernel runs more ranks than it has CPUs, that yields the
 * core: a rank would otherwise keep it for its whole time slice while the ranks it waits for
 * cannot run (an awaited collective over shared memory took milliseconds). Elsewhere it does not:
 * a yield handed the core to CPU hogs for a time slice each, and a halo exchange by Promise.all
 * beside two of them took 3.6 ms (sendrecv 0.1-0.4 ms). The engine's blocking waits idle alike.
 * By time, not a count of polls: the native spin's polls take a fraction of a microsecond.
 */
const YIELD_AFTER_US = 10;

// What waitAll/waitAny/waitSome wait on: `step` progresses (true once done, or throws: a
// rejection), then `resolve` or `reject` settles the promise. `slotsOnly`: it waits on sends and
// receives alone, which the native spin polls (polled below).
interface Waiter {
  step: () => boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
  slotsOnly: boolean;
}

const waiters = new Set<Waiter>();
// Awaited requests other than sends and receives (collectives, persistent, object mode): polled
// by their own MPI_Test.
const awaited = new Set<Request<any>>();
// The sends and receives being awaited or waited for by waitAll, polled all at once by one
// p2pTestSome (a call per request cost more than its MPI_Test).
const polled: Request<any>[] = [];
// What came since the last round of polls (polled[freshFrom..], freshAwaited, freshWaiters): what
// the code that awaits just now waits for, which alone ends a spin. Requests awaited before and
// still pending (a control message's receive, an ibarrier of a termination protocol) are polled
// along; had they held every spin, each awaited exchange would have spun its whole budget.
let freshFrom = 0;
const freshAwaited: Request<any>[] = [];
const freshWaiters: Waiter[] = [];
// A round of p2pTestSome: the slots, their states (0 pending, 1 complete, 2 failed) and Statuses;
// the addon holds them (p2pRound), made again only to grow.
let roundSlots = new Int32Array(0);
let roundStates = new Uint8Array(0);
let roundStatuses = statusArray(0);
// Set by Request (its private state): a pending send's or receive's slot, else -1; completes
// `r`, whose slot p2pTestSome found complete with the Status at `i` of roundStatuses, or fails it
// with `error`; polls an awaited request other than a send or receive (true once it has
// completed or failed).
let pendingSlot: (r: Request<any>) => number;
let finishSlot: (r: Request<any>, i: number, failed: boolean, error: unknown) => void;
let pollAwaited: (r: Request<any>) => boolean;
let makeRequest: <T>(native: NativeRequest, result: (native: NativeRequest) => T, keepAlive: unknown[] | null, kind: RequestKind) => Request<T>;
// Of waitAll, waitAllSync: whether `r` is in `polled`; puts a pending send or receive there (true,
// also for a request that has completed or failed; false for another kind); takes it out again
// when nothing awaits it.
let isPolled: (r: Request<any>) => boolean;
let pollAsSlot: (r: Request<any>) => boolean;
let unpollUnawaited: (r: Request<any>) => void;
let spinQueued = false;
let polling = false; // inside a round of polls: a request completing there needs no new spin
let turn: { immediate: NodeJS.Immediate } | { timer: NodeJS.Timeout } | null = null;
let lastActivity = 0; // performance.now() of the last new waiter or completion
let activity = false; // a waiter came or went since lastActivity was read
let slowTurns = 0;
// queueMicrotask makes an AsyncResource per call; a reaction to a settled promise is V8's own.
const settled = Promise.resolve();
// The resolving functions of the Promise just made by `new Promise(capture)`: a Promise without
// a closure per request.
let capturedResolve: (value: any) => void = () => {};
let capturedReject: (error: unknown) => void = () => {};
const capture = (resolve: (value: any) => void, reject: (error: unknown) => void): void => {
  capturedResolve = resolve;
  capturedReject = reject;
};

// MPI_Testsome of the pending sends and receives in reqs[0..n), by one p2pTestSome (spinUs: how long
// it may spin, until those from goalFrom on complete, as there; < 0, a blocking wait, yields no
// more than MPI_Wait does); completes or fails those that finish, and moves those still pending
// to the front of `reqs`, in order: how many they are.
function testSlots(reqs: Request<any>[], n: number, spinUs: number, goalFrom = 0): number {
  if (n > roundSlots.length) {
    const room = Math.max(16, 2 * n);
    roundSlots = new Int32Array(room);
    roundStates = new Uint8Array(room);
    roundStatuses = statusArray(room);
    addon().p2pRound(roundSlots, roundStates, roundStatuses);
  }
  for (let i = 0; i < n; i++) roundSlots[i] = pendingSlot(reqs[i]);
  roundStates.fill(0, 0, n);
  let error: unknown = null;
  try {
    addon().p2pTestSome(n, spinUs, spinUs < 0 ? -1 : YIELD_AFTER_US, goalFrom);
  } catch (e) {
    if (!roundStates.subarray(0, n).includes(2)) throw e; // no request's failure: a fault here
    error = e;
  }
  let pending = 0;
  for (let i = 0; i < n; i++) {
    const r = reqs[i];
    if (roundStates[i] === 0) reqs[pending++] = r;
    else finishSlot(r, i, roundStates[i] === 2, error);
  }
  return pending;
}

// One round of polls of everything awaited (spinUs: how long the sends and receives may spin).
// What finishes settles the Promise it is, and V8 runs the reactions after this round.
function pollRound(spinUs: number): void {
  polling = true;
  try {
    if (polled.length > 0) polled.length = testSlots(polled, polled.length, spinUs, freshFrom);
    if (awaited.size > 0) for (const r of awaited) if (pollAwaited(r)) awaited.delete(r);
    if (waiters.size > 0) stepWaiters();
  } finally {
    polling = false;
  }
  freshFrom = polled.length;
  freshAwaited.length = 0;
  freshWaiters.length = 0;
}

// Steps every waiter once; settles those that finish.
function stepWaiters(): void {
  for (const w of waiters) {
    let done = false;
    try {
      done = w.step();
    } catch (e) {
      finished(w);
      w.reject(e);
      continue;
    }
    if (done) {
      finished(w);
      w.resolve();
    }
  }
}

function finished(w: Waiter): void {
  waiters.delete(w);
  activity = true;
}

const pending = (): boolean => polled.length > 0 || awaited.size > 0 || waiters.size > 0;

function spin(): void {
  spinQueued = false;
  if (freshAwaited.length === 0 && freshWaiters.every((w) => w.slotsOnly)) {
    // Only sends and receives just awaited: one native spin polls them all, for the whole budget.
    pollRound(SPIN_US);
  } else {
    // Usually all that is pending was just awaited: then no snapshot of it to make.
    const goalPending = freshFrom === 0 && awaited.size === freshAwaited.length && waiters.size === freshWaiters.length ? pending : freshGoal();
    pollRound(0);
    if (goalPending()) {
      // The clock only once something is still pending: most small operations are done by now.
      const started = performance.now();
      do {
        if ((performance.now() - started) * 1000 >= YIELD_AFTER_US) addon().idleWhileWaiting();
        pollRound(0);
      } while (goalPending() && (performance.now() - started) * 1000 < SPIN_US);
    }
  }
  scheduleTurn();
}

// Whether any of what is fresh now (before the round of polls that makes it old) is still pending.
function freshGoal(): () => boolean {
  const slots = polled.slice(freshFrom);
  const requests = freshAwaited.slice();
  const waitersNow = freshWaiters.slice();
  return () => slots.some((r) => pendingSlot(r) >= 0) || requests.some((r) => awaited.has(r)) || waitersNow.some((w) => waiters.has(w));
}

function eventLoopTurn(): void {
  turn = null;
  addon().idleWhileWaiting();
  pollRound(0);
  scheduleTurn();
}

function scheduleTurn(): void {
  if (!pending() || turn) return;
  const now = performance.now();
  if (activity) {
    activity = false;
    lastActivity = now;
    slowTurns = 0;
  }
  if (now - lastActivity < SPIN_MS) turn = { immediate: setImmediate(eventLoopTurn) };
  else turn = { timer: setTimeout(eventLoopTurn, Math.min(MAX_DELAY_MS, slowTurns++ >> 4)) };
}

// Something new to progress or to settle: a spin right after the code that awaits, as above.
function wake(): void {
  activity = true;
  // A turn waiting on a timer would answer late: the spin reschedules it.
  if (turn && 'timer' in turn) {
    clearTimeout(turn.timer);
    turn = null;
  }
  if (!spinQueued && !polling) {
    spinQueued = true;
    void settled.then(spin);
  }
}

// A promise of `value()` once `step` returns true (waitAll, waitAny, waitSome).
function poll<R>(step: () => boolean, value: () => R, slotsOnly = false): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    const settle = () => {
      try {
        resolve(value());
      } catch (e) {
        reject(e);
      }
    };
    const waiter = { step, resolve: settle, reject, slotsOnly };
    waiters.add(waiter);
    freshWaiters.push(waiter);
    wake();
  });
}

// The free slots of the addon's table of send and receive requests (native/addon/p2p.cc,
// P2pSlot): a slot is taken by isend/irecv and given back once its request completes. The buffer
// of each slot in flight stays reachable from slotBuffers until then (as other requests' from
// inFlight, below), also when the program drops the Request.
const freeSlots: number[] = [];
const slotBuffers: unknown[] = [];
let slotsMade = 0;

/**
 * A request of isend or irecv: a slot of the addon's table, its index a number (a wrapped native
 * object cost more to reach from C++ than the MPI call of a small message).
 */
class P2pRequest implements MpiRequest {
  readonly slot: number;
  // A receive's: its Status is its value (a send's is read only when it was cancelled).
  readonly receives: boolean;
  // The Status p2pWait or p2pTestSome read when the request completed (no call to make it).
  #status: Status | null = null;

  constructor(slot: number, receives: boolean) {
    this.slot = slot;
    this.receives = receives;
  }

  completedWith(status: Status): void {
    this.#status = status;
  }

  test(): boolean {
    return addon().p2pTest(this.slot);
  }

  wait(): void {
    if (!this.receives) return addon().p2pWait(this.slot);
    addon().p2pWait(this.slot, waitStatus);
    this.#status = statusAt(waitStatus, 0);
  }

  status(): Status {
    return this.#status ?? addon().p2pStatus(this.slot);
  }

  data(): undefined {
    return undefined;
  }

  cancel(): void {
    addon().p2pCancel(this.slot);
  }

  start(): never {
    throw new TypeError('start: expects persistent requests (sendInit, recvInit)');
  }

  free(): never {
    throw new TypeError('free: expects persistent requests (sendInit, recvInit)');
  }
}

// Where p2pWait writes a receive's Status.
const waitStatus = statusArray(1);

// Starts a send or receive (`receives`) of `buf` by `start(slot)` (addon isend/irecv) in a free
// slot; the slot goes back to the free list when start throws.
function startInSlot(start: (slot: number) => void, receives: boolean, buf: unknown): P2pRequest {
  const slot = freeSlots.pop() ?? slotsMade++;
  try {
    start(slot);
  } catch (e) {
    freeSlots.push(slot);
    throw e;
  }
  slotBuffers[slot] = buf;
  return new P2pRequest(slot, receives);
}

const nothing = (): undefined => undefined;
/** A request's value that is the Status of its operation (receives, nonblocking file access). */
export const statusOfRequest = (native: NativeRequest): Status => (native as MpiRequest).status();

/** The request of a send of `buf` started by `start(slot)` (addon isend) in a free slot. */
export function startSend(start: (slot: number) => void, buf: unknown, kind: 'p2p' | 'object' = 'p2p'): Request<void> {
  return newRequest(startInSlot(start, false, buf), nothing, null, kind);
}

/** The request of a receive into `buf` started by `start(slot)` (addon irecv) in a free slot. */
export function startReceive(start: (slot: number) => void, buf: unknown): Request<Status> {
  return newRequest(startInSlot(start, true, buf), statusOfRequest, null, 'p2p');
}

/**
 * A nonblocking collective of the engine: a slot of the addon's table (native/addon/request.cc),
 * its index a number (a wrapped native object took microseconds to make, more than the
 * collective). The addon gives the slot back once the collective completes or fails.
 */
class EngineRequest implements NativeRequest {
  readonly slot: number;

  constructor(slot: number) {
    this.slot = slot;
  }

  test(): boolean {
    return addon().engineTest(this.slot);
  }

  wait(): void {
    addon().engineWait(this.slot);
  }
}

/** The request of an engine collective started in `slot`; undefined for a blocking call's undefined. */
export function engineRequest(slot: number): NativeRequest;
export function engineRequest(slot: number | undefined): NativeRequest | undefined;
export function engineRequest(slot: number | undefined): NativeRequest | undefined {
  return slot === undefined ? undefined : new EngineRequest(slot);
}

// The native request completed: a send's or receive's slot goes back to the free list.
function released(native: NativeRequest): void {
  if (!(native instanceof P2pRequest)) return;
  slotBuffers[native.slot] = undefined;
  freeSlots.push(native.slot);
}

// Requests in flight, and the buffers MPI reads or writes for them, stay reachable from here until
// they complete, so that MPI never writes into a buffer the garbage collector has freed, even when
// the program drops the Request.
const inFlight = new Map<Request<any>, unknown[]>();

// Freed requests (free()): the program has let go of them, but MPI still reads or writes their
// buffers until the operation completes. They are tested whenever a request is made or progressed,
// and their buffers let go of once complete (an error there has no one left to report to).
const detached = new Map<NativeRequest, unknown[]>();
const freedRequests = new WeakSet<Request<any>>();

/**
 * What made a request, which decides what else it may do: 'collective' (a nonblocking collective:
 * neither free() nor cancel(), as MPI forbids both), 'p2p' (a send or receive of a buffer: both),
 * 'object' (isendObject, irecvObject: free() only; a receive of unknown size has no MPI request to
 * cancel until a message matches), 'persistent' (an operation started by a PersistentRequest:
 * cancel() only; free() is the PersistentRequest's).
 */
export type RequestKind = 'collective' | 'p2p' | 'object' | 'persistent';

function sweepDetached(): void {
  for (const native of detached.keys()) {
    let complete = true;
    try {
      complete = native.test();
    } catch {
      // MPI has ended the request with an error: nothing is in flight any more.
    }
    if (complete) {
      detached.delete(native);
      released(native);
    }
  }
}

/**
 * The request of a nonblocking operation started already: `result` computes the value from
 * `native` once the operation has completed; `keepAlive` holds the buffers MPI is reading or
 * writing until then (null: a send's or receive's slot holds its buffer); `kind`: what made it.
 */
export function newRequest<T>(native: NativeRequest, result: (native: NativeRequest) => T, keepAlive: unknown[] | null, kind: RequestKind = 'collective'): Request<T> {
  return makeRequest(native, result, keepAlive, kind);
}

/**
 * A nonblocking operation, and a Promise of its result (`req instanceof Promise`,
 * `util.types.isPromise(req)`), which settles when the operation completes or fails, however that
 * is found out (await, wait(), test(), waitAll). Polling from the event loop starts once something
 * awaits the request: `await`, `then`, `catch`, `finally`, `Promise.all`/`race`/`allSettled`/`any`
 * and `Promise.resolve` all read `req.constructor` first (the spec's PromiseResolve and
 * SpeciesConstructor), and that read is what tells the request; it gives `Promise`, so V8 then
 * runs its own reactions, with no Promise of ours between. `wait()`/`test()` alone cost no polls.
 * A failure is marked handled, as `wait()`, `test()` or what awaits report it (an unhandled
 * rejection would end the job). `promise()` gives a plain Promise of the result.
 */
export class Request<T = void> extends Promise<T> {
  // The Promise it is: settled with the outcome once the operation has completed or failed.
  #resolveSelf: (value: unknown) => void;
  #rejectSelf: (error: unknown) => void;
  #native: NativeRequest | null;
  #result: ((native: NativeRequest) => T) | null;
  #value: T | undefined;
  #done = false;
  #kind: RequestKind;
  #cancelRequested = false;
  #cancelled = false;
  #promise?: Promise<T>;
  // The operation failed: its error, which test(), wait() and awaits give from then on.
  #failed = false;
  #error: unknown = undefined;
  // In `polled`: a send or receive being awaited or waited for by waitAll.
  #polled = false;
  // Something has read it as a Promise (its constructor): it is progressed from then on.
  #awaited = false;

  static {
    makeRequest = (native, result, keepAlive, kind) => new Request(native, result, keepAlive, kind);
    pendingSlot = (r) => (!r.#done && !r.#failed && r.#native instanceof P2pRequest ? r.#native.slot : -1);
    finishSlot = (r, i, failed, error) => {
      r.#polled = false;
      if (failed) return r.#fail(error);
      const native = r.#native as P2pRequest;
      if (native.receives) native.completedWith(statusAt(roundStatuses, i));
      try {
        r.#complete();
      } catch {
        // failed: #complete has recorded the error for what awaits or waits for it
      }
    };
    pollAwaited = (r) => {
      try {
        return r.test();
      } catch {
        return true; // failed: #fail has rejected the Promise it is
      }
    };
    isPolled = (r) => r.#polled;
    pollAsSlot = (r) => {
      if (r.#done || r.#failed) return true;
      if (!(r.#native instanceof P2pRequest)) return false;
      r.#poll();
      return true;
    };
    unpollUnawaited = (r) => {
      if (r.#polled && !r.#awaited) r.#unpoll();
    };
    // Read by every await and Promise combinator before it reacts (PromiseResolve,
    // SpeciesConstructor): `Promise`, so that they take V8's own path, and the request is
    // progressed from now on. A class can declare no accessor named constructor.
    Object.defineProperty(Request.prototype, 'constructor', {
      configurable: true,
      get(this: Request<unknown>): PromiseConstructor {
        if (!this.#awaited) this.#awaitedNow();
        return Promise;
      },
    });
  }

  // Made by newRequest (the nonblocking calls): private, so that TypeScript refuses
  // `new Request(executor)`; plain JS is refused below, as are Promise's statics (Request.resolve).
  private constructor(native: NativeRequest, result: (native: NativeRequest) => T, keepAlive: unknown[] | null, kind: RequestKind) {
    if (typeof native === 'function') throw new TypeError('Request: made by the nonblocking calls (isend, irecv, iallreduce, …), not by new Request(executor); use new Promise(executor)');
    super(capture);
    this.#resolveSelf = capturedResolve;
    this.#rejectSelf = capturedReject;
    if (detached.size > 0) sweepDetached();
    this.#native = native;
    this.#result = result;
    this.#kind = kind;
    if (keepAlive !== null) inFlight.set(this, keepAlive);
  }

  /** True once the operation has completed (without progressing it). */
  get done(): boolean {
    return this.#done;
  }

  /** True once the operation has completed (progresses it once). */
  test(): boolean {
    if (this.#done) return true;
    if (this.#failed) throw this.#error;
    if (detached.size > 0) sweepDetached();
    // On every poll of an awaited request: #progress's work without a closure.
    if (this.#native === null) throw freedError('test'); // not done, no native: freed
    let complete: boolean;
    try {
      complete = this.#native.test();
    } catch (e) {
      this.#fail(e);
      throw e;
    }
    if (complete) this.#complete();
    return this.#done;
  }

  /** Blocks until the operation completes and returns its result. */
  wait(): T {
    if (!this.#done) {
      if (this.#failed) throw this.#error;
      if (detached.size > 0) sweepDetached();
      this.#progress('wait', () => this.#native!.wait());
      this.#complete();
    }
    return this.#value as T;
  }

  /**
   * MPI_Request_free for a point-to-point request: the program lets go of the request, and the
   * operation still completes (a send is still delivered, a receive still consumes its message),
   * unobserved; its buffers stay alive until then. Later test(), wait() or awaits throw a
   * TypeError. A request that has completed (or failed) is left as it is. A nonblocking
   * collective's request cannot be freed (MPI makes that erroneous): free() throws a TypeError and
   * leaves it pending.
   */
  free(): void {
    if (this.#done || this.#failed || this.#native === null) return; // completed, failed or freed already: nothing in flight
    if (this.#kind === 'collective') {
      throw new TypeError('free: a nonblocking collective cannot be freed (MPI forbids MPI_Request_free on its request); complete it with await, wait() or test()');
    }
    if (this.#kind === 'persistent') {
      throw new TypeError('free: this operation was started by a PersistentRequest; complete it, then free the PersistentRequest');
    }
    if (this.#awaited) throw new TypeError('free: the request is being awaited; a request cannot be freed once something waits for it');
    freedRequests.add(this);
    if (this.#polled) this.#unpoll(); // a waitAll's: it now rejects, as for a request freed before
    detached.set(this.#native, inFlight.get(this) ?? []);
    inFlight.delete(this);
    this.#native = null;
    this.#result = null;
    // What awaits it later is told so (handled here: nothing may await it).
    this.#markHandled();
    this.#rejectSelf(freedError('await'));
  }

  /**
   * MPI_Cancel: asks MPI to cancel the operation (a receive no message has matched yet is
   * cancelled; a send usually cannot be, and MPI-4 deprecates cancelling sends). The request
   * must still be completed as usual (await, wait(), test()); then `cancelled` says whether it
   * was, and a receive's Status has `cancelled: true` (no data was received). Nothing happens
   * for a request that has completed. A TypeError for a nonblocking collective (MPI forbids it),
   * for isendObject/irecvObject, and for a freed request.
   */
  cancel(): void {
    if (freedRequests.has(this)) throw freedError('cancel');
    if (this.#kind === 'collective' || this.#kind === 'object') {
      throw new TypeError(
        this.#kind === 'collective'
          ? 'cancel: a nonblocking collective cannot be cancelled (MPI forbids MPI_Cancel on its request)'
          : 'cancel: isendObject/irecvObject requests cannot be cancelled; use a buffer receive (irecv) to cancel',
      );
    }
    if (this.#done) return;
    this.#progress('cancel', () => (this.#native as MpiRequest).cancel());
    this.#cancelRequested = true;
  }

  /** Whether the operation was cancelled (MPI_Test_cancelled); false until it completes. */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /**
   * The result as a real Promise, the same one on every call: the request is progressed (a spin
   * of MPI_Test, then from the event loop) until it completes; it rejects with the MpiError if the
   * operation fails.
   */
  promise(): Promise<T> {
    this.#promise ??= Promise.prototype.then.call(this) as Promise<T>;
    return this.#promise;
  }

  /**
   * How util.inspect and console.log show it: as a Promise, named (inspect names a Promise by the
   * constructor it finds as a value, and a request's is read through an accessor).
   */
  [Symbol.for('nodejs.util.inspect.custom')](_depth: number, options: object, inspect: (value: unknown, options: object) => string): string {
    const state = this.#done ? inspect(this.#value, options) : this.#failed ? `<rejected> ${inspect(this.#error, options)}` : this.#native === null ? '<freed>' : '<pending>';
    return `Request [Promise] { ${state} }`;
  }

  // Something awaits it: progressed from now on, by a spin right after the code that awaits.
  #awaitedNow(): void {
    this.#awaited = true;
    if (this.#done || this.#failed || this.#native === null) return; // settled, or freed
    if (this.#native instanceof P2pRequest) this.#poll();
    else {
      awaited.add(this);
      freshAwaited.push(this);
    }
    wake();
  }

  // No unhandled rejection for the Promise it is: its error reaches the program otherwise.
  #markHandled(): void {
    this.#awaited = true; // (then.call reads the constructor)
    Promise.prototype.then.call(this, undefined, ignore);
  }

  #poll(): void {
    if (this.#polled) return;
    this.#polled = true;
    polled.push(this);
  }

  #unpoll(): void {
    this.#polled = false;
    const i = polled.indexOf(this);
    polled.splice(i, 1);
    if (i < freshFrom) freshFrom--;
  }

  // An MPI error ends the request (the addon has released it): stop tracking it, and rethrow.
  #progress<R>(what: string, step: () => R): R {
    if (freedRequests.has(this)) throw freedError(what);
    try {
      return step();
    } catch (e) {
      this.#fail(e);
      throw e;
    }
  }

  #fail(error: unknown): void {
    this.#failed = true;
    this.#error = error;
    inFlight.delete(this);
    this.#settled();
  }

  // The operation has completed: its value, or the error of computing it (a JS op's), which then
  // fails the request.
  #complete(): void {
    inFlight.delete(this);
    const native = this.#native!;
    this.#native = null;
    try {
      if (this.#cancelRequested) this.#cancelled = (native as MpiRequest).status().cancelled;
      this.#value = this.#result!(native);
      this.#done = true;
    } catch (e) {
      this.#failed = true;
      this.#error = e;
      throw e;
    } finally {
      this.#result = null;
      released(native); // its result is taken: nothing else reads the slot
      this.#settled();
    }
  }

  // Completed or failed: no longer polled; what awaits it runs in a microtask, never inside the
  // wait() or test() that completed it.
  #settled(): void {
    if (this.#failed) {
      // Handled, as wait(), test() or what awaits report the error.
      this.#markHandled();
      this.#rejectSelf(this.#error);
    } else {
      this.#resolveSelf(this.#value);
    }
    if (this.#polled) this.#unpoll();
  }
}

const ignore = (): void => {};

function freedError(what: string): TypeError {
  return new TypeError(`${what}: the request has been freed`);
}

// A request still active in MPI's sense: neither completed nor freed (MPI turns both into
// MPI_REQUEST_NULL, which the -any and -some calls skip).
function active(r: Request<unknown>): boolean {
  return !r.done && !freedRequests.has(r);
}

function activeIndices(requests: readonly Request<unknown>[]): number[] {
  const out: number[] = [];
  requests.forEach((r, i) => active(r) && out.push(i));
  return out;
}

// Of the requests at `indices` (active when the call began), those complete now, each progressed
// once; a request completed meanwhile by another waiter counts too. `first`: stop at the first.
function completing(requests: readonly Request<unknown>[], indices: readonly number[], first: boolean): number[] {
  const out: number[] = [];
  for (const i of indices) {
    const r = requests[i];
    if (freedRequests.has(r)) continue;
    if (r.done || r.test()) {
      out.push(i);
      if (first) break;
    }
  }
  return out;
}

// True when the program has freed every request at `indices` (while a waitAny/waitSome waited).
function allFreed(requests: readonly Request<unknown>[], indices: readonly number[]): boolean {
  return indices.every((i) => freedRequests.has(requests[i]));
}

/** The requests that completed, by index into the array given, and their results in that order. */
export interface SomeCompleted<T> {
  indices: number[];
  values: T[];
}

/**
 * Blocks until every request has completed; returns their results in order (MPI_Waitall). The
 * sends and receives among them are waited for by one native call.
 */
export function waitAllSync<T>(requests: readonly Request<T>[]): T[] {
  const slots = requests.filter((r) => pendingSlot(r) >= 0 && !isPolled(r));
  if (slots.length > 1) testSlots(slots, slots.length, -1);
  return requests.map((r) => r.wait());
}

/**
 * Waits for every request; resolves to their results in order, or rejects with the error of the
 * first to fail. One promise for them all; their sends and receives are polled with the awaited
 * ones, by one native call a round.
 */
export function waitAll<T>(requests: readonly Request<T>[]): Promise<T[]> {
  if (requests.some((r) => freedRequests.has(r))) return Promise.reject(freedError('waitAll'));
  let slotsOnly = true;
  for (const r of requests) if (!pollAsSlot(r)) slotsOnly = false;
  return poll(
    () => {
      try {
        return completedAll(requests);
      } catch (e) {
        for (const r of requests) unpollUnawaited(r);
        throw e;
      }
    },
    () => requests.map((r) => r.wait()),
    slotsOnly,
  );
}

// True once every request has completed (those in `polled` progressed by the round, the others
// tested here); throws the error of one that failed.
function completedAll(requests: readonly Request<unknown>[]): boolean {
  let all = true;
  for (const r of requests) {
    if (r.done) continue;
    if (isPolled(r) || !r.test()) all = false;
  }
  return all;
}

/**
 * MPI_Waitany: resolves with the index and result of the first of the active requests (neither
 * completed nor freed before the call) to complete. Rejects with a TypeError when none is active
 * (where MPI returns the index MPI_UNDEFINED), and with the MpiError of a request that fails.
 */
export function waitAny<T>(requests: readonly Request<T>[]): Promise<{ index: number; value: T }> {
  const pending = activeIndices(requests);
  if (pending.length === 0) return Promise.reject(noneActive('waitAny', requests.length));
  let index = -1;
  return poll(
    () => {
      if (([index] = completing(requests, pending, true)).length > 0) return true;
      if (allFreed(requests, pending)) throw noneActive('waitAny', requests.length);
      return false;
    },
    () => ({ index, value: requests[index].wait() }),
  );
}

/**
 * MPI_Waitsome: waits until at least one of the active requests (neither completed nor freed
 * before the call) completes, and resolves with every one of them that has completed by then, in
 * index order. Requests that completed before the call are left out, as MPI leaves out its null
 * requests, so calling it again on the same array reports each request once; with no active
 * request it resolves at once with empty arrays (where MPI returns MPI_UNDEFINED). Rejects with
 * the MpiError of a request that fails.
 */
export function waitSome<T>(requests: readonly Request<T>[]): Promise<SomeCompleted<T>> {
  const pending = activeIndices(requests);
  let indices: number[] = [];
  return poll(
    () => (indices = completing(requests, pending, false)).length > 0 || allFreed(requests, pending),
    () => ({ indices, values: indices.map((i) => requests[i].wait()) }),
  );
}

/**
 * MPI_Testsome: progresses each active request once, without blocking; the ones that complete
 * (by index, in order), empty when none does.
 */
export function testSome<T>(requests: readonly Request<T>[]): SomeCompleted<T> {
  const indices = completing(requests, activeIndices(requests), false);
  return { indices, values: indices.map((i) => requests[i].wait()) };
}

/**
 * MPI_Testany: progresses the active requests in order until one completes, without blocking;
 * that one's index and result, or null when none completes (or none is active).
 */
export function testAny<T>(requests: readonly Request<T>[]): { index: number; value: T } | null {
  const [index] = completing(requests, activeIndices(requests), true);
  return index === undefined ? null : { index, value: requests[index].wait() };
}

/**
 * MPI_Testall: progresses each active request once, without blocking; true when every request has
 * completed (a freed one counts, as MPI's null request does). Those that have completed are done
 * even when it returns false (MPI leaves them untouched; nothing is lost, a request keeps its
 * result); waitAllSync() then returns the results without blocking.
 */
export function testAll(requests: readonly Request<unknown>[]): boolean {
  const pending = activeIndices(requests);
  return completing(requests, pending, false).length === pending.length;
}

function noneActive(what: string, n: number): TypeError {
  return new TypeError(`${what}: no request is active (all ${n} have completed or been freed)`);
}
