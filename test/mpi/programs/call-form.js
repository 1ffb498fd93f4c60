// allreduce of 8 B in both forms, after a 1 KiB one has set the engine up on the communicator
// (a nonblocking call sets nothing up): the default rules send each form where it was measured
// fastest. Checks the sums; prints one JSON line per rank.
const { world } = require('../../../dist/index.js');
const p = world.size, r = world.rank;
const bad = [];
const sum = (p * (p + 1)) / 2;

(async () => {
  const whole = world.allreduce(new Float64Array(128).fill(r + 1), new Float64Array(128));
  if (whole.some((v) => v !== sum)) bad.push({ what: 'allreduce 1 KiB', got: whole[0], want: sum });
  const one = new Float64Array([r + 1]);
  for (let i = 0; i < 3; i++) {
    const got = world.allreduce(one, new Float64Array(1))[0];
    if (got !== sum) bad.push({ what: `allreduce 8 B #${i}`, got, want: sum });
  }
  for (let i = 0; i < 5; i++) {
    const got = (await world.iallreduce(one, new Float64Array(1)))[0];
    if (got !== sum) bad.push({ what: `iallreduce 8 B #${i}`, got, want: sum });
  }
  console.log(JSON.stringify({ rank: r, bad }));
})();
