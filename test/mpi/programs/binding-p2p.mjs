// Point-to-point beyond send/recv, under mpirun: matched probes and Messages, the buffered and
// ready send modes with the attached buffer, sendrecvReplace, persistent requests, cancel. Every
// message goes around the ring (to rank+1, from rank-1), carries values that name its sender and
// round, and is checked element by element. Every rank prints one JSON line:
// {rank, size, checks, failures}.
import {
  ANY_TAG,
  BSEND_OVERHEAD,
  COMM_SELF,
  Datatype,
  MpiError,
  PROC_NULL,
  PersistentRequest,
  attachBuffer,
  detachBuffer,
  libraryVersion,
  rank,
  size,
  startAll,
  waitAll,
  waitAllSync,
  world,
} from 'topocoll';
import { check, report, throws } from './checks.mjs';

const right = (rank + 1) % size;
const left = (rank + size - 1) % size;
function sameValues(name, got, want) {
  const g = Array.from(got);
  check(name, g.length === want.length && g.every((v, i) => v === want[i]), `got [${g.slice(0, 8)}], want [${want.slice(0, 8)}]`);
}

// What `from` sends in round `round`: n values naming both.
const payload = (from, round, n) => Array.from({ length: n }, (_, i) => from * 1000 + round * 10 + i);

// --- mprobe / improbe / Message ---
{
  const n = rank + 3; // each rank's message has its own length: the probe must size the buffer
  world.send(Float64Array.from(payload(rank, 1, n)), right, 11);
  const m = world.mprobe(left, 11);
  check('mprobe status', m.status.source === left && m.status.tag === 11 && m.status.bytes === (left + 3) * 8 && m.status.count === (left + 3) * 8, m.status);
  const buf = new Float64Array(m.status.bytes / 8);
  const st = m.recv(buf);
  check('Message.recv status', st.source === left && st.tag === 11 && st.count === left + 3 && st.bytes === (left + 3) * 8, st);
  sameValues('Message.recv bytes', buf, payload(left, 1, left + 3));
  throws('a Message is received once', () => m.recv(buf), TypeError, /^recv: the message has been received already/);

  check('improbe finds nothing', world.improbe(left, 13) === null);
  world.send(Int32Array.from(payload(rank, 2, 5)), right, 12);
  let found = null;
  while (!(found = world.improbe(left, ANY_TAG))) await new Promise((r) => setImmediate(r));
  check('improbe status', found.status.source === left && found.status.tag === 12 && found.status.bytes === 20, found.status);
  const ints = new Int32Array(5);
  const ist = await found.irecv(ints);
  check('Message.irecv status', ist.source === left && ist.count === 5 && ist.cancelled === false, ist);
  sameValues('Message.irecv bytes', ints, payload(left, 2, 5));
  throws('irecv of a received Message', () => found.irecv(ints), TypeError, /^irecv: the message has been received already/);

  const none = world.mprobe(PROC_NULL, 0);
  check('mprobe(PROC_NULL)', none.status.source === PROC_NULL && none.status.bytes === 0, none.status);
  const nst = none.recv(new Uint8Array(4));
  check('Message.recv of PROC_NULL', nst.source === PROC_NULL && nst.count === 0, nst);
}

