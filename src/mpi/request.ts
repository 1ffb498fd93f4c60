// Nonblocking operations as awaitable requests. Awaited requests are progressed by MPI_Test from
// the calling thread, so MPI needs no thread support beyond MPI_THREAD_SINGLE (a completion thread
// blocked in MPI_Wait would need MPI_THREAD_MULTIPLE, which costs every call).
import type { MpiRequest, NativeRequest } from './addon';
import type { Status } from './comm';
import { addon } from './native';

/**
 * How an awaited request is progressed. Right after the program awaits (in a microtask, so that
 * `Promise.all` has handed over every request first), MPI_Test runs in a loop for up to SPIN_US:
 * a small operation completes there as fast as its blocking form, and the await costs one
 * microtask. Past that, one MPI_Test per event-loop turn (setImmediate), so timers and I/O run,
 * for SPIN_MS after the last await or completion; then timers growing to MAX_DELAY_MS (CPU). A
 * count of spins would end in microseconds, far sooner than a peer rank sharing a core gets to run.
 */
const SPIN_US = 100;
const SPIN_MS = 10;
const MAX_DELAY_MS = 4;
/**
 * Polls of the spin before each further poll yields the core (sched_yield), and every event-loop
 * turn's poll does: a rank sharing its core with others (more ranks than cores) would otherwise
 * keep the core for its whole time slice while the ranks it waits for cannot run, and an awaited
 * collective over shared memory took milliseconds. The engine's blocking waits yield alike.
 */
const POLLS_BEFORE_YIELD = 16;

