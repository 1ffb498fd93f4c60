// Communicators. Buffers are TypedArrays, Buffers, DataViews or ArrayBuffers, passed to MPI
// without copying; counts come from their lengths.
import { addon } from './native';
import { init } from './lifecycle';
import { Request } from './request';

export type BufferLike = ArrayBufferView | ArrayBuffer;

/** Pass as the send buffer of a collective to use the receive buffer in place (MPI_IN_PLACE). */
export const IN_PLACE: unique symbol = Symbol('topocoll.IN_PLACE');
export type SendBuffer = BufferLike | typeof IN_PLACE;

function sendArg(buf: SendBuffer): BufferLike | null {
  return buf === IN_PLACE ? null : buf;
}

export class Comm {
  /** @internal index into the addon's communicator table */
  readonly handle: number;
  #rank = -1;
  #size = -1;

  /** @internal */
  constructor(handle: number) {
    this.handle = handle;
  }

  get rank(): number {
    if (this.#rank < 0) this.#rank = addon().commRank(this.handle);
    return this.#rank;
  }

  get size(): number {
    if (this.#size < 0) this.#size = addon().commSize(this.handle);
    return this.#size;
  }

  // --- Collectives run by the topocoll engine (algorithm chosen per call) ---

  barrier(): void {
    addon().barrier(this.handle, false);
  }

  ibarrier(): Request {
    return new Request(addon().barrier(this.handle, true), () => undefined, []);
  }

  /** Broadcasts `buffer` from `root` into `buffer` on every rank. */
  bcast<T extends BufferLike>(buffer: T, root = 0): T {
    addon().bcast(this.handle, buffer, root, false);
    return buffer;
  }

  ibcast<T extends BufferLike>(buffer: T, root = 0): Request<T> {
    return new Request(addon().bcast(this.handle, buffer, root, true), () => buffer, [buffer]);
  }

  /** Every rank's `sendbuf` lands in `recvbuf` in rank order (recvbuf holds size × sendbuf). */
  allgather<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T): T {
    addon().allgather(this.handle, sendArg(sendbuf), recvbuf, false);
    return recvbuf;
  }

  iallgather<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T): Request<T> {
    return new Request(addon().allgather(this.handle, sendArg(sendbuf), recvbuf, true), () => recvbuf, [sendbuf, recvbuf]);
  }

  /** Block j of `sendbuf` goes to rank j; block i of `recvbuf` comes from rank i. */
  alltoall<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T): T {
    addon().alltoall(this.handle, sendArg(sendbuf), recvbuf, false);
    return recvbuf;
  }

  ialltoall<T extends BufferLike>(sendbuf: SendBuffer, recvbuf: T): Request<T> {
    return new Request(addon().alltoall(this.handle, sendArg(sendbuf), recvbuf, true), () => recvbuf, [sendbuf, recvbuf]);
  }
}

let worldComm: Comm | undefined;
let selfComm: Comm | undefined;

/** MPI_COMM_WORLD; initializes MPI on first use. */
export function getWorld(): Comm {
  init();
  return (worldComm ??= new Comm(0));
}

/** MPI_COMM_SELF; initializes MPI on first use. */
export function getSelf(): Comm {
  init();
  return (selfComm ??= new Comm(1));
}
