// One launch that checks windows and one-sided communication under mpirun: node-shared windows
// (each rank writes its segment, the others read it through sharedQuery, after a fence and in a
// lockAll/sync/barrier epoch), zero-size segments, Win.create with put/get between fences and
// on COMM_SELF, passive-target put/get under lock/unlock, accumulate onto rank 0 (SUM by every
// rank, MAX and REPLACE under shared locks), a [buffer, count, datatype] put, and the errors the
// binding raises before MPI does. Every byte read is checked against what its writer computed. Every rank
// prints one JSON line: {rank, size, checks, failures}.
import { COMM_SELF, Datatype, MpiError, PROC_NULL, REPLACE, SUM, Win, libraryVersion, rank, size, world } from 'topocoll';
import { check, report, throws, throwsMpi } from './checks.mjs';

const p = size;
const next = (rank + 1) % p;
const prev = (rank - 1 + p) % p;

function same(name, got, want) {
  const g = Array.from(got, Number);
  const w = Array.from(want, Number);
  const at = g.findIndex((x, i) => x !== w[i]);
  check(name, g.length === w.length && at < 0, at >= 0 ? `[${at}] = ${g[at]}, want ${w[at]}` : `length ${g.length}, want ${w.length}`);
}

// Rank r's segment of the shared window: (r + 1) × 3 doubles, r × 1000 + i.
const segment = (r) => Float64Array.from({ length: (r + 1) * 3 }, (_, i) => r * 1000 + i);

// --- shared window: write own segment, fence, read every rank's ---
const node = world.splitShared();
{
  check('the job is on one node', node.size === p, node.size);
  const win = Win.allocateShared(node, (rank + 1) * 3 * 8);
  check('own segment size', win.buffer instanceof ArrayBuffer && win.buffer.byteLength === (rank + 1) * 24, win.buffer.byteLength);
  win.fence();
  new Float64Array(win.buffer).set(segment(rank));
  win.fence();
  for (let r = 0; r < p; r++) same(`sharedQuery(${r}) after fence`, new Float64Array(win.sharedQuery(r)), segment(r));
  check('sharedQuery returns one view per rank', win.sharedQuery(next) === win.sharedQuery(next));
  check('sharedQuery(rank) is this rank\'s memory', new Float64Array(win.sharedQuery(rank))[1] === new Float64Array(win.buffer)[1]);
  win.fence(); // every rank has read before any writes again

  // Stores into the next rank's segment, seen there after a fence.
  new Float64Array(win.sharedQuery(next))[0] = -1 - rank;
  win.fence();
  check('a store through sharedQuery lands in the neighbour\'s buffer', new Float64Array(win.buffer)[0] === -1 - prev, new Float64Array(win.buffer)[0]);

  // The passive idiom of MPI-3 shared memory: lockAll, store, sync, barrier, sync, load.
  win.lockAll();
  new Float64Array(win.buffer)[1] = 0.25 + rank;
  win.sync();
  node.barrier();
  win.sync();
  check('lockAll/sync/barrier: the neighbour\'s store', new Float64Array(win.sharedQuery(prev))[1] === 0.25 + prev, new Float64Array(win.sharedQuery(prev))[1]);
  win.unlockAll();
  node.barrier();

  throws('sharedQuery of a rank out of range', () => win.sharedQuery(p), RangeError, new RegExp(`rank = ${p} is not a rank of the window's communicator; valid: \\[0, ${p - 1}\\]$`));
  const view = win.sharedQuery(prev);
  const typed = new Float64Array(view);
  win.free();
  check('free detaches the segment', win.buffer.byteLength === 0);
  check('free detaches sharedQuery\'s views', view.byteLength === 0 && typed.length === 0 && typed[0] === undefined);
  throws('fence after free', () => win.fence(), TypeError, /^win is a freed window; free\(\) ended it$/);
  throws('sharedQuery after free', () => win.sharedQuery(0), TypeError, /win is a freed window/);
  throws('free twice', () => win.free(), TypeError, /win is a freed window/);
}

// --- zero-size segments: all ranks, then only rank 0 ---
{
  const empty = Win.allocateShared(node, 0);
  check('zero-size segment', empty.buffer.byteLength === 0);
  empty.fence();
  for (let r = 0; r < p; r++) check(`zero-size sharedQuery(${r})`, empty.sharedQuery(r).byteLength === 0);
  empty.fence();
  empty.free();

  const mixed = Win.allocateShared(node, rank === 0 ? 0 : 16, { dispUnit: 8 });
  check('mixed: own size', mixed.buffer.byteLength === (rank === 0 ? 0 : 16) && mixed.dispUnit === 8);
  mixed.fence();
  if (rank > 0) new Float64Array(mixed.buffer).set([rank, rank + 0.5]);
  mixed.fence();
  for (let r = 0; r < p; r++) same(`mixed: sharedQuery(${r})`, new Float64Array(mixed.sharedQuery(r)), r === 0 ? [] : [r, r + 0.5]);
  mixed.fence();
  mixed.free();

  const none = Win.create(world, new Float64Array(0));
  none.fence();
  none.put(new Float64Array(0), next);
  none.put(new Float64Array(3), PROC_NULL, 100);
  none.fence();
  none.free();
  const allocated = Win.allocate(world, 0);
  check('allocate(0)', allocated.buffer.byteLength === 0);
  allocated.fence();
  allocated.fence();
  allocated.free();
}

