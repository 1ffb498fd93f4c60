// Bandwidth of one pair of ranks sending one way, and both ways at once (an exchange), for the
// profiles' `bandwidth` and `exchange_bandwidth` (docs/models.md). Run under mpirun (or
// `topocoll cluster run`): rank 0 and rank PEER (argument, default 1) measure, the others wait.
// Per direction: the slope of the median time over two sizes (argument 2, default 1 and 4 MiB),
// 7 repetitions each.
// Prints one JSON line: {peer, oneWayMiBps, exchangeMiBps, points}.
const tc = require('../dist/index.js');

const w = tc.world, me = w.rank;
const peer = Number(process.argv[2] ?? 1);
if (!(peer > 0 && peer < w.size)) throw new Error(`bench/exchange.js: peer ${process.argv[2]} must be a rank in 1..${w.size - 1}`);
const SIZES = (process.argv[3] ?? '1048576,4194304').split(',').map(Number), REPS = 7;
const other = me === 0 ? peer : me === peer ? 0 : -1;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

function timed(kind, n) {
  const out = new Uint8Array(n), back = new Uint8Array(n), ack = new Uint8Array(1);
  const times = [];
  for (let rep = 0; rep < REPS; rep++) {
    w.barrier();
    const t0 = process.hrtime.bigint();
    if (other >= 0 && kind === 'exchange') w.sendrecv(out, other, back, other);
    else if (me === 0 && kind === 'oneWay') { w.send(out, peer); w.recv(ack, peer); }
    else if (me === peer && kind === 'oneWay') { w.recv(back, 0); w.send(ack, 0); }
    times.push(Number(process.hrtime.bigint() - t0) / 1e3);
  }
  return median(times);
}

const points = {};
for (const kind of ['oneWay', 'exchange']) points[kind] = SIZES.map((n) => [n, timed(kind, n)]);
const mibps = ([[n0, t0], [n1, t1]]) => (n1 - n0) / 1048576 / ((t1 - t0) * 1e-6);
if (me === 0) console.log(JSON.stringify({ peer, oneWayMiBps: mibps(points.oneWay), exchangeMiBps: mibps(points.exchange), points }));
