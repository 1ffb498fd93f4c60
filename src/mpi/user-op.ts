// Reductions with an op written in JS, on buffers: every rank's operand is gathered (allgather,
// gather, alltoall or alltoallv: p operands of n elements per rank, instead of the log p or 2n of
// the engine's algorithms), then combined on the calling thread in rank order, x0 op x1 op ... op
// x(p-1), so ops that are not commutative run, and every rank of an allreduce computes the same
// expression on the same operands: the same bits everywhere. MINLOC and MAXLOC run the same way
// on (value, index) pairs.
import type { NativeRequest } from './addon';
import { addon } from './native';
import { engineRequest } from './request';
import type { Op } from './ops';

/**
 * A reduction op written in JS, as MPI's MPI_User_function: sets `inoutvec[i] = invec[i] op
 * inoutvec[i]` for every element, `invec` holding the lower ranks' operand. It need not be
 * commutative; it must be associative.
 */
export type UserOp<T extends TypedArray = TypedArray> = (invec: T, inoutvec: T) => void;

export type TypedArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** The ops on (value, index) pairs, stored as consecutive elements of a typed array. */
export const PAIR_OPS = ['MINLOC', 'MAXLOC'] as const;
export type PairOp = (typeof PAIR_OPS)[number];
export const MINLOC = 'MINLOC';
export const MAXLOC = 'MAXLOC';

// MPI's rule: the smaller (MINLOC) or larger (MAXLOC) value, and on a tie the smaller index.
const pairOp =
  (better: (a: number | bigint, b: number | bigint) => boolean): UserOp =>
  (invec, inoutvec) => {
    for (let i = 0; i + 1 < inoutvec.length; i += 2) {
      const [v, k, w, l] = [invec[i], invec[i + 1], inoutvec[i], inoutvec[i + 1]];
      if (better(v, w) || (v === w && k < l)) {
        inoutvec[i] = v;
        inoutvec[i + 1] = k;
      }
    }
  };
const PAIR_FUNCTIONS: Record<PairOp, UserOp> = { MINLOC: pairOp((a, b) => a < b), MAXLOC: pairOp((a, b) => a > b) };

/** The op of a buffer reduction: one of MPI's (OPS), MINLOC/MAXLOC on pairs, or a JS function. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type BufferOp = Op | PairOp | UserOp<any>;

export type ReductionKind = 'reduce' | 'allreduce' | 'reduceScatterBlock' | 'reduceScatter' | 'scan' | 'exscan';

/** A reduction in flight: the exchange's request (nonblocking), then `finish` combines. */
export interface UserReduction {
  native?: NativeRequest;
  finish(): void;
  keep: unknown[];
}

interface Place {
  handle: unknown;
  size: number;
  rank: number;
}

type Ctor = new (n: number) => TypedArray;

// The reduction whose buffer rules each kind follows (scan and exscan: allreduce's).
const SHAPE_OF = {
  reduce: 'reduce',
  allreduce: 'allreduce',
  scan: 'allreduce',
  exscan: 'allreduce',
  reduceScatterBlock: 'reduce_scatter_block',
  reduceScatter: 'reduce_scatter',
} as const satisfies Record<ReductionKind, string>;

function typed(buf: unknown, name: string, what: string): TypedArray {
  if (!ArrayBuffer.isView(buf) || buf instanceof DataView) {
    throw new TypeError(`${what}: a user-defined op combines typed arrays; ${name} is ${buf === null ? 'null' : buf instanceof DataView ? 'a DataView' : typeof buf}`);
  }
  return buf as TypedArray;
}

const isPairOp = (fn: UserOp) => fn === PAIR_FUNCTIONS.MINLOC || fn === PAIR_FUNCTIONS.MAXLOC;

/** The function of an op that runs in JS (a function, MINLOC, MAXLOC), or undefined for one the MPI has. */
export function jsOpFunction(op: unknown): UserOp | undefined {
  if (typeof op === 'function') return op as UserOp;
  return typeof op === 'string' && (PAIR_OPS as readonly string[]).includes(op) ? PAIR_FUNCTIONS[op as PairOp] : undefined;
}

/**
 * Starts (nonblocking) or runs (blocking) the exchange of a reduction with a JS op `fn`; its
 * `finish` combines the operands into recvbuf once the exchange has completed. sendbuf null: in
 * place.
 */
export function userReduction(
  comm: Place,
  kind: ReductionKind,
  what: string,
  sendbuf: unknown,
  recvbuf: unknown,
  fn: UserOp,
  nonblocking: boolean,
  root = 0,
  recvcounts?: ArrayLike<number>,
): UserReduction {
  const { size: p, rank: me, handle } = comm;
  const receives = kind !== 'reduce' || me === root;
  const a = addon();
  // The addon checks the buffers as the reduction would (in place, element types, lengths, counts).
  const n = a.reductionShape(SHAPE_OF[kind], what, handle as never, sendbuf as TypedArray | null, recvbuf as TypedArray | null, recvcounts, root);
  const recv = receives ? typed(recvbuf, 'recvbuf', what) : undefined;
  const operand = sendbuf === null ? recv! : typed(sendbuf, 'sendbuf', what);
  const Type = operand.constructor as Ctor;
  const parts = kind === 'reduceScatter' ? Array.from(recvcounts!, Number) : undefined;
  if (isPairOp(fn) && n % 2 !== 0) throw new RangeError(`${what}: MINLOC and MAXLOC combine (value, index) pairs: ${n} elements is not a whole number of pairs`);
  // The operands this rank combines, rank r's at [r n, (r + 1) n).
  const all = receives ? new Type(p * n) : new Type(0);
  const block = (r: number) => all.subarray(r * n, (r + 1) * n);
  const nb = nonblocking as true; // the request when nonblocking, else undefined
  const mine = operand.subarray(0, kind === 'reduceScatterBlock' ? p * n : kind === 'reduceScatter' ? operand.length : n);
  let native: NativeRequest | undefined;
  switch (kind) {
    case 'reduce':
      native = a.gather(handle as never, mine, receives ? all : null, root, nb);
      break;
    case 'reduceScatterBlock':
      native = engineRequest(a.alltoall(handle as never, mine, all, nb));
      break;
    case 'reduceScatter': {
      const displs = parts!.map((_, r) => parts!.slice(0, r).reduce((x, y) => x + y, 0));
      native = a.alltoallv(handle as never, mine, parts!, displs, all, Array(p).fill(n), undefined, nb);
      break;
    }
    default:
      native = engineRequest(a.allgather(handle as never, mine, all, nb));
  }
  // Ranks lo..hi (inclusive) combined into recv, right to left: x_lo op (... op x_hi).
  const combine = (lo: number, hi: number) => {
    const out = recv!.subarray(0, n);
    (out as Float64Array).set(block(hi) as Float64Array); // the same element type: set() copies
    for (let r = hi - 1; r >= lo; r--) fn(block(r), out);
  };
  const finish = () => {
    if (!receives || n === 0) return;
    if (kind === 'scan') combine(0, me);
    else if (kind === 'exscan') {
      if (me > 0) combine(0, me - 1);
    } else combine(0, p - 1);
  };
  return { native: native ?? undefined, finish, keep: [sendbuf, recvbuf, all] };
}
