// On the emulated cluster: every rank reports where it runs (hostname, network namespace, address)
// and what it learnt from the others through an engine allgather, and checks the allgather's bytes
// for several block sizes. One JSON line per rank.
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
// The engine's own view: its hierarchy detection (shared-memory nodes) and, with
// TOPOCOLL_TOPOLOGY, the topology it resolved at init.
const nodes = addon().hierarchy(0).ranks.map((r) => r.node);
const topology = addon().worldTopology();
console.log(JSON.stringify({
  rank: world.rank, size: world.size, host, netns, address,
  hosts: gatherStrings(host), netnses: gatherStrings(netns), addresses: gatherStrings(address ?? ''),
  nodes, z: topology && topology.resolved.z, bad,
}));
