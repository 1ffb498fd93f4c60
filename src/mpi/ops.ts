// Reduction operations, named as in MPI (and mpi4py: MPI.SUM ...). Buffer reductions run in the
// MPI library; object reductions (reduceObject/allreduceObject) apply the same names in JS.

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

const INDEX: Record<string, number> = Object.fromEntries(OPS.map((name, i) => [name, i]));

/** The addon's index of `op` (its position in OPS, the order of the addon's table). */
export function opIndex(op: Op, what: string): number {
  const i = typeof op === 'string' ? INDEX[op] : undefined;
  if (i !== undefined) return i;
  if (typeof op === 'function') {
    throw new TypeError(
      `${what}: user-defined ops (functions) are not supported on buffers yet; valid ops: ${OPS.join(', ')} ` +
        '(reduceObject/allreduceObject take a function)',
    );
  }
  throw new TypeError(`${what}: op ${describe(op)} is not valid; valid choices: ${OPS.join(', ')}`);
}

// A wrong op as the message shows it: strings quoted, anything else by its value or type.
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value); // String(), not a template: symbols
  return `(${Array.isArray(value) ? 'an array' : 'an object'})`;
}

/** A reduction of two JS values: an Op name or a function (a, b) => result. */
export type ObjectOp<T> = Op | ((a: T, b: T) => T);

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

export function objectOpFunction<T>(op: ObjectOp<T>, what: string): (a: T, b: T) => T {
  if (typeof op === 'function') return op;
  opIndex(op, what);
  return JS_OPS[op];
}
