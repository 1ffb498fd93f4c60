// Bandwidth of pairs of ranks sending one way, and both ways at once (an exchange), for the
// profiles' `bandwidth` and `exchange_bandwidth` (docs/models.md). Run under mpirun (or
// `topocoll cluster run`). Argument 1 says who measures:
// - a rank PEER (default 1): rank 0 and PEER, while the others wait;
// - `network` or `node`: every pair of pairs.js at once, as the ranks of a collective do (on the
//   emulated cluster two pairs exchanging over one link get half the rate one pair gets).
// Per direction: the slope of the median time over two sizes (argument 2, default 1 and 4 MiB),
// 7 repetitions each, the slowest pair's time each repetition.
// Prints one JSON line: {pairs, oneWayMiBps, exchangeMiBps, points} (a rate is null when the
// larger size took no longer than the smaller: rerun on a quieter machine, or with larger sizes).
const tc = require('../dist/index.js');
const { peersAt, median } = require('./pairs.js');

const w = tc.world, me = w.rank;
const who = process.argv[2] ?? '1';
let peer;
if (who === 'network' || who === 'node') {
  peer = peersAt(who);
} else {
  const one = Number(who);
  if (!(Number.isInteger(one) && one > 0 && one < w.size)) {
    throw new Error(`bench/exchange.js: argument 1 "${who}" must be network, node or a rank in 1..${w.size - 1}`);
  }
  peer = new Array(w.size).fill(-1);
  peer[0] = one;
  peer[one] = 0;
}
if (!peer.some((p) => p >= 0)) throw new Error(`bench/exchange.js: no pair of ranks to measure ${who} (the job needs two ${who === 'network' ? 'hosts' : 'ranks on a host'})`);
const SIZES = (process.argv[3] ?? '1048576,4194304').split(',').map(Number), REPS = 7;
const other = peer[me];
const lead = other >= 0 && me < other;

function timed(kind, n) {
  const out = new Uint8Array(n), back = new Uint8Array(n), ack = new Uint8Array(1);
  const times = [];
  for (let rep = 0; rep < REPS; rep++) {
    w.barrier();
    const t0 = process.hrtime.bigint();
    if (other >= 0 && kind === 'exchange') w.sendrecv(out, other, back, other);
    else if (lead) { w.send(out, other); w.recv(ack, other); }
    else if (other >= 0) { w.recv(back, other); w.send(ack, other); }
    const mine = Number(process.hrtime.bigint() - t0) / 1e3;
    times.push(Math.max(...w.allgatherObject(other >= 0 ? mine : 0)));
  }
  return median(times);
}

const points = {};
for (const kind of ['oneWay', 'exchange']) points[kind] = SIZES.map((n) => [n, timed(kind, n)]);
// null where the larger size was not slower (noise from a loaded machine swamped the difference).
const mibps = ([[n0, t0], [n1, t1]]) => (t1 > t0 ? (n1 - n0) / 1048576 / ((t1 - t0) * 1e-6) : null);
const pairs = peer.flatMap((p, r) => (p > r ? [[r, p]] : []));
if (me === 0) console.log(JSON.stringify({ pairs, oneWayMiBps: mibps(points.oneWay), exchangeMiBps: mibps(points.exchange), points }));
