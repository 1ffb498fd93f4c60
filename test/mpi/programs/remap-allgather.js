// The remapped allgathers of seed 004 under real MPI: every algorithm, on the world, a dup and a
// split with reversed rank order (a different, non-contiguous node layout), blocking and
// nonblocking, in place and not, several block sizes; received bytes checked. Also checks that
// every rank of a communicator holds the same pi, a permutation, cached per communicator.
// Prints one JSON line per rank: {rank, checks, bad, mappings}.
const tc = require('../../../dist/index.js');
const { addon } = require('../../../dist/mpi/native.js');

const native = addon();
const { world, IN_PLACE } = tc;
const ALGORITHMS = (process.argv[2] ?? 'bruck_exch,bruck_reorder,recursive_doubling_exch,recursive_doubling_reorder').split(',');
const COUNTS = [1, 3, 1000];
const bad = [];
let checks = 0;
const mappings = {};

function fail(what) {
  if (bad.length < 10) bad.push(what);
}

function checkAllgather(name, comm, algorithm) {
  native.setAlgorithm('allgather', algorithm);
  const p = comm.size, me = comm.rank;
  for (const n of COUNTS) {
    for (const mode of ['blocking', 'in place', 'nonblocking']) {
      const value = (r, i) => (r * 7919 + i * 31 + n) | 0;
      const recv = new Int32Array(n * p).fill(-1);
      const send = new Int32Array(n).map((_, i) => value(me, i));
      if (mode === 'in place') {
        recv.set(send, me * n);
        comm.allgather(IN_PLACE, recv);
      } else if (mode === 'nonblocking') {
        comm.iallgather(send, recv).wait();
      } else {
        comm.allgather(send, recv);
      }
      const why = native.takeFallback('allgather');
      if (why) fail(`${name} ${algorithm} n=${n} ${mode}: fell back: ${why}`);
      for (let r = 0; r < p; r++) {
        for (let i = 0; i < n; i++) {
          if (recv[r * n + i] !== value(r, i)) {
            fail(`${name} ${algorithm} n=${n} ${mode}: block ${r}[${i}] = ${recv[r * n + i]}, want ${value(r, i)}`);
            r = p;
            break;
          }
        }
      }
      checks++;
    }
  }
  // pi: the same on every rank (gathered with ring), a permutation; a second lookup gives the same
  // (whether it was cached is not judged by its time: a descheduled rank makes any lookup slow).
  const m = native.commRankMapping(comm.handle, algorithm);
  const again = native.commRankMapping(comm.handle, algorithm);
  if (!(again.milliseconds >= 0)) fail(`${name} ${algorithm}: lookup time ${again.milliseconds} ms`);
  for (const key of ['pi', 'piInv', 'nodes']) {
    if (Array.from(again[key]).join() !== Array.from(m[key]).join()) fail(`${name} ${algorithm}: a second lookup gave another ${key}`);
  }
  native.setAlgorithm('allgather', 'ring');
  const all = new Int32Array(p * p);
  comm.allgather(m.pi, all);
  for (let r = 1; r < p; r++) {
    for (let v = 0; v < p; v++) if (all[r * p + v] !== all[v]) { fail(`${name} ${algorithm}: rank ${r} has another pi`); break; }
  }
  const sorted = Array.from(m.pi).sort((a, b) => a - b);
  if (sorted.some((x, i) => x !== i)) fail(`${name} ${algorithm}: pi ${Array.from(m.pi)} is not a permutation`);
  for (let r = 0; r < p; r++) if (m.pi[m.piInv[r]] !== r) fail(`${name} ${algorithm}: piInv is not the inverse`);
  mappings[`${name} ${algorithm}`] = { nodes: Array.from(m.nodes), pi: Array.from(m.pi), machineLevels: m.machineLevels };
  checks++;
}

const comms = [
  ['world', world],
  ['dup', world.dup()],
  // Colour by parity, reversed key: within each half ranks run backwards over the nodes.
  ['split', world.split(world.rank % 2, world.size - world.rank)],
];
for (const [name, comm] of comms) for (const algorithm of ALGORITHMS) checkAllgather(name, comm, algorithm);
for (const [name, comm] of comms) if (name !== 'world') comm.free();
native.setAlgorithm('allgather', null);
console.log(JSON.stringify({ rank: world.rank, checks, bad, mappings: world.rank === 0 ? mappings : undefined }));
