// setAlgorithm (the run-time override) against TOPOCOLL_<COLL>_ALGORITHM: forces an algorithm,
// checks the bytes of allgathers under it, then clears it. Prints one JSON line per rank.
const tc = require('../../../dist/index.js');
const { setAlgorithm, getAlgorithm, takeFallback } = require('../../../dist/bench/override.js');
const { world } = tc;
const name = process.argv[2];

function allgatherOk(n) {
  const send = new Int32Array(n).map((_, i) => world.rank * 1000 + i);
  const recv = new Int32Array(n * world.size).fill(-1);
  world.allgather(send, recv);
  return recv.every((v, i) => v === Math.floor(i / n) * 1000 + (i % n));
}

const out = { rank: world.rank };
let bad = null;
try {
  setAlgorithm('allgather', 'no_such_algorithm');
} catch (e) {
  bad = e.message;
}
out.badName = bad;
setAlgorithm('allgather', name);
out.forced = getAlgorithm('allgather');
out.okForced = allgatherOk(3);
out.fallback = takeFallback('allgather');
setAlgorithm('allgather', null);
out.cleared = getAlgorithm('allgather');
out.okCleared = allgatherOk(300);
console.log(JSON.stringify(out));
