// Exercises barrier, bcast, allgather and alltoall through the engine with whatever algorithms
// the environment forces (the shm tests force the multi-core ones), blocking and nonblocking,
// several sizes, roots and in place; every received byte is checked. Prints one JSON line per
// rank: {rank, pid, checks, bad} (the pid lets the test look for segments left in /dev/shm).
//   node shm-collectives.js [scale]    scale (default 1) multiplies the large sizes
const tc = require('../../../dist/index.js');
const { world, IN_PLACE } = tc;
const p = world.size;
const me = world.rank;
const scale = Number(process.argv[2] ?? 1);
let checks = 0;
const bad = [];

function expectArray(what, got, want) {
  checks++;
  for (let i = 0; i < want.length; i++) {
    if (got[i] !== want[i]) {
      if (bad.length < 10) bad.push({ what, i, got: got[i], want: want[i] });
      return;
    }
  }
  if (got.length !== want.length && bad.length < 10) bad.push({ what, length: got.length, want: want.length });
}

const pattern = (n, seed, Type = Uint8Array) => {
  const a = new Type(n);
  for (let i = 0; i < n; i++) a[i] = (seed * 131 + i * 7 + (i >> 8)) % 251;
  return a;
};

// --- barrier: a rank that leaves early would see a counter not yet advanced ---
for (let i = 0; i < 20; i++) world.barrier();
checks++;
{
  const r = world.ibarrier();
  r.wait();
  checks++;
}

// --- bcast ---
const roots = [...new Set([0, p - 1, p >> 1])];
const bcastBytes = [0, 1, 7, 1000, 12289, 70001, Math.round(300001 * scale)];
for (const bytes of bcastBytes) {
  for (const root of roots) {
    const want = pattern(bytes, root + bytes);
    const buf = me === root ? want.slice() : new Uint8Array(bytes);
    world.bcast(buf, root);
    expectArray(`bcast ${bytes} B root ${root}`, buf, want);
  }
}
{
  const want = pattern(40000, 3, Float64Array);
  const buf = me === 0 ? want.slice() : new Float64Array(40000);
  world.bcast(buf, 0);
  expectArray('bcast float64 x 40000', buf, want);
}
// Repeated bcasts from one root: the root may run ahead of slow readers by several calls.
for (let i = 0; i < 12; i++) {
  const bytes = 20000 + i * 1000;
  const want = pattern(bytes, i);
  const buf = me === i % p ? want.slice() : new Uint8Array(bytes);
  world.bcast(buf, i % p);
  expectArray(`bcast burst ${i}`, buf, want);
}

// --- allgather ---
for (const n of [0, 1, 5, 1000, Math.round(40000 * scale)]) {
  const want = new Int32Array(n * p);
  for (let r = 0; r < p; r++) want.set(pattern(n, r * 17 + n, Int32Array), r * n);
  const mine = pattern(n, me * 17 + n, Int32Array);
  const recv = new Int32Array(n * p).fill(-1);
  world.allgather(mine, recv);
  expectArray(`allgather ${n}`, recv, want);
  const inplace = new Int32Array(n * p).fill(-1);
  inplace.set(mine, me * n);
  world.allgather(IN_PLACE, inplace);
  expectArray(`allgather in place ${n}`, inplace, want);
}

// --- alltoall: block j of rank r carries (r, j) ---
const block = (r, j, n) => pattern(n, r * 1000 + j * 7 + n, Int32Array);
for (const n of [0, 1, 100, Math.round(30000 * scale)]) {
  const send = new Int32Array(n * p);
  const want = new Int32Array(n * p);
  for (let j = 0; j < p; j++) {
    send.set(block(me, j, n), j * n);
    want.set(block(j, me, n), j * n);
  }
  const recv = new Int32Array(n * p).fill(-1);
  world.alltoall(send, recv);
  expectArray(`alltoall ${n}`, recv, want);
  const inplace = send.slice();
  world.alltoall(IN_PLACE, inplace);
  expectArray(`alltoall in place ${n}`, inplace, want);
}

// --- nonblocking, several in flight, completed in reverse order ---
for (let round = 0; round < 3; round++) {
  const n = 2000 + round;
  const bytes = 50000 + round;
  const bcastWant = pattern(bytes, 99 + round);
  const bcastBuf = me === round % p ? bcastWant.slice() : new Uint8Array(bytes);
  const agWant = new Int32Array(n * p);
  for (let r = 0; r < p; r++) agWant.set(pattern(n, r + round, Int32Array), r * n);
  const agRecv = new Int32Array(n * p);
  const aaSend = new Int32Array(n * p);
  const aaWant = new Int32Array(n * p);
  for (let j = 0; j < p; j++) {
    aaSend.set(block(me, j, n), j * n);
    aaWant.set(block(j, me, n), j * n);
  }
  const aaRecv = new Int32Array(n * p);
  const second = new Uint8Array(bytes);
  if (me === 0) second.set(bcastWant);
  const requests = [
    world.ibcast(bcastBuf, round % p),
    world.iallgather(pattern(n, me + round, Int32Array), agRecv),
    world.ibarrier(),
    world.ialltoall(aaSend, aaRecv),
    world.ibcast(second, 0),
    world.ibarrier(),
  ];
  for (const r of requests.reverse()) r.wait();
  expectArray(`ibcast ${round}`, bcastBuf, bcastWant);
  expectArray(`ibcast second ${round}`, second, bcastWant);
  expectArray(`iallgather ${round}`, agRecv, agWant);
  expectArray(`ialltoall ${round}`, aaRecv, aaWant);
}

// --- a rendezvous send pending while its sender waits inside a shared-memory bcast: the root
// (rank 1) only reaches the bcast once rank 0's message has arrived, so rank 0's flag waits must
// let MPI progress that send ---
if (p > 1) {
  const big = pattern(4 << 20, 77);
  const bytes = 300000;
  const want = pattern(bytes, 78);
  const buf = me === 1 ? want.slice() : new Uint8Array(bytes);
  if (me === 0) {
    const r = world.isend(big, 1, 9);
    world.bcast(buf, 1);
    r.wait();
  } else {
    if (me === 1) {
      const got = new Uint8Array(4 << 20);
      world.recv(got, 0, 9);
      if (got.some((v, i) => v !== big[i]) && bad.length < 10) bad.push({ what: 'rendezvous message' });
    }
    world.bcast(buf, 1);
  }
  expectArray('bcast behind a rendezvous send', buf, want);
}

console.log(JSON.stringify({ rank: me, pid: process.pid, checks, bad }));