// --- buffered sends: attachBuffer / bsend / ibsend / bsendInit / detachBuffer ---
{
  if (/^MPICH/.test(libraryVersion())) {
    // MPICH refuses a buffered send without room (Open MPI 4.1 sends a small one anyway).
    try {
      COMM_SELF.bsend(new Uint8Array(8), 0, 1);
      check('bsend without a buffer (MPICH)', false, 'did not throw');
    } catch (e) {
      check('bsend without a buffer (MPICH)', e instanceof MpiError && e.errorClassName === 'MPI_ERR_BUFFER', `${e?.errorClassName}: ${e?.message}`);
    }
  }
  check('detachBuffer with none attached', detachBuffer() === null);
  const pool = new Uint8Array(3 * (64 + BSEND_OVERHEAD));
  attachBuffer(pool);
  throws('attachBuffer twice', () => attachBuffer(new Uint8Array(64)), TypeError, /^attachBuffer: a buffer is attached already; call detachBuffer\(\) first$/);
  check('BSEND_OVERHEAD', Number.isInteger(BSEND_OVERHEAD) && BSEND_OVERHEAD > 0, BSEND_OVERHEAD);
  world.bsend(Int16Array.from(payload(rank, 3, 8)), right, 14);
  const ib = world.ibsend(Int16Array.from(payload(rank, 4, 8)), right, 15);
  const pb = world.bsendInit(Int16Array.from(payload(rank, 5, 8)), right, 16);
  const started = pb.start();
  await Promise.all([ib, started]);
  for (const [round, tag] of [[3, 14], [4, 15], [5, 16]]) {
    const got = new Int16Array(8);
    world.recv(got, left, tag);
    sameValues(`buffered round ${round}`, got, payload(left, round, 8));
  }
  pb.free();
  check('detachBuffer returns the buffer', detachBuffer() === pool);
  check('detached once', detachBuffer() === null);
}

// --- ready sends: the receive is posted before the barrier, the send after it ---
{
  const got = [new Uint32Array(6), new Uint32Array(6), new Uint32Array(6)];
  const recvs = got.map((buf, i) => world.irecv(buf, left, 20 + i));
  const pr = world.rsendInit(Uint32Array.from(payload(rank, 8, 6)), right, 22);
  world.barrier();
  world.rsend(Uint32Array.from(payload(rank, 6, 6)), right, 20);
  await world.irsend(Uint32Array.from(payload(rank, 7, 6)), right, 21);
  await pr.start();
  const statuses = await waitAll(recvs);
  got.forEach((buf, i) => sameValues(`ready round ${6 + i}`, buf, payload(left, 6 + i, 6)));
  check('ready statuses', statuses.every((s, i) => s.source === left && s.tag === 20 + i && s.count === 6), statuses);
  pr.free();
}

// --- sendrecvReplace ---
{
  const buf = Float32Array.from(payload(rank, 9, 4));
  const st = world.sendrecvReplace(buf, right, left, 30, 30);
  sameValues('sendrecvReplace bytes', buf, payload(left, 9, 4));
  check('sendrecvReplace status', st.source === left && st.tag === 30 && st.count === 4, st);
  const self = Uint8Array.of(1, 2, 3);
  COMM_SELF.sendrecvReplace(self, 0, 0, 31, 31);
  sameValues('sendrecvReplace to self', self, [1, 2, 3]);
}

// --- the new calls take [buffer, count, datatype]: a column of a 3 × 3 matrix ---
{
  const column = Datatype.vector(3, 1, 3, Datatype.FLOAT64).commit();
  const m = Float64Array.from({ length: 9 }, (_, i) => rank * 100 + i);
  const st = world.sendrecvReplace([m.subarray(1), 1, column], right, left, 32, 32); // column 1 swapped around the ring
  sameValues('sendrecvReplace of a column', m, [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => (i % 3 === 1 ? left : rank) * 100 + i));
  check('sendrecvReplace of a column: status', st.count === 1 && st.bytes === 24, st);
  const into = new Float64Array(9);
  const pr = world.recvInit([into, 1, column], left, 33);
  const ps = world.sendInit([m, 1, column], right, 33); // column 0
  const [pst] = await Promise.all(startAll([pr, ps]));
  sameValues('persistent column', into, [left * 100, 0, 0, left * 100 + 3, 0, 0, left * 100 + 6, 0, 0]);
  check('persistent column: status', pst.count === 1 && pst.source === left, pst);
  world.send([m, 1, column], right, 34);
  const found = world.mprobe(left, 34);
  const viaMessage = new Float64Array(9);
  found.recv([viaMessage, 1, column]);
  sameValues('Message.recv of a column', viaMessage, [left * 100, 0, 0, left * 100 + 3, 0, 0, left * 100 + 6, 0, 0]);
  throws('attachBuffer of a spec', () => attachBuffer([m, 1, column]), TypeError, /^attachBuffer: buffer must be a TypedArray, Buffer, DataView or ArrayBuffer \(raw memory\)/);
  pr.free();
  ps.free();
  column.free();
}

