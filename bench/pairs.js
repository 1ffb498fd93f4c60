// Pairs of ranks that measure a level at the same time as all the others, as in a collective
// where every rank communicates. network: the ranks of hosts 2k and 2k+1, slot by slot; node:
// slots 2k and 2k+1 of each host. Returns every rank's peer (-1: none).
const tc = require('../dist/index.js');

function peersAt(level) {
  const w = tc.world;
  const hosts = w.allgatherObject(tc.processorName());
  const byHost = new Map();
  hosts.forEach((h, r) => byHost.set(h, [...(byHost.get(h) ?? []), r]));
  const groups = [...byHost.values()];
  const peer = new Array(w.size).fill(-1);
  const pair = (a, b) => { peer[a] = b; peer[b] = a; };
  if (level === 'network') {
    for (let g = 0; g + 1 < groups.length; g += 2) {
      for (let s = 0; s < Math.min(groups[g].length, groups[g + 1].length); s++) pair(groups[g][s], groups[g + 1][s]);
    }
  } else if (level === 'node') {
    for (const ranks of groups) for (let s = 0; s + 1 < ranks.length; s += 2) pair(ranks[s], ranks[s + 1]);
  } else {
    throw new Error(`pairs: level ${level} is not network or node`);
  }
  return peer;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

module.exports = { peersAt, median };
