// The point-to-point objects beyond a send or a receive: a Message matched by a probe (received
// once, by Message.recv/irecv), a persistent request (started again and again), and the buffer
// that buffered sends copy into (MPI_Buffer_attach).
import type { MpiRequest, NativeMessage } from './addon';
import type { BufferLike, Status } from './comm';
import type { DataBuffer } from './datatype';
import { addon } from './native';
import { newRequest, Request, statusOfRequest } from './request';

let messageOf: (native: NativeMessage, status: Status) => Message;
let nativeOf: (request: PersistentRequest<unknown>, what: string) => MpiRequest;
let activationOf: <T>(request: PersistentRequest<T>) => Request<T>;
let persistentOf: <T>(native: MpiRequest, result: () => T, keepAlive: unknown[]) => PersistentRequest<T>;

/**
 * A message matched by `comm.mprobe()` or `comm.improbe()` (MPI_Mprobe, MPI_Improbe): no other
 * receive can take it, and it is received exactly once, by `recv()` or `irecv()` into a buffer
 * sized from `status` (its count is in bytes, as for probe()).
 */
export class Message {
  /** What the probe found: source, tag, and `count`/`bytes`, both in bytes. */
  readonly status: Status;
  #native: NativeMessage;

  private constructor(native: NativeMessage, status: Status) {
    this.#native = native;
    this.status = status;
  }

  static {
    messageOf = (native, status) => new Message(native, status);
  }

  /** Receives the message into `buf` (MPI_Mrecv): its Status, count in `buf`'s elements. */
  recv(buf: DataBuffer): Status {
    return this.#native.recv(buf);
  }

  /** Nonblocking receive of the message into `buf` (MPI_Imrecv); the request resolves to the Status. */
  irecv(buf: DataBuffer): Request<Status> {
    return newRequest(this.#native.irecv(buf), statusOfRequest, [buf], 'p2p');
  }
}

/** The Message of a matched probe (or null where the probe found none). */
export function matchedMessage(found: { message: NativeMessage; status: Status } | null): Message | null {
  return found && messageOf(found.message, found.status);
}

/**
 * A persistent request (MPI_Send_init, MPI_Recv_init): the arguments of a send or receive bound
 * once, started as often as needed. `start()` starts one operation and returns its Request (await
 * it, wait() or test() it, or pass it to waitAll); it must complete before the next start().
 * `free()` releases it (MPI_Request_free) once no operation is in flight.
 */
export class PersistentRequest<T = void> {
  #native: MpiRequest | null;
  #result: () => T;
  #keepAlive: unknown[];

  private constructor(native: MpiRequest, result: () => T, keepAlive: unknown[]) {
    this.#native = native;
    this.#result = result;
    this.#keepAlive = keepAlive;
  }

  static {
    persistentOf = (native, result, keepAlive) => new PersistentRequest(native, result, keepAlive);
    nativeOf = (request, what) => {
      if (!request.#native) throw new TypeError(`${what}: the persistent request has been freed`);
      return request.#native;
    };
    activationOf = (request) => newRequest(request.#native!, request.#result, request.#keepAlive, 'persistent');
  }

  /** MPI_Start: starts the operation; its Request completes it. A TypeError while one is in flight. */
  start(): Request<T> {
    nativeOf(this, 'start').start();
    return activationOf(this);
  }

  /**
   * MPI_Request_free: lets go of the request. A TypeError while an operation is in flight
   * (complete it first); later start() calls throw.
   */
  free(): void {
    nativeOf(this, 'free').free();
    this.#native = null;
  }
}

/** A PersistentRequest of an inactive native one; `keepAlive`: the buffers MPI reads or writes. */
export function persistentRequest<T>(native: MpiRequest, result: () => T, keepAlive: unknown[]): PersistentRequest<T> {
  return persistentOf(native, result, keepAlive);
}

/**
 * MPI_Startall: starts every persistent request (none may be in flight), and returns their
 * Requests in order (`await waitAll(startAll(reqs))`).
 */
export function startAll<T>(requests: readonly PersistentRequest<T>[]): Request<T>[] {
  if (!Array.isArray(requests) || !requests.every((r) => r instanceof PersistentRequest)) {
    throw new TypeError('startAll: requests must be an array of PersistentRequests (from sendInit, recvInit)');
  }
  addon().startAll(requests.map((r) => nativeOf(r, 'startAll')));
  return requests.map((r) => activationOf(r));
}

// The attached buffer: referenced here so that the garbage collector leaves it to MPI.
let attached: BufferLike | null = null;

/**
 * MPI_Buffer_attach: the buffer that buffered sends (bsend, ibsend) copy their messages into; each
 * message takes its bytes plus BSEND_OVERHEAD. One buffer at a time (detachBuffer() first).
 */
export function attachBuffer(buffer: BufferLike): void {
  if (attached) throw new TypeError('attachBuffer: a buffer is attached already; call detachBuffer() first');
  addon().bufferAttach(buffer);
  attached = buffer;
}

/**
 * MPI_Buffer_detach: waits until every buffered message has left the attached buffer, detaches it
 * and returns it (null when none is attached).
 */
export function detachBuffer(): BufferLike | null {
  if (!attached) return null;
  addon().bufferDetach();
  const buffer = attached;
  attached = null;
  return buffer;
}
