// Latency and LogGP gap of each level under load: every rank talks to a peer at the same time
// as all the others, as in a collective, so the figures carry what the ranks share (CPUs when
// there are more ranks than cores, as on the emulated cluster; a host's network port). Profiles
// take them as a level's latency, overhead and gap for the LogGP model (docs/models.md). Run under
// mpirun (or `topocoll cluster run`). Pairs: network, the ranks of hosts 2k and 2k+1 slot by slot;
// shm, slots 2k and 2k+1 of each host. Per level: the median over pairs and repetitions (argument,
// default 5) of the half round-trip of 8 B, and of the time per message of a burst of 32 of 8 B
// posted at once.
// Prints one JSON line: {network?: {latencyUs, gapUs}, shm?: {latencyUs, gapUs}}.
const tc = require('../dist/index.js');
const { addon } = require('../dist/mpi/native.js');

const w = tc.world, me = w.rank;
const hosts = w.allgatherObject(tc.processorName());
const byHost = new Map();
hosts.forEach((h, r) => byHost.set(h, [...(byHost.get(h) ?? []), r]));
const groups = [...byHost.values()];
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const REPS = Number(process.argv[2] ?? 5);
if (!(REPS >= 1)) throw new Error(`bench/loaded.js: repetitions ${process.argv[2]} must be a positive number`);

function peerOf(level) {
  const peer = new Array(w.size).fill(-1);
  const pair = (a, b) => { peer[a] = b; peer[b] = a; };
  if (level === 'network') {
    for (let g = 0; g + 1 < groups.length; g += 2) {
      for (let s = 0; s < Math.min(groups[g].length, groups[g + 1].length); s++) pair(groups[g][s], groups[g + 1][s]);
    }
  } else {
    for (const ranks of groups) for (let s = 0; s + 1 < ranks.length; s += 2) pair(ranks[s], ranks[s + 1]);
  }
  return peer;
}

const out = {};
for (const level of ['network', 'shm']) {
  const peer = peerOf(level);
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
