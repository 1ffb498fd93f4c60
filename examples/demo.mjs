// topocoll demo: every collective and point-to-point operation, checked and timed.
//   npm run demo                      (= node scripts/launch.mjs --test-machine -np 4 node examples/demo.mjs)
//   node scripts/launch.mjs -np 3 node examples/demo.mjs [--bytes 65536] [--iterations 50]
// Rank 0 prints, per operation: the bytes each rank contributes, the algorithm the topocoll engine
// picked (engine collectives: barrier, bcast, allgather, alltoall and the reductions; the others
// run in the system MPI), the time per call (median over ranks of each rank's mean) and whether
// every rank got the right result. Exits 1 on a wrong result.
import { parseArgs } from 'node:util';
import { ANY_SOURCE, IN_PLACE, libraryVersion, processorName, rank, size, waitAll, world, wtime } from 'topocoll';
import { createRequire } from 'node:module';

const { values: opts } = parseArgs({
  options: { bytes: { type: 'string', default: String(64 * 1024) }, iterations: { type: 'string', default: '40' } },
});
const BYTES = Number(opts.bytes);
const ITERATIONS = Number(opts.iterations);
if (!(BYTES >= 8 && BYTES % 8 === 0) || !(ITERATIONS >= 1)) {
  console.error('demo: --bytes must be a multiple of 8 (>= 8) and --iterations >= 1');
  process.exit(2);
}
const n = BYTES / 8; // Float64 elements per rank
const p = size;
const ranks = [...Array(p).keys()];
const rows = [];
let wrong = 0;

// Deterministic data: element i of rank r.
const val = (r, i) => r * 1000 + (i % 997);
const f64 = (len, f) => Float64Array.from({ length: len }, (_, i) => f(i));
const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// Runs `run` ITERATIONS times after one warm-up call (connections, algorithm selection, schedule
// caches), timing only the calls; then `check(result)` says whether this rank's last result is
// right, and rank 0 reports for all ranks.
const ENGINE = new Set(['barrier', 'bcast', 'allgather', 'alltoall', 'reduce', 'allreduce', 'reduce_scatter_block']);
async function step(name, bytes, how, run, check) {
  await run();
  world.barrier();
  const t0 = wtime();
  let result;
  for (let it = 0; it < ITERATIONS; it++) result = await run();
  const mean = ((wtime() - t0) / ITERATIONS) * 1e6;
  const ok = check(result);
  const means = world.gather(new Float64Array([mean]), rank === 0 ? new Float64Array(p) : null, 0);
  const allOk = world.allreduce(new Int32Array([ok ? 1 : 0]), new Int32Array(1), 'LAND')[0] === 1;
  if (!allOk) wrong++;
  if (rank === 0) {
    const median = [...means].sort((a, b) => a - b)[Math.floor(p / 2)];
    const algorithm = ENGINE.has(how) ? world.algorithmFor(how, bytes ?? 0).algorithm : how;
    rows.push([name, bytes === null ? '-' : formatBytes(bytes), algorithm, median.toFixed(1), allOk ? 'ok' : 'WRONG']);
  }
}

function formatBytes(b) {
  return b >= 1 << 20 ? `${b / (1 << 20)} MiB` : b >= 1024 ? `${b / 1024} KiB` : `${b} B`;
}

const mine = f64(n, (i) => val(rank, i));
const fromRoot = f64(n, (i) => val(0, i));
const everyone = f64(n * p, (i) => val(Math.floor(i / n), i % n));
const myBlocks = f64(n * p, (i) => val(rank, i)); // block j goes to rank j
const blocksForMe = f64(n * p, (i) => val(Math.floor(i / n), rank * n + (i % n)));
const sum = (rs, i) => rs.reduce((s, r) => s + val(r, i), 0);
const sumAll = f64(n, (i) => sum(ranks, i));
const right = (rank + 1) % p;
const left = (rank - 1 + p) % p;
const fromLeft = f64(n, (i) => val(left, i));
const recvN = new Float64Array(n);
const recvNP = new Float64Array(n * p);
const started = wtime();

// --- collectives run by the topocoll engine ---
await step('barrier', null, 'barrier', () => world.barrier(), () => true);
const bbuf = new Float64Array(n);
await step('bcast', BYTES, 'bcast', () => world.bcast(rank === 0 ? bbuf.set(mine) ?? bbuf : bbuf, 0), (got) => equal(got, fromRoot));
await step('allgather', BYTES, 'allgather', () => world.allgather(mine, recvNP), (got) => equal(got, everyone));
await step('alltoall', BYTES, 'alltoall', () => world.alltoall(myBlocks, recvNP), (got) => equal(got, blocksForMe));
const ibuf = new Float64Array(n);
await step(
  'ibcast + iallgather (awaited)',
  BYTES,
  'allgather',
  () => waitAll([world.ibcast(rank === 0 ? ibuf.set(mine) ?? ibuf : ibuf, 0), world.iallgather(mine, recvNP)]),
  ([b, g]) => equal(b, fromRoot) && equal(g, everyone),
);