// What waitAny/waitSome wait on: `step` progresses (true once done, or throws: a rejection), then
// `resolve` or `reject` settles the promise.
interface Waiter {
  step: () => boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

// Waiters (waitAny, waitSome) and awaited Requests, which wait for themselves: an await allocates
// no waiter object and no closures (per request of a Promise.all, on the path of every halo).
const waiters = new Set<Waiter | Request<any>>();
// The awaited Requests of sends and receives in one round of polls, their slots and states (addon
// p2pTestSome): one native call a round for all of them, where a call per request cost more than
// its MPI_Test.
const round: Request<any>[] = [];
let roundSlots = new Int32Array(16);
let roundStates = new Uint8Array(16);
// Per request of the round, the fields of its Status once complete (STATUS_FIELDS each).
export const STATUS_FIELDS = 6;

/** The Status whose fields (native statusFields: source, tag, count, bytes, cancelled as 0/1, error) start at f[o]. */
export function statusOfFields(f: Float64Array, o: number): Status {
  return { source: f[o], tag: f[o + 1], count: f[o + 2], bytes: f[o + 3], cancelled: f[o + 4] !== 0, error: f[o + 5] };
}
let roundStatuses = new Float64Array(16 * STATUS_FIELDS);
// Progresses an awaited Request once and settles its promise when done (true then); set by Request.
let stepAwaited: (r: Request<any>) => boolean;
// A Request's slot (isend, irecv) while it is pending, else -1 (another kind of request, or done).
let pendingSlot: (r: Request<any>) => number;
// Completes the Request round[i], whose slot p2pTestSome found complete, or throws the error it `failed` with.
let finishSlot: (i: number, failed: boolean, error: unknown) => void;
// Settles an awaited Request's promise: with its value, or rejected with `error`.
let settleAwaited: (r: Request<any>, error?: unknown) => void;
let spinQueued = false;
let turn: { immediate: NodeJS.Immediate } | { timer: NodeJS.Timeout } | null = null;
let lastActivity = 0; // performance.now() of the last new waiter or completion
let activity = false; // a waiter came or went since lastActivity was read
let slowTurns = 0;
// queueMicrotask makes an AsyncResource per call; a reaction to a settled promise is V8's own.
const settled = Promise.resolve();

function finished(w: Waiter | Request<any>): void {
  waiters.delete(w);
  activity = true;
}

// Adds `r`, pending in `slot`, to the round of n requests; n + 1.
function addToRound(n: number, r: Request<any>, slot: number): number {
  if (n === roundSlots.length) {
    const slots = new Int32Array(2 * n);
    slots.set(roundSlots);
    roundSlots = slots;
    roundStates = new Uint8Array(2 * n);
    roundStatuses = new Float64Array(2 * n * STATUS_FIELDS);
  }
  round[n] = r;
  roundSlots[n] = slot;
  return n + 1;
}

// MPI_Test of the round's n requests, in one call: their states, and the error of one that failed.
function testRound(n: number): unknown {
  roundStates.fill(0, 0, n);
  try {
    addon().p2pTestSome(roundSlots, n, roundStates, roundStatuses);
  } catch (e) {
    if (!roundStates.subarray(0, n).includes(2)) throw e; // no request's failure: a fault here
    return e;
  }
  return null;
}

// Polls every awaited send and receive once, by one p2pTestSome, and settles those that finish.
function stepSlots(): void {
  let n = 0;
  for (const w of waiters) {
    if (!(w instanceof Request)) continue;
    const slot = pendingSlot(w);
    if (slot >= 0) n = addToRound(n, w, slot);
  }
  if (n === 0) return;
  const error = testRound(n);
  for (let i = 0; i < n; i++) {
    if (roundStates[i] === 0) continue;
    const r = round[i];
    finished(r);
    try {
      finishSlot(i, roundStates[i] === 2, error);
    } catch (e) {
      settleAwaited(r, e);
      continue;
    }
    settleAwaited(r);
  }
  round.length = 0;
}

// Steps every waiter once; settles those that finish.
function stepWaiters(): void {
  stepSlots();
  for (const w of waiters) {
    if (w instanceof Request) {
      if (pendingSlot(w) < 0 && stepAwaited(w)) finished(w);
      continue;
    }
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

function spin(): void {
  spinQueued = false;
  stepWaiters();
  if (waiters.size > 0) {
    // The clock only once something is still pending: most small operations are done by now.
    const started = performance.now();
    let polls = 0;
    do {
      if (++polls > POLLS_BEFORE_YIELD) addon().yieldProcessor();
      stepWaiters();
    } while (waiters.size > 0 && (performance.now() - started) * 1000 < SPIN_US);
  }
  scheduleTurn();
}

function eventLoopTurn(): void {
  turn = null;
  addon().yieldProcessor();
  stepWaiters();
  scheduleTurn();
}

function scheduleTurn(): void {
  if (waiters.size === 0 || turn) return;
  const now = performance.now();
  if (activity) {
    activity = false;
    lastActivity = now;
    slowTurns = 0;
  }
  if (now - lastActivity < SPIN_MS) turn = { immediate: setImmediate(eventLoopTurn) };
  else turn = { timer: setTimeout(eventLoopTurn, Math.min(MAX_DELAY_MS, slowTurns++ >> 4)) };
}

// Progresses `waiter` from now on, as described above.
function addWaiter(waiter: Waiter | Request<any>): void {
  waiters.add(waiter);
  activity = true;
  // A turn waiting on a timer would answer late: the spin reschedules it.
  if (turn && 'timer' in turn) {
    clearTimeout(turn.timer);
    turn = null;
  }
  if (!spinQueued) {
    spinQueued = true;
    void settled.then(spin);
  }
}

// A promise of `value()` once `step` returns true (waitAny, waitSome).
function poll<R>(step: () => boolean, value: () => R): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    const settle = () => {
      try {
        resolve(value());
      } catch (e) {
        reject(e);
      }
    };
    addWaiter({ step, resolve: settle, reject });
  });
}

// The free slots of the addon's table of send and receive requests (native/addon/p2p.cc,
// P2pSlot): a slot is taken by isend/irecv and given back once its request completes.
const freeSlots: number[] = [];
let slotsMade = 0;

