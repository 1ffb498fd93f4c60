// On the emulated cluster: every rank reports where it runs (hostname, network namespace, address)
// and what it learnt from the others through an engine allgather, and checks the allgather's bytes
// for several block sizes, then every allgather algorithm, the hierarchical allreduce and reduce and
// the ring and multi-leader allreduces on communicators of every layout. One JSON line per rank.
const fs = require('node:fs');
const os = require('node:os');
const tc = require('../../../dist/index.js');
const { addon } = require('../../../dist/mpi/native.js');

const { world } = tc;
const NAME_BYTES = 64;
const host = tc.processorName();
// The network namespace: ranks of one emulated host share it, other hosts have their own.
const netns = fs.readlinkSync('/proc/self/ns/net');
const address = (os.networkInterfaces().eth0 ?? []).find((a) => a.family === 'IPv4')?.address ?? null;

function gatherStrings(text) {
  const send = Buffer.alloc(NAME_BYTES);
  send.write(text);
  const recv = Buffer.alloc(NAME_BYTES * world.size);
  world.allgather(send, recv);
  return Array.from({ length: world.size }, (_, r) => recv.subarray(r * NAME_BYTES, (r + 1) * NAME_BYTES).toString().replace(/\0+$/, ''));
}

const bad = [];
for (const n of [0, 1, 1000, 65536]) {
  const send = new Int32Array(n).map((_, i) => (world.rank * 7919 + i * 31) | 0);
  const recv = new Int32Array(n * world.size).fill(-1);
  world.allgather(send, recv);
  for (let i = 0; i < recv.length && bad.length < 5; i++) {
    const r = Math.floor(i / n);
    const want = (r * 7919 + (i % n) * 31) | 0;
    if (recv[i] !== want) bad.push({ n, i, got: recv[i], want });
  }
}
// Every allgather of the engine, the four remapped ones included, forced in turn, on the
// communicators split off the world: the first p ranks and the other size - p, for every p, so
// that each algorithm meets even, uneven and (with --map-by node) interleaved host layouts. The
// result must be in the communicator's rank order whatever the mapping did.
const ALGORITHMS = ['ring', 'bruck', 'recursive_doubling', 'bruck_exch', 'bruck_reorder', 'recursive_doubling_exch', 'recursive_doubling_reorder'];
let checked = 0;
let reduced = 0;
for (let p = 1; p <= world.size; p++) {
  const comm = world.split(world.rank < p ? 0 : 1, world.rank);
  for (const algorithm of ALGORITHMS) {
    addon().setAlgorithm('allgather', algorithm);
    for (const n of [1, 3000]) {
      const send = new Int32Array(n).map((_, i) => (comm.rank * 104729 + i * 17 + p) | 0);
      const recv = new Int32Array(n * comm.size).fill(-1);
      comm.allgather(send, recv);
      checked++;
      for (let i = 0; i < recv.length; i++) {
        const r = Math.floor(i / n);
        if (recv[i] !== ((r * 104729 + (i % n) * 17 + p) | 0)) {
          if (bad.length < 5) bad.push({ algorithm, p, commSize: comm.size, n, i, got: recv[i] });
          break;
        }
      }
    }
    const fellBack = addon().takeFallback('allgather');
    if (fellBack && bad.length < 5) bad.push({ algorithm, p, fellBack });
  }
  addon().setAlgorithm('allgather', null);
  // The hierarchical allreduce and reduce on the same layouts: nodes of the communicator
  // combined through the host's shared memory, leaders across the shaped links; rank-order sums
  // of int32 (exact), short (combined whole) and long (sliced, in chunks). Then the ring and
  // multi-leader allreduces, whose long vectors cross the links in segments with rounds posted
  // ahead (multi-leader's in lanes where the communicator's nodes hold as many ranks each, else
  // the ring).
  for (const [coll, algorithm] of [['allreduce', 'hierarchical'], ['reduce', 'hierarchical'], ['allreduce', 'ring'], ['allreduce', 'multi_leader']]) {
    addon().setAlgorithm(coll, algorithm);
    for (const n of [5, 70000]) {
      const send = new Int32Array(n).map((_, i) => (comm.rank * 31 + i * 7 + p) | 0);
      const root = (p + n) % comm.size;
      const recv = coll === 'allreduce' || comm.rank === root ? new Int32Array(n).fill(-1) : null;
      if (coll === 'allreduce') comm.allreduce(send, recv);
      else comm.reduce(send, recv, 'SUM', root);
      reduced++;
      for (let i = 0; recv && i < n; i++) {
        let want = 0;
        for (let r = 0; r < comm.size; r++) want = (want + ((r * 31 + i * 7 + p) | 0)) | 0;
        if (recv[i] !== want) {
          if (bad.length < 5) bad.push({ coll, algorithm, p, commSize: comm.size, n, i, got: recv[i], want });
          break;
        }
      }
    }
    const fellBack = addon().takeFallback(coll);
    if (fellBack && bad.length < 5) bad.push({ coll, algorithm, p, fellBack });
    addon().setAlgorithm(coll, null);
  }
  comm.free();
}
// The engine's own view: its hierarchy detection (shared-memory nodes) and, with
// TOPOCOLL_TOPOLOGY, the topology it resolved at init.
const nodes = addon().hierarchy(0).ranks.map((r) => r.node);
const topology = addon().worldTopology();
console.log(JSON.stringify({
  rank: world.rank, size: world.size, host, netns, address,
  hosts: gatherStrings(host), netnses: gatherStrings(netns), addresses: gatherStrings(address ?? ''),
  nodes, z: topology && topology.resolved.z, checked, reduced, bad,
}));
