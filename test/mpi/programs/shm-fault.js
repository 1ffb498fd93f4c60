// A rank dies in the middle of shared-memory collectives: each rank prints its pid (so the test
// can look for segments these processes created), then all run bcasts and barriers over shared
// memory; at iteration 5 rank `victim` starts an ibcast and then, per `mode`, SIGKILLs itself
// or calls abort(). The others are inside their collectives waiting for it.
//   node shm-fault.js <kill|abort> [victim]
const tc = require('../../../dist/index.js');
const { world } = tc;
const mode = process.argv[2];
const victim = Number(process.argv[3] ?? 1);
if (!['kill', 'abort'].includes(mode)) throw new Error(`shm-fault.js: mode must be kill or abort, not ${mode}`);
console.log(JSON.stringify({ rank: world.rank, pid: process.pid }));
const buf = new Uint8Array(400000);
for (let i = 0; ; i++) {
  if (i === 5 && world.rank === victim) {
    world.ibcast(buf, 0);
    if (mode === 'kill') process.kill(process.pid, 'SIGKILL');
    else tc.abort(3);
  }
  world.bcast(buf, 0);
  world.barrier();
  if (i === 100000) throw new Error('shm-fault.js: the victim never died');
}