/**
 * A request of isend or irecv: a slot of the addon's table, its index a number (a wrapped native
 * object cost more to reach from C++ than the MPI call of a small message).
 */
class P2pRequest implements MpiRequest {
  readonly slot: number;
  // The Status p2pTestSome read when it found the request complete (no call to make it).
  #status: Status | null = null;

  constructor(slot: number) {
    this.slot = slot;
  }

  completedWith(status: Status): void {
    this.#status = status;
  }

  test(): boolean {
    return addon().p2pTest(this.slot);
  }

  wait(): void {
    addon().p2pWait(this.slot);
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

/**
 * Starts a send or receive by `start(slot)` (addon isend/irecv) in a free slot, and gives its
 * request; the slot goes back to the free list when start throws.
 */
export function startP2p(start: (slot: number) => void): MpiRequest {
  const slot = freeSlots.pop() ?? slotsMade++;
  try {
    start(slot);
  } catch (e) {
    freeSlots.push(slot);
    throw e;
  }
  return new P2pRequest(slot);
}

// The native request completed: a send's or receive's slot goes back to the free list.
function released(native: NativeRequest): void {
  if (native instanceof P2pRequest) freeSlots.push(native.slot);
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
 * A nonblocking operation. It is a Promise in all but its prototype: `await`, `then`, `catch`,
 * `finally`, `Promise.all`/`race`/`allSettled`/`any` and `Promise.resolve` take it, TypeScript
 * accepts it where a `Promise<T>` is expected, and `Object.prototype.toString` calls it a Promise.
 * It does not extend Promise, for three reasons: a Promise subclass makes the Promises its
 * `then`/`catch`/`finally` return through `Symbol.species`, that is by calling this class's
 * constructor with an executor; a Promise settles whether or not anyone listens, so a request
 * that fails while the program handles the error through `wait()` would also leave a rejected
 * Promise that nobody handles (an unhandled rejection ends the job); and polling from the event
 * loop starts only once something awaits the request, so `wait()`/`test()` alone cost no polls.
 * `promise()` gives the real Promise (`req instanceof Promise` is false).
 */
export class Request<T = void> implements Promise<T> {
  #native: NativeRequest | null;
  #result: (() => T) | null;
  #value: T | undefined;
  #done = false;
  #kind: RequestKind;
  #cancelRequested = false;
  #cancelled = false;
  #promise?: Promise<T>;
  // The promise's settling functions ((value: T) would make Request<T> invariant in T).
  #resolve?: (value: any) => void;
  #reject?: (error: unknown) => void;

  static {
    stepAwaited = (r) => {
      try {
        if (!r.test()) return false;
      } catch (e) {
        r.#reject!(e);
        return true;
      }
      r.#resolve!(r.#value);
      return true;
    };
    pendingSlot = (r) => (!r.#done && r.#native instanceof P2pRequest ? r.#native.slot : -1);
    finishSlot = (i, failed, error) => {
      const r = round[i];
      if (failed) {
        inFlight.delete(r);
        throw error;
      }
      (r.#native as P2pRequest).completedWith(statusOfFields(roundStatuses, i * STATUS_FIELDS));
      r.#complete();
    };
    settleAwaited = (r, ...error) => {
      if (error.length > 0) r.#reject!(error[0]);
      else r.#resolve!(r.#value);
    };
  }

  /**
   * @internal `result` computes the value once the operation has completed; `keepAlive` holds the
   * buffers MPI is reading or writing until then; `kind`: what made it (RequestKind).
   */
  constructor(native: NativeRequest, result: () => T, keepAlive: unknown[], kind: RequestKind = 'collective') {
    if (detached.size > 0) sweepDetached();
    this.#native = native;
    this.#result = result;
    this.#kind = kind;
    inFlight.set(this, keepAlive);
  }

  /** 'Promise', as a Promise's: `Object.prototype.toString.call(req)` is `[object Promise]`. */
  get [Symbol.toStringTag](): string {
    return 'Promise';
  }

  /** True once the operation has completed (without progressing it). */
  get done(): boolean {
    return this.#done;
  }

  /** True once the operation has completed (progresses it once). */
  test(): boolean {
    if (!this.#done) {
      if (detached.size > 0) sweepDetached();
      // On every poll of an awaited request: #progress's work without a closure.
      if (this.#native === null) throw freedError('test'); // not done, no native: freed
      let complete: boolean;
      try {
        complete = this.#native.test();
      } catch (e) {
        inFlight.delete(this);
        throw e;
      }
      if (complete) this.#complete();
    }
    return this.#done;
  }

  /** Blocks until the operation completes and returns its result. */
  wait(): T {
    if (!this.#done) {
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
    if (!inFlight.has(this)) return; // completed, failed or freed already: nothing in flight
    if (this.#kind === 'collective') {
      throw new TypeError('free: a nonblocking collective cannot be freed (MPI forbids MPI_Request_free on its request); complete it with await, wait() or test()');
    }
    if (this.#kind === 'persistent') {
      throw new TypeError('free: this operation was started by a PersistentRequest; complete it, then free the PersistentRequest');
    }
    if (this.#promise) throw new TypeError('free: the request is being awaited; a request cannot be freed once something waits for it');
    freedRequests.add(this);
    detached.set(this.#native!, inFlight.get(this)!);
    inFlight.delete(this);
    this.#native = null;
    this.#result = null;
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
    if (!this.#promise && freedRequests.has(this)) return Promise.reject(freedError('promise'));
    if (!this.#promise) {
      this.#promise = new Promise<T>((resolve, reject) => {
        this.#resolve = resolve;
        this.#reject = reject;
      });
      addWaiter(this);
    }
    return this.#promise;
  }

  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: any) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.promise().then(onfulfilled, onrejected);
  }

  catch<R = never>(onrejected?: ((reason: any) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.promise().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.promise().finally(onfinally);
  }

  // An MPI error ends the request (the addon has released it): stop tracking it, and rethrow.
  #progress<R>(what: string, step: () => R): R {
    if (freedRequests.has(this)) throw freedError(what);
    try {
      return step();
    } catch (e) {
      inFlight.delete(this);
      throw e;
    }
  }

  #complete(): void {
    this.#done = true;
    inFlight.delete(this);
    const native = this.#native!;
    this.#native = null;
    try {
      if (this.#cancelRequested) this.#cancelled = (native as MpiRequest).status().cancelled;
      this.#value = this.#result!();
    } finally {
      this.#result = null;
      released(native); // its result is taken: nothing else reads the slot
    }
  }
}

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

/** Blocks until every request has completed; returns their results in order (MPI_Waitall). */
export function waitAllSync<T>(requests: readonly Request<T>[]): T[] {
  return requests.map((r) => r.wait());
}

/**
 * Waits for every request; resolves to their results in order, or rejects with the error of the
 * first to fail. One promise for them all, their sends and receives polled by one native call a
 * round.
 */
export function waitAll<T>(requests: readonly Request<T>[]): Promise<T[]> {
  if (requests.some((r) => freedRequests.has(r))) return Promise.reject(freedError('waitAll'));
  return poll(
    () => progressAll(requests),
    () => requests.map((r) => r.wait()),
  );
}

// Polls each pending request once (the sends and receives by one p2pTestSome): true once all
// have completed; throws the error of one that fails.
function progressAll(requests: readonly Request<unknown>[]): boolean {
  let n = 0;
  let pending = false;
  for (const r of requests) {
    const slot = pendingSlot(r);
    if (slot >= 0) n = addToRound(n, r, slot);
    else if (!r.test()) pending = true;
  }
  if (n === 0) return !pending;
  try {
    const error = testRound(n);
    for (let i = 0; i < n; i++) {
      if (roundStates[i] === 0) pending = true;
      else finishSlot(i, roundStates[i] === 2, error);
    }
  } finally {
    round.length = 0;
  }
  return !pending;
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
