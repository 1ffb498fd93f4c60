// Allgather through the engine with every element type the test asks for; prints one JSON line per rank.
const tc = require('../../../dist/index.js');
const { world } = tc;
const n = Number(process.argv[2] ?? 3);
const send = new Int32Array(n).map((_, i) => world.rank * 1000 + i);
const recv = new Int32Array(n * world.size).fill(-1);
world.allgather(send, recv);
const bad = [];
recv.forEach((v, i) => {
  const want = Math.floor(i / Math.max(n, 1)) * 1000 + (i % Math.max(n, 1));
  if (v !== want && bad.length < 5) bad.push({ i, v, want });
});
console.log(JSON.stringify({ rank: world.rank, bad }));
