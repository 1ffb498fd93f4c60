// Buffer reductions with ops that run in JS: a 2x2 matrix product (not commutative: rank order
// shows), MINLOC and MAXLOC on (value, index) pairs with ties, through reduce (every root),
// allreduce (in place and not), reduceScatterBlock, reduceScatter (uneven parts), scan and exscan,
// blocking, waited and awaited; then the arguments refused. Prints one JSON line per rank:
// {rank, cases, bad: [first failures]}.
const tc = require('../../../dist/index.js');

const { world, IN_PLACE } = tc;
const p = world.size;
const me = world.rank;
let cases = 0;
const bad = [];
const fail = (what) => bad.length < 10 && bad.push(what);

// k 2x2 matrices per vector, row-major; rank r's matrix j is [[r + 1 + j, 1], [0, 1]]: products of
// such matrices differ with the order, and stay exact integers in doubles.
const K = 3;
const matrixOf = (r, j) => [r + 1 + j, 1, 0, 1];
const matmul = (invec, inoutvec) => {
  for (let i = 0; i < inoutvec.length; i += 4) {
    const [a, b, c, d] = invec.subarray(i, i + 4);
    const [e, f, g, h] = inoutvec.subarray(i, i + 4);
    inoutvec.set([a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h], i);
  }
};
// The operand of rank r: `blocks` vectors of K matrices.
const operand = (r, blocks) => Float64Array.from({ length: 4 * K * blocks }, (_, i) => matrixOf(r, Math.floor(i / 4) % K)[i % 4]);
// Ranks lo..hi combined in rank order, matrices [first, first + count).
function product(lo, hi, first, count) {
  const out = new Float64Array(4 * count);
  for (let j = 0; j < count; j++) {
    let m = matrixOf(lo, (first + j) % K);
    for (let r = lo + 1; r <= hi; r++) {
      const [a, b, c, d] = m;
      const [e, f, g, h] = matrixOf(r, (first + j) % K);
      m = [a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h];
    }
    out.set(m, 4 * j);
  }
  return out;
}
function expect(what, got, want) {
  cases++;
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i]) return fail(`${what}: element ${i} is ${got[i]}, expected ${want[i]}`);
  }
}
// Blocking, waited, or awaited.
async function run(mode, blocking, nonblocking) {
  if (mode === 'blocking') return blocking();
  const req = nonblocking();
  return mode === 'wait' ? req.wait() : await req;
}

