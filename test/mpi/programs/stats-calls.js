// A known number of collectives from Node, for the TOPOCOLL_STATS report
// (test/mpi/stats-report.test.ts): `barriers` world.barrier(), `allgathers` allgather of 4
// doubles a rank, one bcast of 16 bytes from rank 0 (collectives Node runs through the engine);
// prints "stats-calls: rank R of P, N wrong" and
// exits normally, so that topocoll finalizes MPI (and the engine prints the report).
// Usage: stats-calls.js <barriers> <allgathers>
const { world } = require('../../../dist/index.js');

const [barriers, allgathers] = process.argv.slice(2).map(Number);
if (!(barriers >= 0 && allgathers >= 0)) throw new Error('usage: stats-calls.js <barriers> <allgathers>');
const p = world.size;
let wrong = 0;
for (let i = 0; i < barriers; i++) world.barrier();
const out = new Float64Array(4 * p);
for (let i = 0; i < allgathers; i++) {
  world.allgather(new Float64Array([world.rank, i, 2, 3]), out);
  for (let r = 0; r < p; r++) if (out[4 * r] !== r || out[4 * r + 1] !== i) wrong++;
}
const message = Buffer.alloc(16);
if (world.rank === 0) message.write('from rank zero');
world.bcast(message, 0);
if (message.toString('utf8', 0, 14) !== 'from rank zero') wrong++;
console.log(`stats-calls: rank ${world.rank} of ${p}, ${wrong} wrong`);