await step('reduce SUM', BYTES, 'reduce', () => world.reduce(mine, rank === 0 ? recvN : null, 'SUM', 0), (got) => rank !== 0 || equal(got, sumAll));
await step('allreduce SUM', BYTES, 'allreduce', () => world.allreduce(mine, recvN, 'SUM'), (got) => equal(got, sumAll));
await step('allreduce MAX in place', BYTES, 'allreduce', () => world.allreduce(IN_PLACE, (recvN.set(mine), recvN), 'MAX'), (got) => equal(got, f64(n, (i) => val(p - 1, i))));
await step('iallreduce (awaited)', BYTES, 'allreduce', () => world.iallreduce(mine, recvN), (got) => equal(got, sumAll));
await step('reduceScatterBlock SUM', BYTES, 'reduce_scatter_block', () => world.reduceScatterBlock(myBlocks, recvN), (got) => equal(got, f64(n, (i) => sum(ranks, rank * n + i))));

// --- collectives run by the system MPI ---
await step('gather', BYTES, 'system MPI', () => world.gather(mine, rank === 0 ? recvNP : null, 0), (got) => rank !== 0 || equal(got, everyone));
await step('scatter', BYTES, 'system MPI', () => world.scatter(rank === 0 ? everyone : null, recvN, 0), (got) => equal(got, mine));
const counts = ranks.map((r) => Math.max(1, Math.round((n * (r + 1)) / p))); // uneven blocks
const displs = counts.map((_, r) => counts.slice(0, r).reduce((a, b) => a + b, 0));
const total = counts.reduce((a, b) => a + b, 0);
const vAll = new Float64Array(total);
ranks.forEach((r) => vAll.set(f64(counts[r], (i) => val(r, i)), displs[r]));
const myV = f64(counts[rank], (i) => val(rank, i));
const vRecv = { buffer: new Float64Array(total), counts, displs };
await step('gatherv (uneven)', BYTES, 'system MPI', () => world.gatherv(myV, rank === 0 ? vRecv : null, 0), (got) => rank !== 0 || equal(got, vAll));
const myVRecv = new Float64Array(counts[rank]);
await step('scatterv (uneven)', BYTES, 'system MPI', () => world.scatterv(rank === 0 ? { buffer: vAll, counts, displs } : null, myVRecv, 0), (got) => equal(got, myV));
await step('allgatherv (uneven)', BYTES, 'system MPI', () => world.allgatherv(myV, vRecv), (got) => equal(got, vAll));
const c = ranks.map(() => n);
await step('alltoallv', BYTES, 'system MPI', () => world.alltoallv({ buffer: myBlocks, counts: c }, { buffer: recvNP, counts: c }), (got) => equal(got, blocksForMe));
await step('scan SUM', BYTES, 'system MPI', () => world.scan(mine, recvN), (got) => equal(got, f64(n, (i) => sum(ranks.slice(0, rank + 1), i))));
await step('exscan SUM', BYTES, 'system MPI', () => world.exscan(mine, recvN), (got) => rank === 0 || equal(got, f64(n, (i) => sum(ranks.slice(0, rank), i))));

// --- point-to-point ---
await step('sendrecv (ring)', BYTES, 'system MPI', () => ({ st: world.sendrecv(mine, right, recvN, left, 1, 1) }), ({ st }) => st.source === left && st.count === n && equal(recvN, fromLeft));
await step('isend + irecv (ring)', BYTES, 'system MPI', () => waitAll([world.irecv(recvN, ANY_SOURCE, 2), world.isend(mine, right, 2)]), ([st]) => st.source === left && equal(recvN, fromLeft));

// --- object mode (plain JS values, serialized with v8) ---
const record = (r) => ({ rank: r, tags: ['a', 'b'], at: new Date(0), big: 2n ** BigInt(r + 64) });
await step('bcastObject', null, 'v8 + bcast', () => world.bcastObject(rank === 0 ? record(0) : null, 0), (o) => o.big === 2n ** 64n);
await step('allgatherObject', null, 'v8 + allgather(v)', () => world.allgatherObject(record(rank)), (all) => all.every((o, r) => o.rank === r && o.big === 2n ** BigInt(r + 64)));
await step('alltoallObject', null, 'v8 + alltoall(v)', () => world.alltoallObject(ranks.map((j) => ({ from: rank, to: j }))), (all) => all.every((o, j) => o.from === j && o.to === rank));
await step('sendrecvObject (ring)', null, 'v8 + mprobe/mrecv', () => world.sendrecvObject({ from: rank }, right, left), (o) => o.from === left);

if (rank === 0) {
  const info = createRequire(import.meta.url)('topocoll/package.json');
  const widths = [30, 11, 24, 10, 6];
  const line = (cells) => cells.map((c, i) => (i === 3 ? String(c).padStart(widths[i]) : String(c).padEnd(widths[i]))).join(' ');
  console.log(`topocoll ${info.version} demo: ${p} ranks of ${libraryVersion().split(/[,\n]/)[0]} on ${processorName()}, node ${process.version}`);
  console.log(`${BYTES} B per rank, ${ITERATIONS} timed calls per operation (median over ranks of each rank's mean)`);
  console.log(line(['operation', 'bytes/rank', 'algorithm', 'µs/call', 'result']));
  for (const r of rows) console.log(line(r));
  console.log(`${rows.length} operations, ${wrong === 0 ? 'all results correct' : `${wrong} WRONG`}, ${(wtime() - started).toFixed(2)} s in all`);
}
process.exitCode = wrong === 0 ? 0 : 1;
