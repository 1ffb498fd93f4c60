// Remapped vs original allgather on the emulated cluster (docs/topology.md, "Measured"):
//   topocoll cluster run [--map-by slot|node] scripts/cluster/remap-bench.js [ALG,...] [BYTES,...] [ROUNDS]
// (ALG: any allgather algorithm, native = the system MPI's, auto = topocoll's own choice)
// For every block size and algorithm: the time per call (the slowest rank's mean over a timed
// loop, C++ loop in the addon: benchCollective), measured in ROUNDS rounds that interleave the
// algorithms (so that drift of the shared machine hits all alike), 3 repetitions per round;
// every algorithm's bytes are checked first. Then the bytes that crossed between hosts per call,
// twice: from the schedules (Send ops whose peer is on another host) and from the tc counters
// of the switch ports (payload plus TCP/IP headers; Open MPI's own traffic is negligible).
// Rank 0 prints one JSON object.
const { spawnSync } = require('node:child_process');
const tc = require('../../dist/index.js');
const { addon } = require('../../dist/mpi/native.js');

const native = addon();
const { world } = tc;
const ALGORITHMS = (process.argv[2] || 'native,bruck,bruck_exch,bruck_reorder,recursive_doubling,recursive_doubling_exch,recursive_doubling_reorder').split(',');
const SIZES = (process.argv[3] || '1024,2048,65536,1048576').split(',').map(Number);
const ROUNDS = Number(process.argv[4] || 3);
const COUNT_CALLS = 4;

// The host of every rank, and its node numbering (as the engine's hierarchy sees it).
const places = native.hierarchy(world.handle).ranks.sort((a, b) => a.rank - b.rank);
const hosts = places.map((p) => p.host);
const nodes = places.map((p) => p.node);

// The switch namespace of the cluster this rank runs in: hosts are NAME-h<i>, the switch NAME-sw.
const switchNs = `${hosts[0].replace(/-h\d+$/, '')}-sw`;
function switchDeliveredBytes() {
  const r = spawnSync('tc', ['-n', switchNs, '-s', 'qdisc', 'show'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`cannot read the tc counters of ${switchNs}: ${r.stderr}`);
  return [...r.stdout.matchAll(/Sent (\d+) bytes/g)].reduce((s, m) => s + Number(m[1]), 0);
}

function scheduleCrossBytes(alg, bytes) {
  if (alg === 'native' || alg === 'auto') return null;
  let cross = 0;
  for (let r = 0; r < world.size; r++) {
    // The block's size matters: the _exch variants swap inside the first step up to 4 KiB.
    const s = native.buildSchedule('allgather', alg, world.size, r, { count: bytes, elementBytes: 1, nodes });
    for (const round of s.rounds) for (const op of round) if (op.kind === 'send' && nodes[op.peer] !== nodes[r]) cross += op.src.count / s.unitsPerBlock;
  }
  return cross * bytes;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const results = [];
for (const bytes of SIZES) {
  const times = Object.fromEntries(ALGORITHMS.map((a) => [a, []]));
  const roundMedians = Object.fromEntries(ALGORITHMS.map((a) => [a, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const alg of ALGORITHMS) {
      native.setAlgorithm('allgather', alg);
      const r = native.benchCollective(world.handle, 'allgather', bytes, { repetitions: 3, check: round === 0, targetUs: bytes >= 1 << 20 ? 300000 : 100000 });
      const fellBack = native.takeFallback('allgather');
      if (fellBack) throw new Error(`${alg} fell back to native at ${bytes} B: ${fellBack}`);
      if (r.errors !== 0) throw new Error(`${alg} delivered ${r.errors} wrong bytes at ${bytes} B`);
      times[alg].push(...r.timesUs);
      roundMedians[alg].push(median(r.timesUs));
    }
  }
  for (const alg of ALGORITHMS) {
    // Bytes across hosts per call, from the tc counters of the switch's ports.
    native.setAlgorithm('allgather', alg);
    native.barrier(world.handle);
    const before = world.rank === 0 ? switchDeliveredBytes() : 0;
    native.barrier(world.handle);
    for (let i = 0; i < COUNT_CALLS; i++) native.benchCollective(world.handle, 'allgather', bytes, { iterations: 1, warmup: 1, repetitions: 1 });
    native.barrier(world.handle);
    // warmup + iterations = 2 calls per benchCollective, and its barriers/allreduces (tiny).
    const wire = world.rank === 0 ? (switchDeliveredBytes() - before) / (2 * COUNT_CALLS) : 0;
    results.push({
      bytes, algorithm: alg,
      medianUs: median(times[alg]), minUs: Math.min(...times[alg]), maxUs: Math.max(...times[alg]),
      roundMediansUs: roundMedians[alg],
      crossHostBytesSchedule: scheduleCrossBytes(alg, bytes),
      crossHostBytesWire: Math.round(wire),
      // What `auto` runs at this size (TOPOCOLL_TOPOLOGY and the rules decide).
      ...(alg === 'auto' ? { chosen: world.algorithmFor('allgather', bytes) } : {}),
    });
  }
}
native.setAlgorithm('allgather', null);
if (world.rank === 0) {
  console.log(JSON.stringify({ size: world.size, hosts, rounds: ROUNDS, results }));
}
