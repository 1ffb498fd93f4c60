// Nonblocking operations as awaitable requests. A pending request is progressed by polling
// MPI_Test from the event loop (setImmediate, backing off to short timers), so timers and I/O
// keep running and MPI needs no thread support beyond MPI_THREAD_SINGLE.

/** What the addon returns for an operation in flight. */
export interface NativeRequest {
  test(): boolean;
  wait(): unknown;
}

/** Polls spinning on setImmediate first (latency), then on growing timers (CPU). */
const SPIN_POLLS = 64;
const MAX_DELAY_MS = 4;

export class Request<T = void> implements PromiseLike<T> {
  #native: NativeRequest | null;
  #result: () => T;
  #keepAlive: unknown[];
  #done = false;
  #promise?: Promise<T>;

  /** @internal `keepAlive` holds the buffers MPI is reading or writing until completion. */
  constructor(native: NativeRequest, result: () => T, keepAlive: unknown[]) {
    this.#native = native;
    this.#result = result;
    this.#keepAlive = keepAlive;
  }

  /** True once the operation has completed (progresses it once). */
  test(): boolean {
    if (!this.#done && this.#native!.test()) this.#complete();
    return this.#done;
  }

  /** Blocks until the operation completes and returns its result. */
  wait(): T {
    if (!this.#done) {
      this.#native!.wait();
      this.#complete();
    }
    return this.#result();
  }

  /** The result, once the operation has completed without blocking the event loop. */
  promise(): Promise<T> {
    this.#promise ??= new Promise<T>((resolve, reject) => {
      let polls = 0;
      const poll = () => {
        try {
          if (this.test()) return resolve(this.#result());
        } catch (e) {
          return reject(e);
        }
        polls++;
        if (polls < SPIN_POLLS) setImmediate(poll);
        else setTimeout(poll, Math.min(MAX_DELAY_MS, (polls - SPIN_POLLS) >> 4));
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

  #complete(): void {
    this.#done = true;
    this.#native = null;
    this.#keepAlive = [];
  }
}

/** Waits for every request; resolves to their results in order. */
export function waitAll<T>(requests: readonly Request<T>[]): Promise<T[]> {
  return Promise.all(requests.map((r) => r.promise()));
}

/** Resolves with the index and result of the first request to complete. */
export function waitAny<T>(requests: readonly Request<T>[]): Promise<{ index: number; value: T }> {
  return Promise.race(requests.map((r, index) => r.promise().then((value) => ({ index, value }))));
}
