// With TOPOCOLL_TOPOLOGY: what the engine resolved at init (native), what TypeScript resolves
// from the hosts of all ranks, and the virtual nodes the hierarchy detection sees. One JSON line
// per rank; an allgather through the engine checks that the job still works.
const tc = require('../../../dist/index.js');
const { addon } = require('../../../dist/mpi/native.js');
const { loadTopology, resolveTopology } = require('../../../dist/mpi/files.js');
const { meetMatrix } = require('../../../dist/topology/index.js');

const { world } = tc;
const NAME_BYTES = 256;
const send = Buffer.alloc(NAME_BYTES);
send.write(tc.processorName());
const recv = Buffer.alloc(NAME_BYTES * world.size);
world.allgather(send, recv);
const hosts = Array.from({ length: world.size }, (_, r) => recv.subarray(r * NAME_BYTES, (r + 1) * NAME_BYTES).toString().replace(/\0+$/, ''));

const native = addon().worldTopology();
const ts = meetMatrix(resolveTopology(loadTopology(process.env.TOPOCOLL_TOPOLOGY), hosts));
const virtualNodes = addon().hierarchy(0).ranks.map((r) => r.virtualNode);
console.log(JSON.stringify({ rank: world.rank, hosts, nativeZ: native && native.resolved.z, tsZ: ts, levels: native && native.topology.levels.map((l) => l.name), virtualNodes }));
