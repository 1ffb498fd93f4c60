// Nonblocking operations as awaitable requests. A pending request is progressed by polling
// MPI_Test from the event loop (setImmediate, backing off to short timers), so timers and I/O
// keep running and MPI needs no thread support beyond MPI_THREAD_SINGLE.
import type { NativeRequest } from './addon';

/**
 * Polls spin on setImmediate for the first SPIN_MS (latency: each poll still lets timers and I/O
 * run), then back off on timers growing to MAX_DELAY_MS (CPU). A count of spins would end in
 * microseconds, far sooner than a peer rank that shares a core gets to run.
 */
const SPIN_MS = 10;
const MAX_DELAY_MS = 4;

// Requests in flight, and the buffers MPI reads or writes for them, stay reachable from here until
// they complete, so that MPI never writes into a buffer the garbage collector has freed, even when
// the program drops the Request.
const inFlight = new Map<Request<any>, unknown[]>();

export class Request<T = void> implements PromiseLike<T> {
  #native: NativeRequest | null;
  #result: (() => T) | null;
  #value: T | undefined;
  #done = false;
  #promise?: Promise<T>;

  /**
   * @internal `result` computes the value once the operation has completed; `keepAlive` holds the
   * buffers MPI is reading or writing until then.
   */
  constructor(native: NativeRequest, result: () => T, keepAlive: unknown[]) {
    this.#native = native;
    this.#result = result;
    inFlight.set(this, keepAlive);
  }

  /** True once the operation has completed (without progressing it). */
  get done(): boolean {
    return this.#done;
  }

  /** True once the operation has completed (progresses it once). */
  test(): boolean {
    if (!this.#done && this.#progress(() => this.#native!.test())) this.#complete();
    return this.#done;
  }

  /** Blocks until the operation completes and returns its result. */
  wait(): T {
    if (!this.#done) {
      this.#progress(() => this.#native!.wait());
      this.#complete();
    }
    return this.#value as T;
  }

  /** The result, once the operation has completed without blocking the event loop. */
  promise(): Promise<T> {
    this.#promise ??= new Promise<T>((resolve, reject) => {
      const started = performance.now();
      let slowPolls = 0;
      const poll = () => {
        try {
          if (this.test()) return resolve(this.#value as T);
        } catch (e) {
          return reject(e);
        }
        if (performance.now() - started < SPIN_MS) setImmediate(poll);
        else setTimeout(poll, Math.min(MAX_DELAY_MS, slowPolls++ >> 4));
      };
      poll();
    });
    return this.#promise;
  }

  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.promise().then(onfulfilled, onrejected);
  }

  // An MPI error ends the request (the addon has released it): stop tracking it, and rethrow.
  #progress<R>(step: () => R): R {
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
    this.#value = this.#result!();
    this.#native = null;
    this.#result = null;
  }
}

/** Blocks until every request has completed; returns their results in order (MPI_Waitall). */
export function waitAllSync<T>(requests: readonly Request<T>[]): T[] {
  return requests.map((r) => r.wait());
}

/** Waits for every request; resolves to their results in order. */
export function waitAll<T>(requests: readonly Request<T>[]): Promise<T[]> {
  return Promise.all(requests.map((r) => r.promise()));
}

/** Resolves with the index and result of the first request to complete. */
export function waitAny<T>(requests: readonly Request<T>[]): Promise<{ index: number; value: T }> {
  return Promise.race(requests.map((r, index) => r.promise().then((value) => ({ index, value }))));
}