(async () => {
  for (const mode of ['blocking', 'wait', 'await']) {
    const M = 4 * K;
    // allreduce, not in place and in place
    let recv = new Float64Array(M);
    await run(mode, () => world.allreduce(operand(me, 1), recv, matmul), () => world.iallreduce(operand(me, 1), recv, matmul));
    expect(`allreduce ${mode}`, recv, product(0, p - 1, 0, K));
    recv = operand(me, 1);
    await run(mode, () => world.allreduce(IN_PLACE, recv, matmul), () => world.iallreduce(IN_PLACE, recv, matmul));
    expect(`allreduce in place ${mode}`, recv, product(0, p - 1, 0, K));
    // reduce at every root
    for (let root = 0; root < p; root++) {
      recv = me === root ? new Float64Array(M) : null;
      const got = await run(mode, () => world.reduce(operand(me, 1), recv, matmul, root), () => world.ireduce(operand(me, 1), recv, matmul, root));
      if (me === root) expect(`reduce root ${root} ${mode}`, got, product(0, p - 1, 0, K));
      else if (got !== null) fail(`reduce root ${root} ${mode}: a non-root got ${got}`);
    }
    // reduceScatterBlock: p blocks of K matrices, block r to rank r
    recv = new Float64Array(M);
    await run(mode, () => world.reduceScatterBlock(operand(me, p), recv, matmul), () => world.ireduceScatterBlock(operand(me, p), recv, matmul));
    expect(`reduceScatterBlock ${mode}`, recv, product(0, p - 1, me * K, K));
    // reduceScatter: rank r's part is (r % 3) matrices
    const parts = Array.from({ length: p }, (_, r) => 4 * (r % 3));
    const total = parts.reduce((a, b) => a + b, 0);
    const first = parts.slice(0, me).reduce((a, b) => a + b, 0) / 4;
    const vector = Float64Array.from({ length: total }, (_, i) => matrixOf(me, Math.floor(i / 4) % K)[i % 4]);
    recv = new Float64Array(Math.max(parts[me], 1));
    await run(mode, () => world.reduceScatter(vector, recv, parts, matmul), () => world.ireduceScatter(vector, recv, parts, matmul));
    expect(`reduceScatter ${mode}`, recv.subarray(0, parts[me]), product(0, p - 1, first, parts[me] / 4));
    // scan and exscan
    recv = new Float64Array(M);
    await run(mode, () => world.scan(operand(me, 1), recv, matmul), () => world.iscan(operand(me, 1), recv, matmul));
    expect(`scan ${mode}`, recv, product(0, me, 0, K));
    recv = new Float64Array(M).fill(-1);
    await run(mode, () => world.exscan(operand(me, 1), recv, matmul), () => world.iexscan(operand(me, 1), recv, matmul));
    expect(`exscan ${mode}`, recv, me === 0 ? new Float64Array(M).fill(-1) : product(0, me - 1, 0, K));
    // MINLOC/MAXLOC: pair i holds value (r * 7 + i) % 3 (ties between ranks) and index r
    const pairs = Float64Array.from({ length: 8 }, (_, i) => (i % 2 ? me : (me * 7 + i / 2) % 3));
    for (const op of ['MINLOC', 'MAXLOC']) {
      const want = new Float64Array(8);
      for (let i = 0; i < 4; i++) {
        let [v, k] = [(0 * 7 + i) % 3, 0];
        for (let r = 1; r < p; r++) {
          const w = (r * 7 + i) % 3;
          if (op === 'MINLOC' ? w < v : w > v) [v, k] = [w, r];
        }
        want.set([v, k], 2 * i);
      }
      recv = new Float64Array(8);
      await run(mode, () => world.allreduce(pairs, recv, op), () => world.iallreduce(pairs, recv, op));
      expect(`${op} ${mode}`, recv, want);
    }
  }
  // Arguments refused before any traffic.
  const refuses = (what, fn, Type, pattern) => {
    cases++;
    try {
      fn();
      fail(`${what}: no error`);
    } catch (e) {
      if (!(e instanceof Type) || !pattern.test(e.message)) fail(`${what}: ${e.name}: ${e.message}`);
    }
  };
  refuses('a DataView', () => world.allreduce(new DataView(new ArrayBuffer(8)), new DataView(new ArrayBuffer(8)), matmul), TypeError, /a user-defined op combines typed arrays; (send|recv)buf is a DataView/);
  refuses('odd pairs', () => world.allreduce(new Float64Array(3), new Float64Array(3), 'MINLOC'), RangeError, /not a whole number of pairs/);
  refuses('mixed types', () => world.allreduce(new Float64Array(4), new Float32Array(4), matmul), TypeError, /same element type/);
  refuses('short recvbuf', () => world.allreduce(new Float64Array(8), new Float64Array(4), matmul), RangeError, /recvbuf holds 4 elements, needs 8/);
  // The same checks, wording and error classes as the reductions with MPI's ops.
  refuses('recvcounts of the wrong length', () => world.reduceScatter(new Float64Array(4), new Float64Array(4), [4, ...Array(p).fill(0)], matmul), RangeError, /reduceScatter: recvcounts has \d+ entries, needs one per rank/);
  refuses('a negative count', () => world.ireduceScatter(IN_PLACE, new Float64Array(4), Array(p).fill(-1), matmul), RangeError, /ireduceScatter: recvcounts\[0\] must be a whole number from 0 to/);
  if (p > 1) refuses('not a multiple of p', () => world.reduceScatterBlock(new Float64Array(4 * p + 1), new Float64Array(4), matmul), RangeError, /sendbuf length \(\d+\) must be a multiple of the communicator size/);
  refuses('a root out of range', () => world.reduce(new Float64Array(4), new Float64Array(4), matmul, p), tc.MpiError, /^root = \d+ is not a rank of this communicator; valid: \[0, \d+\]/);
  if (p > 1) refuses('IN_PLACE off the root', () => world.reduce(IN_PLACE, null, matmul, (me + 1) % p), TypeError, /reduce: IN_PLACE is valid only at the root/);
  refuses('an unknown op', () => world.allreduce(new Float64Array(4), new Float64Array(4), 'AVG'), TypeError, /op "AVG" is not valid; valid choices: SUM.*MINLOC, MAXLOC, or a function/);
  console.log(JSON.stringify({ rank: me, cases, bad }));
})();
