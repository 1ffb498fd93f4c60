// Every engine collective at a few sizes under whatever the environment selects; checks the bytes
// and prints one JSON line per rank.
const { world } = require('../../../dist/index.js');
const p = world.size, r = world.rank;
const bad = [];
const expect = (what, got, want) => { if (got !== want && bad.length < 5) bad.push({ what, got, want }); };

for (const n of [1, 100, 1024, 40000]) {
  const send = new Int32Array(n).map((_, i) => r * 1_000_003 + i);
  const all = world.allgather(send, new Int32Array(n * p).fill(-1));
  all.forEach((v, i) => expect(`allgather ${n}`, v, Math.floor(i / n) * 1_000_003 + (i % n)));

  const msg = new Int32Array(n).map((_, i) => (r === p - 1 ? i * 7 : -1));
  world.bcast(msg, p - 1);
  msg.forEach((v, i) => expect(`bcast ${n}`, v, i * 7));

  const out = new Int32Array(n * p).map((_, i) => r * 1_000_003 + Math.floor(i / n) * 1000 + (i % n));
  const got = world.alltoall(out, new Int32Array(n * p).fill(-1));
  got.forEach((v, i) => expect(`alltoall ${n}`, v, Math.floor(i / n) * 1_000_003 + r * 1000 + (i % n)));
}
// Communicators come and go: each chooses afresh (its choices are freed with it), and the handle
// MPI reuses for the next one must not bring back the last one's choice for a different size.
for (let i = 0; i < 40; i++) {
  const comm = world.dup();
  const n = 1 + (i % 5) * 300;
  const all = comm.allgather(new Int32Array(n).fill(r + i), new Int32Array(n * p).fill(-1));
  all.forEach((v, j) => expect(`allgather ${n} on dup ${i}`, v, Math.floor(j / n) + i));
  comm.free();
}
world.barrier();
console.log(JSON.stringify({ rank: r, bad }));
