// Reduction operations, named as in MPI (and mpi4py: MPI.SUM ...). Buffer reductions run in the
// engine or the MPI library (MINLOC, MAXLOC and functions in JS: user-op.ts); object reductions
// (reduceObject/allreduceObject) apply the same names in JS.

export const OPS = ['SUM', 'PROD', 'MIN', 'MAX', 'LAND', 'LOR', 'LXOR', 'BAND', 'BOR', 'BXOR'] as const;
export type Op = (typeof OPS)[number];

export const SUM = 'SUM';
export const PROD = 'PROD';
export const MIN = 'MIN';
export const MAX = 'MAX';
export const LAND = 'LAND';
export const LOR = 'LOR';
export const LXOR = 'LXOR';
export const BAND = 'BAND';
export const BOR = 'BOR';
export const BXOR = 'BXOR';

import { PAIR_OPS, type PairOp } from './user-op';

const INDEX: Record<string, number> = Object.fromEntries(OPS.map((name, i) => [name, i]));

/** The addon's index of `op` (its position in OPS, the order of the addon's table). */
export function opIndex(op: Op, what: string): number {
  const i = typeof op === 'string' ? INDEX[op] : undefined;
  if (i !== undefined) return i;
  throw new TypeError(`${what}: op ${describe(op)} is not valid; valid choices: ${[...OPS, ...PAIR_OPS].join(', ')}, or a function (invec, inoutvec) => void`);
}

// A wrong op as the message shows it: strings quoted, anything else by its value or type.
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value); // String(), not a template: symbols
  return `(${Array.isArray(value) ? 'an array' : 'an object'})`;
}

/** A reduction of two JS values: an Op name (MINLOC/MAXLOC: of [value, index] pairs) or a function (a, b) => result. */
export type ObjectOp<T> = Op | PairOp | ((a: T, b: T) => T);

// The ops on plain JS values (numbers, bigints, booleans), as MPI defines them on numbers.
const JS_OPS: Record<Op, (a: any, b: any) => any> = {
  SUM: (a, b) => a + b,
  PROD: (a, b) => a * b,
  MIN: (a, b) => (b < a ? b : a),
  MAX: (a, b) => (b > a ? b : a),
  LAND: (a, b) => Boolean(a) && Boolean(b),
  LOR: (a, b) => Boolean(a) || Boolean(b),
  LXOR: (a, b) => Boolean(a) !== Boolean(b),
  BAND: (a, b) => a & b,
  BOR: (a, b) => a | b,
  BXOR: (a, b) => a ^ b,
};

// MPI's rule on [value, index] pairs: the smaller (MINLOC) or larger (MAXLOC) value, on a tie the smaller index.
const pairFold = (better: (v: any, w: any) => boolean) => (a: any, b: any) => (better(b[0], a[0]) || (b[0] === a[0] && b[1] < a[1]) ? b : a);
const JS_PAIR_OPS: Record<PairOp, (a: any, b: any) => any> = { MINLOC: pairFold((v, w) => v < w), MAXLOC: pairFold((v, w) => v > w) };

export function objectOpFunction<T>(op: ObjectOp<T>, what: string): (a: T, b: T) => T {
  if (typeof op === 'function') return op;
  if (op === 'MINLOC' || op === 'MAXLOC') return JS_PAIR_OPS[op];
  opIndex(op, what);
  return JS_OPS[op];
}