// --- persistent requests: sendInit / recvInit / ssendInit, start, startAll ---
{
  const out = new BigInt64Array(3);
  const into = new BigInt64Array(3);
  const send = world.sendInit(out, right, 40);
  const recv = world.recvInit(into, left, 40);
  check('PersistentRequest', send instanceof PersistentRequest && recv instanceof PersistentRequest);
  for (let round = 0; round < 4; round++) {
    out.set(payload(rank, round, 3).map(BigInt)); // start() sends the buffer's contents at that moment
    // Alternate startAll and start(): both restart the same requests.
    const [status] = round % 2 ? await waitAll(startAll([recv, send])) : await Promise.all([recv.start(), send.start()]);
    sameValues(`persistent round ${round}`, Array.from(into, Number), payload(left, round, 3));
    check(`persistent status ${round}`, status.source === left && status.tag === 40 && status.count === 3, status);
  }
  const active = recv.start();
  throws('start while active', () => recv.start(), TypeError, /^start: the persistent request is active; complete it first$/);
  throws('free while active', () => recv.free(), TypeError, /^free: the persistent request is active/);
  throws('startAll of an active one', () => startAll([recv]), TypeError, /^startAll: the persistent request is active/);
  send.start().wait();
  await active;
  const ss = world.ssendInit(Uint8Array.of(rank, 1), right, 41);
  const sr = world.recvInit(new Uint8Array(2), left, 41);
  const [, ssStatus] = await Promise.all(startAll([ss, sr]));
  check('ssendInit', ssStatus.source === left && ssStatus.count === 2, ssStatus);
  for (const r of [send, recv, ss, sr]) r.free();
  throws('start after free', () => send.start(), TypeError, /^start: the persistent request has been freed$/);
  throws('startAll of plain requests', () => startAll([world.isend(new Uint8Array(1), PROC_NULL)]), TypeError, /^startAll: requests must be an array of PersistentRequests/);
}

// --- cancel ---
{
  // A receive that nothing matches is cancelled; it completes with status.cancelled. The message
  // sent afterwards with its tag goes to the next receive, not to the cancelled one.
  const lost = new Uint8Array(4).fill(255);
  const r = world.irecv(lost, left, 50);
  r.cancel();
  const st = await r;
  check('cancelled receive', st.cancelled === true && r.cancelled === true, st);
  sameValues('cancelled receive left the buffer alone', lost, [255, 255, 255, 255]);
  world.barrier();
  world.send(Uint8Array.of(rank, 5, 0, 50), right, 50);
  const got = new Uint8Array(4);
  world.recv(got, left, 50);
  sameValues('the message after a cancel', got, [left, 5, 0, 50]);
  // A persistent receive's operation can be cancelled too, and started again.
  const pr = world.recvInit(new Uint8Array(1), left, 51);
  const op = pr.start();
  op.cancel();
  check('cancelled persistent receive', (await op).cancelled === true && op.cancelled === true);
  pr.free();
  const coll = world.ibarrier();
  throws('cancel of a collective', () => coll.cancel(), TypeError, /^cancel: a nonblocking collective cannot be cancelled/);
  await coll;
  const obj = world.irecvObject(left, 52);
  throws('cancel of irecvObject', () => obj.cancel(), TypeError, /^cancel: isendObject\/irecvObject requests cannot be cancelled/);
  world.sendObject({ from: rank }, right, 52);
  check('irecvObject after a refused cancel', (await obj).from === left);
}

// --- Request as a Promise: catch and finally on a failing receive (truncation) ---
{
  world.send(new Uint8Array(16), right, 60);
  let finallyRan = false;
  const error = await world
    .irecv(new Uint8Array(8), left, 60)
    .finally(() => (finallyRan = true))
    .catch((e) => e);
  check('catch/finally of a truncated receive', finallyRan && error instanceof MpiError && error.errorClassName === 'MPI_ERR_TRUNCATE', `${error}`);
}