// --- Win.create: put to the next rank, get from the previous, between fences ---
{
  const mine = Float64Array.from({ length: 8 }, (_, i) => rank * 100 + i);
  const win = Win.create(world, mine);
  check('create: the buffer and its unit', win.buffer === mine && win.dispUnit === 8);
  win.fence();
  win.put(Float64Array.of(rank + 0.5, rank + 0.75), next, 2);
  const got = win.get(new Float64Array(3), prev, 5);
  win.fence();
  same('get from the previous rank', got, [prev * 100 + 5, prev * 100 + 6, prev * 100 + 7]);
  const want = Float64Array.from({ length: 8 }, (_, i) => rank * 100 + i);
  want.set([prev + 0.5, prev + 0.75], 2);
  same('put from the previous rank', mine, want);
  win.fence();

  // A column type at the origin and at the target: elements 0 and 3 of the next rank's window.
  const column = Datatype.vector(2, 1, 3, Datatype.FLOAT64).commit();
  win.put([Float64Array.of(-rank, 0, 0, -rank - 0.5), 1, column], next, 0);
  win.fence();
  same('put of a [buffer, count, datatype]', [mine[0], mine[3]], [-prev, -prev - 0.5]);
  column.free();

  throws('put to a rank out of range', () => win.put(new Float64Array(1), p), RangeError,
    new RegExp(`^targetRank = ${p} is not a rank of the window's communicator; valid: \\[0, ${p - 1}\\] or PROC_NULL$`));
  throws('put past the end', () => win.put(new Float64Array(2), next, 7), RangeError,
    new RegExp(`^put: targetDisp = 7 \\(× dispUnit 8\\) with origin reaches bytes \\[56, 72\\) of rank ${next}'s window, which holds 64 bytes$`));
  throws('get past the end', () => win.get(new Float64Array(9), next), RangeError, /^get: targetDisp = 0 .* with into reaches bytes \[0, 72\)/);
  throws('negative displacement', () => win.put(new Float64Array(1), next, -1), RangeError, /put: targetDisp = -1 is out of range/);
  throws('a rank that is not a number', () => win.get(new Float64Array(1), '1'), TypeError, /^targetRank must be a rank \(a number\)$/);
  throws('a rank that is not finite', () => win.get(new Float64Array(1), Infinity), TypeError, /^targetRank must be an integer rank$/);
  throws('a rank past 2^63', () => win.get(new Float64Array(1), 2 ** 70), RangeError, /^targetRank = 1\.1805916207174113e\+21 is not a rank of the window's communicator/);
  throws('not a buffer', () => win.put([1, 2], next), TypeError, /origin \[buffer, count, datatype\] must have 3 entries/);
  throws('fence assertion', () => win.fence('nocheck'), TypeError, /^fence: assert "nocheck" is not valid; valid choices: nostore, noput, noprecede, nosucceed$/);
  throws('sharedQuery of a created window', () => win.sharedQuery(0), TypeError, /sharedQuery: the window was not made by Win.allocateShared/);
  win.fence('nosucceed');
  win.free();
  check('create: the buffer outlives free', mine.length === 8 && mine[7] === rank * 100 + 7);
}

// --- Win.create with displacements in bytes ---
{
  const mine = new Float64Array(2);
  const win = Win.create(world, mine, { dispUnit: 1 });
  check('create: dispUnit given', win.dispUnit === 1);
  win.fence();
  win.put(Float64Array.of(rank + 7), next, 8);
  win.fence();
  same('put at byte 8', mine, [0, prev + 7]);
  throws('put at byte 9 of 16', () => win.put(Float64Array.of(1), next, 9), RangeError, /put: targetDisp = 9 \(× dispUnit 1\) with origin reaches bytes \[9, 17\)/);
  win.fence();
  win.free();
}

// --- Win.create on COMM_SELF: works, or (Open MPI without osc/pt2pt) an MpiError saying what to set ---
{
  const alone = Float64Array.of(1, 2);
  let win = null;
  let error = null;
  try {
    win = Win.create(COMM_SELF, alone);
  } catch (e) {
    error = e;
  }
  if (win) {
    win.fence();
    win.put(Float64Array.of(rank + 0.5), 0, 1);
    win.fence();
    same('create on COMM_SELF: put to itself', alone, [1, rank + 0.5]);
    win.free();
  } else {
    const openMpi = libraryVersion().startsWith('Open MPI');
    check('create on COMM_SELF: the error names the fix', openMpi && error instanceof MpiError && error.errorClassName === 'MPI_ERR_WIN' &&
      /^MPI_Win_create \(Open MPI found no one-sided component .* set OMPI_MCA_osc=sm,rdma,pt2pt\): MPI_ERR_WIN/.test(error.message), `${error?.constructor?.name}: ${error?.message}`);
  }
}

// --- passive target: lock, put, unlock; then lock, get, unlock ---
{
  const win = Win.allocate(world, p * 4, { dispUnit: 4 });
  const slots = new Int32Array(win.buffer);
  slots.fill(0);
  world.barrier();
  win.lock(next, 'exclusive');
  win.put(Int32Array.of(rank * 10 + 1), next, rank);
  win.unlock(next);
  world.barrier();
  win.lock(rank, 'shared');
  const want = new Int32Array(p);
  want[prev] = prev * 10 + 1;
  same('lock/put/unlock: the previous rank\'s value', slots, want);
  win.unlock(rank);
  win.lock(next, 'shared');
  const got = win.get(new Int32Array(p), next);
  win.flush(next);
  const mineThere = new Int32Array(p);
  mineThere[rank] = rank * 10 + 1;
  same('lock/get/flush: what this rank put', got, mineThere);
  win.unlock(next);
  throws('lock type', () => win.lock(next, 'read'), TypeError, /^lock: type "read" is not valid; valid choices: exclusive, shared$/);
  throws('lock PROC_NULL', () => win.lock(PROC_NULL), RangeError, /^rank = -2 is not a rank of the window's communicator; valid: \[0, \d+\]$/);
  throwsMpi('unlock without a lock: the MPI\'s error', () => win.unlock(next), 'MPI_ERR_RMA_SYNC', /^MPI_Win_unlock: /);
  world.barrier();
  win.free();
}

// --- accumulate onto rank 0: SUM from every rank (fence), MAX and REPLACE (shared locks) ---
{
  const sums = new Float64Array(4);
  const win = Win.create(world, sums);
  win.fence();
  win.accumulate(Float64Array.of(rank + 1, 2 * rank, 1, 0.5), 0, 0, SUM);
  win.fence();
  if (rank === 0) same('accumulate SUM', sums, [(p * (p + 1)) / 2, p * (p - 1), p, p / 2]);
  throws('accumulate with a function', () => win.accumulate(new Float64Array(1), 0, 0, (a, b) => a + b), TypeError, /^accumulate: op cannot be a function: MPI applies the op at the target/);
  throws('accumulate MINLOC', () => win.accumulate(new Float64Array(2), 0, 0, 'MINLOC'), TypeError, /^accumulate: op "MINLOC" is not valid; valid choices: SUM, .*, BXOR, REPLACE$/);
  throws('accumulate BAND on doubles', () => win.accumulate(new Float64Array(1), 0, 0, 'BAND'), TypeError, /accumulate: op BAND is not defined for Float64Array elements; valid ops: SUM, PROD, MIN, MAX/);
  win.fence();
  win.free();

  const ints = new Int32Array(3).fill(-5);
  const iwin = Win.create(world, ints);
  world.barrier();
  iwin.lock(0, 'shared');
  iwin.accumulate(Int32Array.of(rank, rank * 3), 0, 0, 'MAX');
  iwin.accumulate(Int32Array.of(42), 0, 2, REPLACE);
  iwin.unlock(0);
  world.barrier();
  if (rank === 0) {
    iwin.lock(0, 'shared');
    same('accumulate MAX and REPLACE under shared locks', ints, [p - 1, 3 * (p - 1), 42]);
    iwin.unlock(0);
  }
  world.barrier();
  iwin.lockAll();
  iwin.accumulate(Int32Array.of(1), 0, 2, SUM);
  iwin.flushAll();
  iwin.unlockAll();
  world.barrier();
  if (rank === 0) {
    iwin.lock(0, 'shared');
    check('accumulate SUM under lockAll', ints[2] === 42 + p, ints[2]);
    iwin.unlock(0);
  }
  world.barrier();
  iwin.free();
}

// --- arguments checked before MPI ---
throws('allocate: negative bytes', () => Win.allocate(world, -1), RangeError, /^allocate: bytes = -1 is out of range/);
throws('allocateShared: dispUnit 0', () => Win.allocateShared(node, 8, { dispUnit: 0 }), RangeError, /^allocateShared: dispUnit = 0 is out of range/);
throws('create over a spec', () => Win.create(world, [new Float64Array(2), 1, Datatype.FLOAT64]), TypeError, /^create: buffer must be a TypedArray/);
throws('info values are strings', () => Win.allocate(world, 8, { info: { no_locks: true } }), TypeError, /^allocate: info.no_locks must be a string$/);
{
  const hinted = Win.allocate(world, 8, { info: { no_locks: 'false' } });
  check('allocate with info', hinted.buffer.byteLength === 8);
  hinted.free();
}

console.log(JSON.stringify({ rank, size, ...report }));
