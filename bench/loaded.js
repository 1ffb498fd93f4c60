// Latency and LogGP gap of each level under load: every rank talks to a peer at the same time
// as all the others, as in a collective, so the figures carry what the ranks share (CPUs when
// there are more ranks than cores, as on the emulated cluster; a host's network port). Profiles
// take them as a level's latency, overhead and gap for the LogGP model (docs/models.md). Run under
// mpirun (or `topocoll cluster run`); the pairs are those of pairs.js. Per level: the median over
// pairs and repetitions (argument, default 5) of the half round-trip of 8 B, and of the time per
// message of a burst of 32 of 8 B posted at once.
// Prints one JSON line: {network?: {latencyUs, gapUs}, shm?: {latencyUs, gapUs}}.
const tc = require('../dist/index.js');
const { peersAt, median } = require('./pairs.js');
const { addon } = require('../dist/mpi/native.js');

const w = tc.world, me = w.rank;
const REPS = Number(process.argv[2] ?? 5);
if (!(REPS >= 1)) throw new Error(`bench/loaded.js: repetitions ${process.argv[2]} must be a positive number`);

const out = {};
for (const level of ['network', 'shm']) {
  const peer = peersAt(level === 'shm' ? 'node' : 'network');
  if (!peer.some((p) => p >= 0)) continue;
  const latency = [], gap = [];
  for (let rep = 0; rep < REPS; rep++) {
    const r = addon().pairedLink(w.handle, peer[me], 8, level === 'network' ? 200 : 2000, 32);
    const all = w.allgatherObject(peer[me] >= 0 ? [r.halfRttUs, r.perMessageUs] : null).filter(Boolean);
    latency.push(median(all.map((x) => x[0])));
    gap.push(median(all.map((x) => x[1])));
  }
  out[level] = { latencyUs: median(latency), gapUs: median(gap) };
}
if (me === 0) console.log(JSON.stringify(out));