// --- isend/irecv make their requests of completed ones: each request keeps its own result ---
{
  const pair = Datatype.contiguous(2, Datatype.INT32).commit();
  const statuses = [];
  for (let round = 0; round < 3; round++) {
    // A request of Int32 elements, then one of [buffer, count, pair]: the count in each one's type.
    const ints = new Int32Array(4);
    const pairs = new Int32Array(4);
    const done = await waitAll([world.irecv(ints, left, 70 + round), world.isend(Int32Array.from(payload(rank, round, 4)), right, 70 + round)]);
    const [st] = await waitAll([world.irecv([pairs, 2, pair], left, 80 + round), world.isend(Int32Array.from(payload(rank, round + 5, 4)), right, 80 + round)]);
    sameValues(`reused requests, round ${round}`, ints, payload(left, round, 4));
    sameValues(`reused requests of pairs, round ${round}`, pairs, payload(left, round + 5, 4));
    check(`reused requests: statuses of round ${round}`, done[0].tag === 70 + round && done[0].count === 4 && st.tag === 80 + round && st.count === 2, [done[0], st]);
    statuses.push(done[0]);
  }
  check('reused requests: earlier statuses unchanged', statuses.every((s, round) => s.tag === 70 + round && s.source === left), statuses);
  pair.free();
}

// --- Many sends and receives awaited at once (polled together: more than one round's arrays) ---
{
  const n = 40;
  for (const [how, all] of [['Promise.all', (rs) => Promise.all(rs)], ['waitAll', waitAll]]) {
    const got = Array.from({ length: n }, () => new Float64Array(2));
    const recvs = got.map((buf, i) => world.irecv(buf, left, 90 + i));
    const sends = got.map((_, i) => world.isend(Float64Array.of(rank, i), right, 90 + i));
    const results = await all([...sends, ...recvs]);
    const statuses = results.slice(n);
    check(`${how} of ${2 * n}: data`, got.every((buf, i) => buf[0] === left && buf[1] === i), got.slice(0, 3));
    check(`${how} of ${2 * n}: statuses`, statuses.every((st, i) => st.tag === 90 + i && st.source === left && st.count === 2) && results.slice(0, n).every((v) => v === undefined), statuses.slice(0, 3));
  }
}

// --- waitAllSync of sends and receives (waited for by one native call): data and statuses ---
{
  const n = 20;
  const got = Array.from({ length: n }, () => new Int32Array(3));
  const recvs = got.map((buf, i) => world.irecv(buf, left, 110 + i));
  const sends = got.map((_, i) => world.isend(Int32Array.of(rank, i, -i), right, 110 + i));
  const results = waitAllSync([...recvs, ...sends]);
  check('waitAllSync of sends and receives: data', got.every((buf, i) => buf[0] === left && buf[1] === i && buf[2] === -i), got.slice(0, 3));
  check('waitAllSync of sends and receives: statuses', results.slice(0, n).every((st, i) => st.tag === 110 + i && st.source === left && st.count === 3 && st.bytes === 12) && results.slice(n).every((v) => v === undefined), results.slice(0, 3));
  // A truncated receive among them: its MpiError, and the receive before it completed.
  const good = new Int32Array(1);
  world.send(new Uint8Array(16), right, 131);
  const requests = [world.irecv(good, left, 130), world.irecv(new Uint8Array(8), left, 131), world.isend(Int32Array.of(rank), right, 130)];
  let error = null;
  try {
    waitAllSync(requests);
  } catch (e) {
    error = e;
  }
  check('waitAllSync: a truncated receive throws', error instanceof MpiError && error.errorClassName === 'MPI_ERR_TRUNCATE', `${error}`);
  check('waitAllSync: the receive before it completed', requests[0].done && good[0] === left && requests[0].wait().tag === 130, [good]);
  requests[2].wait();
}

// --- A receive freed while waitAll waits for it: waitAll rejects, the receive completes unobserved ---
{
  const lost = new Int32Array(1);
  const freed = world.irecv(lost, left, 140);
  const all = waitAll([freed]);
  freed.free();
  const error = await all.catch((e) => e);
  check('waitAll of a request freed meanwhile rejects', error instanceof TypeError && /freed/.test(error.message), `${error}`);
  world.send(Int32Array.of(rank + 1), right, 140); // matched by the freed receive
  const after = new Int32Array(1);
  const [st] = await waitAll([world.irecv(after, left, 141), world.isend(Int32Array.of(rank), right, 141)]);
  check('requests after a freed one', after[0] === left && st.tag === 141, [after, st]);
}

// --- A failing receive among requests awaited together: the error, and the others complete ---
{
  for (const [how, all] of [['Promise.all', (rs) => Promise.all(rs)], ['waitAll', waitAll]]) {
    const good = new Int32Array(2);
    world.send(new Uint8Array(16), right, 61);
    const requests = [world.irecv(good, left, 62), world.irecv(new Uint8Array(8), left, 61), world.isend(Int32Array.of(rank, 7), right, 62)];
    const error = await all(requests).catch((e) => e);
    check(`${how}: a truncated receive rejects`, error instanceof MpiError && error.errorClassName === 'MPI_ERR_TRUNCATE', `${error}`);
    const st = await requests[0];
    check(`${how}: the other receive completes`, good[0] === left && good[1] === 7 && st.tag === 62 && st.count === 2, [good, st]);
    await requests[2];
  }
  // The slots of those requests serve new ones.
  const again = new Int32Array(1);
  const [st] = await Promise.all([world.irecv(again, left, 63), world.isend(Int32Array.of(rank), right, 63)]);
  check('requests after a failure', again[0] === left && st.tag === 63, [again, st]);
}

// --- A receive awaited in the background while exchanges are awaited: each exchange completes
// (the background receive, polled along, ends no spin), and the background receive last ---
{
  const control = new Int32Array(1);
  let controlStatus = null;
  const background = world.irecv(control, left, 150);
  background.then((st) => (controlStatus = st));
  const got = new Float64Array(1);
  let ok = true;
  for (let round = 0; round < 20; round++) {
    const requests = [world.irecv(got, left, 151), world.isend(Float64Array.of(rank), right, 151)];
    // Every fifth round, one more receive awaited, then completed by wait() while polled.
    const extra = new Int32Array(1);
    const waited = round % 5 === 0 ? world.irecv(extra, left, 152) : null;
    if (waited) {
      void waited.then(() => {});
      world.send(Int32Array.of(round), right, 152);
      waited.wait();
      ok &&= extra[0] === round;
    }
    const [st] = round % 2 ? await waitAll(requests) : await Promise.all(requests);
    ok &&= got[0] === left && st.tag === 151 && st.count === 1;
  }
  check('exchanges beside a receive awaited in the background', ok && !background.done && controlStatus === null, [got, background.done]);
  world.barrier(); // no rank sends the control message before every rank has checked the above
  world.send(Int32Array.of(rank + 5), right, 150);
  const st = await background;
  check('the background receive completes', control[0] === left + 5 && st.tag === 150 && controlStatus?.tag === 150, [control, st]);
}

// --- An ibarrier awaited in the background (rank 0 joins it last) while exchanges are awaited ---
{
  const side = world.dup();
  let passed = false;
  const early = rank === 0 ? null : side.ibarrier();
  early?.then(() => (passed = true));
  const got = new Int32Array(1);
  let ok = true;
  for (let round = 0; round < 10; round++) {
    const [st] = await Promise.all([world.irecv(got, left, 160), world.isend(Int32Array.of(rank * 100 + round), right, 160)]);
    ok &&= got[0] === left * 100 + round && st.tag === 160;
  }
  check('exchanges beside a pending ibarrier', ok && !passed, [got, passed]);
  world.barrier(); // rank 0 joins only once every rank has checked the above
  await (early ?? side.ibarrier());
  check('the ibarrier completes once rank 0 joins', rank === 0 || passed);
  side.free();
}

world.barrier();
console.log(JSON.stringify({ rank, size, ...report }));
