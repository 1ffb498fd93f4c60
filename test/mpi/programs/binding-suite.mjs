// One launch that checks the whole binding through the ESM entry: communicators, point-to-point,
// every collective on every element type (blocking, nonblocking, in place), object mode, async
// progress, error paths. Every rank prints one JSON line: {rank, size, checks, failures}.
import { createRequire } from 'node:module';
import { inspect, types } from 'node:util';
import topocoll, {
  ANY_SOURCE,
  ANY_TAG,
  COMM_SELF,
  COMM_WORLD,
  IN_PLACE,
  MpiError,
  PROC_NULL,
  Request,
  UNDEFINED,
  finalize,
  init,
  isFinalized,
  isThreadMain,
  libraryVersion,
  processorName,
  queryThread,
  rank,
  size,
  testAll,
  testAny,
  testSome,
  waitAll,
  waitAny,
  waitSome,
  version,
  world,
  wtick,
  wtime,
} from 'topocoll';
import { check, report, throws, throwsMpi } from './checks.mjs';

const cjs = createRequire(import.meta.url)('topocoll');
const BIG_BYTES = Number(process.env.BINDING_BIG_BYTES ?? 4 << 20);
const p = size;
const timings = {};
let sectionStart = performance.now();
function section(name) {
  const now = performance.now();
  timings[name] = Math.round(now - sectionStart);
  sectionStart = now;
}

function sameArray(name, got, want) {
  // Fast path: identical bytes (the data has no NaN); else find the first differing element.
  const bytes = (x) => (ArrayBuffer.isView(x) ? Buffer.from(x.buffer, x.byteOffset, x.byteLength) : Buffer.from(x));
  if (got.constructor === want.constructor && bytes(got).equals(bytes(want))) return check(name, true);
  const g = ArrayBuffer.isView(got) && !(got instanceof DataView) ? got : new Uint8Array(got.buffer ?? got, got.byteOffset ?? 0, got.byteLength);
  const w = ArrayBuffer.isView(want) && !(want instanceof DataView) ? want : new Uint8Array(want.buffer ?? want, want.byteOffset ?? 0, want.byteLength);
  if (g.length !== w.length) return check(name, false, `length ${g.length}, want ${w.length}`);
  for (let i = 0; i < w.length; i++) {
    if (g[i] !== w[i] && !(Number.isNaN(g[i]) && Number.isNaN(w[i]))) return check(name, false, `[${i}] = ${g[i]}, want ${w[i]}`);
  }
  check(name, true);
}

// --- element types and reference reductions ---
const TYPES = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array, BigInt64Array, BigUint64Array];
const isBig = (T) => T === BigInt64Array || T === BigUint64Array;
const isFloat = (T) => T === Float32Array || T === Float64Array;
// MPI sees Uint8ClampedArray as uint8: sums wrap, they do not clamp.
const storage = (T) => (T === Uint8ClampedArray ? Uint8Array : T);
const cast = (T, x) => new (storage(T))([isBig(T) ? BigInt(x) : x])[0];
const value = (r, i) => ((r * 37 + i * 11) % 101) + 20; // 20..120: 8-bit sums over p > 1 wrap
const fill = (T, n, f) => {
  const a = new T(n);
  if (isBig(T)) for (let i = 0; i < n; i++) a[i] = BigInt(f(i));
  else for (let i = 0; i < n; i++) a[i] = f(i);
  return a;
};
// Large byte patterns (i * mul + add) & 255, kept monomorphic so that 4 MiB fill in milliseconds.
function bytePattern(n, mul, add) {
  const a = new Uint8Array(n);
  for (let i = 0; i < n; i++) a[i] = (i * mul + add) & 255;
  return a;
}
// Byte i of block b (of `part` bytes each) is (i + b * mulBlock + add) & 255.
function blockPattern(blocks, part, mulBlock, add) {
  const a = new Uint8Array(blocks * part);
  for (let b = 0; b < blocks; b++) a.set(bytePattern(part, 1, b * mulBlock + add), b * part);
  return a;
}
const OPS_JS = {
  SUM: (a, b) => a + b,
  PROD: (a, b) => a * b,
  MIN: (a, b) => (b < a ? b : a),
  MAX: (a, b) => (b > a ? b : a),
  LAND: (a, b) => (a && b ? 1 : 0),
  LOR: (a, b) => (a || b ? 1 : 0),
  LXOR: (a, b) => (!a !== !b ? 1 : 0),
  BAND: (a, b) => a & b,
  BOR: (a, b) => a | b,
  BXOR: (a, b) => a ^ b,
};
function combine(T, op, ranks, i, f = value) {
  let acc = isBig(T) ? BigInt(f(ranks[0], i)) : f(ranks[0], i);
  for (const r of ranks.slice(1)) {
    const x = isBig(T) ? BigInt(f(r, i)) : f(r, i);
    acc = op === 'LAND' || op === 'LOR' || op === 'LXOR' ? OPS_JS[op](acc !== 0 && acc !== 0n, x !== 0 && x !== 0n) : OPS_JS[op](acc, x);
    if (isBig(T) && typeof acc === 'number') acc = BigInt(acc);
    acc = cast(T, acc); // wrap as the element type does at every step
  }
  return cast(T, acc);
}
const expected = (T, op, ranks, n, f = value) => fill(T, n, (i) => Number(combine(T, op, ranks, i, f)));
const upTo = (k) => Array.from({ length: k }, (_, i) => i);
const validOps = (T) => (isFloat(T) ? ['SUM', 'PROD', 'MIN', 'MAX'] : ['SUM', 'PROD', 'MIN', 'MAX', 'LAND', 'LOR', 'LXOR', 'BAND', 'BOR', 'BXOR']);

// --- basics and the ESM entry ---
check('esm default export is the CommonJS module', topocoll === cjs);
check('world is COMM_WORLD', world === COMM_WORLD && world === cjs.world);
check('rank and size', Number.isInteger(rank) && rank === world.rank && size === Number(process.env.OMPI_COMM_WORLD_SIZE ?? process.env.PMI_SIZE ?? size));
check('processorName', typeof processorName() === 'string' && processorName().length > 0);
const t0 = wtime();
check('wtime advances', wtime() >= t0);
check('COMM_SELF has one rank', COMM_SELF.size === 1 && COMM_SELF.rank === 0);
throws('init with another thread level after init', () => init({ threadLevel: 'multiple' }), Error, /already initialized/);
// The environment: values MPI itself gives (the test compares version() with the launcher's).
check('wtick is a resolution in seconds', wtick() > 0 && wtick() < 1, wtick());
check('isFinalized before finalize', isFinalized() === false);
check('queryThread is the level init provided', queryThread() === init().provided && queryThread() === 'single', [queryThread(), init()]);
check('isThreadMain on the thread that initialized MPI', isThreadMain() === true);
const mpiVersion = version();
check('version: MPI 3.1 (Open MPI 4.1) or MPI 4.0 (MPICH 4.0)', /^Open MPI v4\.1\./.test(mpiVersion.libraryVersion) ? mpiVersion.major === 3 && mpiVersion.minor === 1 : /^MPICH Version:\s+4\.0/.test(mpiVersion.libraryVersion) && mpiVersion.major === 4 && mpiVersion.minor === 0, mpiVersion);
check('version: the library string is libraryVersion(), with no NUL', mpiVersion.libraryVersion === libraryVersion() && !mpiVersion.libraryVersion.includes('\0'), mpiVersion);

section('basics');
// --- communicators ---
{
  const dup = world.dup();
  check('dup keeps rank and size', dup.rank === rank && dup.size === p);
  check('dup is congruent', dup.compare(world) === 'congruent' && world.compare(world) === 'ident');
  const parity = world.split(rank % 2, -rank); // reversed order within each half
  const members = upTo(p).filter((r) => r % 2 === rank % 2);
  check('split size', parity.size === members.length, { size: parity.size, members });
  check('split key orders ranks', parity.rank === members.length - 1 - members.indexOf(rank), parity.rank);
  const ranksSeen = parity.allgather(new Int32Array([rank]), new Int32Array(parity.size));
  sameArray('split members', ranksSeen, Int32Array.from(members).reverse());
  const none = world.split(rank === 0 ? UNDEFINED : 1, 0);
  check('split UNDEFINED gives null', rank === 0 ? none === null : none !== null && none.size === p - 1);
  const node = world.splitShared();
  check('splitShared: one node here', node.size === p && node.rank === rank);
  for (const c of [dup, parity, node, none]) c?.free();
  throws('use after free', () => dup.barrier(), TypeError, /freed communicator/);
  throws('rank after free', () => dup.rank, TypeError, /freed communicator/);
  throws('free world', () => world.free(), TypeError, /cannot be freed/);
  const again = world.dup(); // a new communicator never takes a freed handle
  check('handles are not reused', again.handle !== dup.handle);
  throws('freed handle stays invalid', () => dup.bcast(new Uint8Array(1)), TypeError, /freed communicator/);
  again.free();
}

section('communicators');
// --- point-to-point ---
{
  const right = (rank + 1) % p;
  const left = (rank - 1 + p) % p;
  for (const T of [...TYPES, Buffer, DataView, ArrayBuffer]) {
    const name = T.name;
    for (const n of [0, 1, 1000]) {
      const mk = (f) => (T === DataView ? new DataView(fill(Uint8Array, n, f).buffer) : T === ArrayBuffer ? fill(Uint8Array, n, f).buffer : T === Buffer ? Buffer.from(fill(Uint8Array, n, f)) : fill(T, n, f));
      const out = mk((i) => value(rank, i) % 100);
      const got = mk(() => 0);
      const st = world.sendrecv(out, right, got, left, 7, 7);
      sameArray(`sendrecv ${name} n=${n}`, got, mk((i) => value(left, i) % 100));
      check(`sendrecv status ${name}`, st.source === left && st.tag === 7 && st.bytes === (T === ArrayBuffer ? n : out.byteLength), st);
    }
  }
  // blocking send/recv around the ring (even ranks send first), tags and wildcards
  const msg = fill(Float64Array, 16, (i) => rank * 100 + i);
  const got = new Float64Array(32);
  if (p > 1) {
    const order = rank % 2 === 0 ? ['send', 'recv'] : ['recv', 'send'];
    for (const step of order) {
      if (step === 'send') world.send(msg, right, 40 + rank);
      else {
        const st = world.recv(got, ANY_SOURCE, ANY_TAG);
        check('recv status', st.source === left && st.tag === 40 + left && st.count === 16 && st.bytes === 128, st);
        sameArray('recv data', got.subarray(0, 16), fill(Float64Array, 16, (i) => left * 100 + i));
      }
    }
    // probe/iprobe, then receive exactly what the probe announced
    const sent = world.issend(new Int16Array([rank, 1, 2]), right, 5);
    const st = world.probe(left, 5);
    check('probe status', st.source === left && st.tag === 5 && st.bytes === 6, st);
    check('iprobe sees it', world.iprobe(left, 5)?.bytes === 6);
    const three = new Int16Array(3);
    world.recv(three, left, 5);
    sameArray('recv after probe', three, new Int16Array([left, 1, 2]));
    sent.wait();
  }
  check('iprobe with nothing pending', world.iprobe(ANY_SOURCE, 999) === null);
  // PROC_NULL
  world.send(new Uint8Array(4), PROC_NULL);
  const st = world.recv(new Uint8Array(4), PROC_NULL);
  check('recv from PROC_NULL', st.source === PROC_NULL && st.count === 0, st);
  // nonblocking, a big message, and the event loop running while a receive is pending
  const big = bytePattern(BIG_BYTES, 7, rank);
  const into = new Uint8Array(BIG_BYTES);
  const recvReq = world.irecv(into, left, 11);
  const sendReq = world.isend(big, right, 11);
  check('irecv is a Request', recvReq instanceof Request && typeof recvReq.then === 'function');
  const [status] = await waitAll([recvReq, sendReq]);
  sameArray('isend/irecv 4 MiB', into, bytePattern(BIG_BYTES, 7, left));
  check('irecv status', status.source === left && status.tag === 11 && status.count === BIG_BYTES, status);
  if (p > 1) {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    if (rank === 0) {
      const pending = world.irecv(new Int32Array(1), 1, 12);
      const waited = waitAny([pending]);
      // Rank 1 sends 150 ms after this: a rank 0 that came late under load would otherwise find
      // the message there already and see no tick.
      world.send(new Int32Array([0]), 1, 14);
      const { index } = await waited;
      check('event loop ran while irecv pending', index === 0 && ticks >= 5, { ticks });
    } else if (rank === 1) {
      world.recv(new Int32Array(1), 0, 14);
      await new Promise((r) => setTimeout(r, 150));
      world.send(new Int32Array([1]), 0, 12);
    }
    clearInterval(timer);
    const r2 = world.irecv(new Int32Array(1), left, 13);
    world.issend(new Int32Array([rank]), right, 13).wait();
    check('wait() returns the status', r2.wait().source === left && r2.test() === true);
  }
}

section('p2p');
// --- requests: Promise behaviour, the -all/-any/-some calls, free(), Status.cancelled/error ---
{
  const right = (rank + 1) % p;
  const left = (rank - 1 + p) % p;
  const turn = () => new Promise((r) => setImmediate(r));
  // testAll/testAny/testSome before any peer sends (nothing is sent until every rank has looked),
  // then waitSome reports exactly the receive whose message was sent.
  const a = new Int32Array(2);
  const b = new Float64Array(3);
  const reqs = [world.irecv(a, left, 61), world.irecv(b, left, 62)];
  check('Request is a Promise by toStringTag', Object.prototype.toString.call(reqs[0]) === '[object Promise]');
  check('Request is a Promise: instanceof, util.types.isPromise', reqs[0] instanceof Promise && types.isPromise(reqs[0]));
  check('a pending request inspects as a pending Promise', /<pending>/.test(inspect(reqs[0])), inspect(reqs[0]));
  throws('new Request(executor) is refused', () => new Request(() => {}), TypeError, /^Request: made by the nonblocking calls/);
  check('a request is a Request; its constructor, as await reads it, is Promise', reqs[0] instanceof Request && reqs[0].constructor === Promise && Promise.resolve(reqs[0]) === reqs[0]);
  check('testAll false before the peer sends', testAll(reqs) === false);
  check('testAny null before the peer sends', testAny(reqs) === null);
  check('testSome empty before the peer sends', testSome(reqs).indices.length === 0);
  world.barrier();
  await world.isend(new Float64Array([rank, 0.5, -rank]), right, 62);
  const some = await waitSome(reqs);
  check('waitSome: the index of the receive that completed', some.indices.length === 1 && some.indices[0] === 1, some.indices);
  check('waitSome: its status', some.values[0]?.source === left && some.values[0]?.tag === 62 && some.values[0]?.count === 3, some.values[0]);
  sameArray('waitSome: the data received', b, new Float64Array([left, 0.5, -left]));
  check('testAll false while one receive is pending', testAll(reqs) === false && !reqs[0].done);
  world.barrier();
  await world.isend(new Int32Array([rank, 61]), right, 61);
  let polls = 0;
  while (!testAll(reqs)) polls++, await turn();
  check('testAll true once the peer has sent', reqs[0].done && reqs[1].done, { polls });
  // The Promise it is has settled with the value, though nothing awaited it (testAll found it).
  const viaIntrinsic = await Promise.prototype.then.call(reqs[0], (s) => s);
  check('Promise.prototype.then.call of a completed request: its status', viaIntrinsic.tag === 61 && viaIntrinsic.source === left && /tag: 61/.test(inspect(reqs[0])), inspect(reqs[0]));
  check('then/catch/finally make plain Promises', [Promise.prototype.then.call(reqs[0], () => {}), reqs[0].then(), reqs[0].catch(() => {}), reqs[0].finally(() => {}), reqs[0].promise()].every((q) => !(q instanceof Request) && q instanceof Promise));
  sameArray('testAll: the data received', a, new Int32Array([left, 61]));
  const again = await waitSome(reqs);
  check('waitSome on completed requests: none left', again.indices.length === 0 && again.values.length === 0);
  // testAny: null until the message arrives, then its index and status, once.
  const late = [world.irecv(new Uint8Array(1), left, 63), world.irecv(new Uint8Array(4), left, 64)];
  check('testAny null before the send', testAny(late) === null);
  world.barrier();
  await world.isend(Uint8Array.of(1, 2, 3, 4), right, 64);
  let any = null;
  while (!(any = testAny(late))) await turn();
  check('testAny: the index and status of the receive that completed', any.index === 1 && any.value.source === left && any.value.bytes === 4, any);
  check('testAny reports it once', testAny(late) === null);
  world.barrier(); // every rank has checked before the message for late[0] is sent
  world.send(new Uint8Array(1), right, 63);
  const { index, value: st63 } = await waitAny(late);
  check('waitAny skips the completed request', index === 0 && st63.tag === 63, { index, st63 });
  // A Request as a Promise: then, Promise.all/race, catch, finally.
  const ring = new Float32Array(2);
  const [st, sent] = await Promise.all([world.irecv(ring, left, 65), world.isend(new Float32Array([rank, 2]), right, 65)]);
  check('Promise.all of irecv/isend', st.source === left && sent === undefined && ring[0] === left && ring[1] === 2, st);
  const behind = world.irecv(new Int8Array(1), left, 66);
  const raced = await Promise.race([behind, new Promise((r) => setTimeout(() => r('timeout'), 100))]);
  check('Promise.race: the timer wins while no message comes', raced === 'timeout' && !behind.done);
  world.barrier(); // no rank sends before every rank's race is over
  world.send(new Int8Array([7]), right, 66);
  check('the receive the race left behind completes', (await behind).tag === 66);
  const viaThen = world.irecv(new Int8Array(1), left, 67).then((s) => s.tag);
  world.send(new Int8Array([3]), right, 67);
  check('then(onfulfilled) of an irecv', (await viaThen) === 67);
  // A rejected request: catch gets the MpiError, finally runs (a truncated receive, on COMM_SELF).
  const long = COMM_SELF.isend(new Uint8Array(16), 0, 68);
  let finallyRan = false;
  const caught = await COMM_SELF.irecv(new Uint8Array(8), 0, 68)
    .catch((e) => e)
    .finally(() => (finallyRan = true));
  check('a failed request rejects: catch gets the MpiError', caught instanceof MpiError && caught.errorClassName === 'MPI_ERR_TRUNCATE', `${caught?.name} ${caught?.errorClassName} ${caught?.message}`);
  check('finally runs after a failed request', finallyRan);
  // A failure handled through wait() alone: no unhandled rejection (that would abort the job), and
  // the Promise it is has rejected with the same MpiError.
  const longer = COMM_SELF.isend(new Uint8Array(16), 0, 70); // (a blocking send to self may wait forever under MPICH)
  const failing = COMM_SELF.irecv(new Uint8Array(8), 0, 70);
  throwsMpi('wait() of a truncated receive throws', () => failing.wait(), 'MPI_ERR_TRUNCATE', /./);
  await new Promise((r) => setImmediate(r)); // an unhandled rejection would be reported by now
  const intrinsic = await Promise.prototype.then.call(failing, () => 'fulfilled', (e) => e);
  check('the failed request\'s own Promise rejected with its MpiError', intrinsic instanceof MpiError && intrinsic.errorClassName === 'MPI_ERR_TRUNCATE', `${intrinsic}`);
  await longer.catch(() => {});
  let finallyOk = 0;
  const self = COMM_SELF.irecv(new Uint8Array(2), 0, 69);
  COMM_SELF.send(Uint8Array.of(5, 6), 0, 69);
  const selfStatus = await self.finally(() => finallyOk++);
  check('finally runs and passes the value through', finallyOk === 1 && selfStatus.bytes === 2);
  await long.catch(() => {});
  // Status.cancelled and Status.error on every kind of status.
  const r1 = world.irecv(new Uint8Array(3), left, 71);
  world.send(Uint8Array.of(1, 2, 3), right, 71);
  const irecvStatus = await r1;
  // (nonblocking sends: a blocking send to self with no receive posted may wait forever, as MPICH's does)
  const s72 = world.isend(Uint8Array.of(4), right, 72);
  const probed = world.probe(left, 72);
  const recvStatus = world.recv(new Uint8Array(1), left, 72);
  const s73 = world.isendObject({ k: rank }, right, 73);
  const objStatus = {};
  world.recvObject(left, 73, objStatus);
  await Promise.all([s72, s73]);
  for (const [what, s] of [['irecv', irecvStatus], ['probe', probed], ['recv', recvStatus], ['recvObject', objStatus], ['PROC_NULL', world.recv(new Uint8Array(1), PROC_NULL)]]) {
    check(`Status.cancelled false (${what})`, s.cancelled === false, s);
    check(`Status.error MPI_SUCCESS (${what})`, s.error === 0, s);
  }
  // free(): a freed send is still delivered; a freed receive still consumes its message (the next
  // receive gets the next one); a nonblocking collective cannot be freed.
  const freedSend = world.isend(new Int32Array([rank * 10]), right, 74);
  freedSend.free();
  throws('a freed request cannot be waited for', () => freedSend.wait(), TypeError, /^wait: the request has been freed$/);
  const awaitedFreed = await freedSend.then(() => null, (e) => e);
  check('awaiting a freed request rejects', awaitedFreed instanceof TypeError && awaitedFreed.message === 'await: the request has been freed', `${awaitedFreed}`);
  const fromFreed = new Int32Array(1);
  world.recv(fromFreed, left, 74);
  check('a freed send is delivered', fromFreed[0] === left * 10, fromFreed[0]);
  const consumed = world.irecv(new Int32Array(1), left, 75);
  consumed.free();
  const next = new Int32Array(1);
  const nextReq = world.irecv(next, left, 75);
  world.send(new Int32Array([1]), right, 75);
  world.send(new Int32Array([2]), right, 75);
  await nextReq;
  check('a freed receive still consumes its message', next[0] === 2, next[0]);
  const watched = world.irecv(new Int32Array(1), left, 76);
  const watchedTag = watched.then((s) => s.tag);
  throws('an awaited request cannot be freed', () => watched.free(), TypeError, /^free: the request is being awaited/);
  world.send(new Int32Array([3]), right, 76);
  check('the awaited request still completes', (await watchedTag) === 76);
  const coll = world.ibarrier();
  throws('a nonblocking collective cannot be freed', () => coll.free(), TypeError, /^free: a nonblocking collective cannot be freed \(MPI forbids MPI_Request_free on its request\)/);
  check('the collective still completes', (await coll) === undefined && coll.done);
}

section('requests');
// --- collectives on every element type ---
for (const T of TYPES) {
  const name = T.name;
  for (const n of [0, 1, 1000]) {
    const mine = fill(T, n, (i) => value(rank, i));
    const root = (n + 1) % p;
    // engine: bcast, allgather, alltoall
    const b = rank === root ? fill(T, n, (i) => value(root, i)) : new T(n);
    sameArray(`bcast ${name} n=${n}`, world.bcast(b, root), fill(T, n, (i) => value(root, i)));
    const all = fill(T, n * p, (i) => value(Math.floor(i / n), i % n));
    sameArray(`allgather ${name} n=${n}`, world.allgather(mine, new T(n * p)), all);
    const a2a = fill(T, n * p, (i) => value(rank, i));
    const a2aWant = fill(T, n * p, (i) => value(Math.floor(i / n), rank * n + (i % n)));
    sameArray(`alltoall ${name} n=${n}`, world.alltoall(a2a, new T(n * p)), a2aWant);
    // gather / scatter
    const g = world.gather(mine, rank === root ? new T(n * p) : null, root);
    if (rank === root) sameArray(`gather ${name} n=${n}`, g, all);
    else check(`gather returns null off root`, g === null);
    const s = world.scatter(rank === root ? all : null, new T(n), root);
    sameArray(`scatter ${name} n=${n}`, s, mine);
    // v-forms: rank i contributes i+1 elements (capped at n), packed in reverse rank order
    const counts = upTo(p).map((r) => Math.min(n, r + 1));
    const displs = [];
    for (let r = p - 1, at = 0; r >= 0; r--) (displs[r] = at), (at += counts[r]);
    const total = counts.reduce((x, y) => x + y, 0);
    const vWant = new T(total);
    for (let r = 0; r < p; r++) vWant.set(fill(T, counts[r], (i) => value(r, i)), displs[r]);
    const myPart = fill(T, counts[rank], (i) => value(rank, i));
    const gv = world.gatherv(myPart, rank === root ? { buffer: new T(total), counts, displs } : null, root);
    if (rank === root) sameArray(`gatherv ${name} n=${n}`, gv, vWant);
    sameArray(`scatterv ${name} n=${n}`, world.scatterv(rank === root ? { buffer: vWant, counts, displs } : null, new T(counts[rank]), root), myPart);
    sameArray(`allgatherv ${name} n=${n}`, world.allgatherv(myPart, { buffer: new T(total), counts, displs }), vWant);
    // alltoallv: rank r sends (r + j) % 3 elements to rank j
    const sc = upTo(p).map((j) => Math.min(n, (rank + j) % 3));
    const rc = upTo(p).map((j) => Math.min(n, (j + rank) % 3));
    const sendv = new T(sc.reduce((x, y) => x + y, 0));
    const recvWant = new T(rc.reduce((x, y) => x + y, 0));
    for (let j = 0, at = 0; j < p; j++) sendv.set(fill(T, sc[j], (i) => value(rank, j * 10 + i)), at), (at += sc[j]);
    for (let j = 0, at = 0; j < p; j++) recvWant.set(fill(T, rc[j], (i) => value(j, rank * 10 + i)), at), (at += rc[j]);
    sameArray(`alltoallv ${name} n=${n}`, world.alltoallv({ buffer: sendv, counts: sc }, { buffer: new T(recvWant.length), counts: rc }), recvWant);
    // reductions with every op valid for the type
    const small = (r, i) => ((r + i) % 3) + 1; // PROD stays exact and in range
    for (const op of validOps(T)) {
      const f = op === 'PROD' ? small : op.startsWith('L') ? (r, i) => (r + i) % 2 : value;
      const src = fill(T, n, (i) => f(rank, i));
      sameArray(`allreduce ${op} ${name} n=${n}`, world.allreduce(src, new T(n), op), expected(T, op, upTo(p), n, f));
      if (n !== 1) continue; // the other reductions once per op
      const red = world.reduce(src, rank === root ? new T(n) : null, op, root);
      if (rank === root) sameArray(`reduce ${op} ${name}`, red, expected(T, op, upTo(p), n, f));
      sameArray(`scan ${op} ${name}`, world.scan(src, new T(n), op), expected(T, op, upTo(rank + 1), n, f));
      const ex = world.exscan(src, new T(n), op); // rank 0's result is undefined in MPI
      if (rank > 0) sameArray(`exscan ${op} ${name}`, ex, expected(T, op, upTo(rank), n, f));
    }
    const rsb = fill(T, n * p, (i) => value(rank, i));
    const rsbWant = fill(T, n, (i) => Number(combine(T, 'SUM', upTo(p), rank * n + i)));
    sameArray(`reduceScatterBlock ${name} n=${n}`, world.reduceScatterBlock(rsb, new T(n)), rsbWant);
  }
}

section('types');
// Open MPI 4.1's AVX op component saturates 8-bit sums; MPI says they wrap (see lifecycle.ts).
for (const T of [Int8Array, Uint8Array]) {
  const got = world.allreduce(new T(4096).fill(100), new T(4096));
  const want = new T(4096).fill(cast(T, 100 * p));
  sameArray(`${T.name} SUM wraps (4096 elements)`, got, want);
}

section('int8');
// --- in place ---
{
  const n = 5;
  const root = p - 1;
  const allIn = fill(Int32Array, n, (i) => value(rank, i));
  sameArray('allreduce IN_PLACE', world.allreduce(IN_PLACE, allIn, 'MAX'), expected(Int32Array, 'MAX', upTo(p), n));
  const scanIn = fill(Int32Array, n, (i) => value(rank, i));
  sameArray('scan IN_PLACE', world.scan(IN_PLACE, scanIn), expected(Int32Array, 'SUM', upTo(rank + 1), n));
  const exIn = fill(Int32Array, n, (i) => value(rank, i));
  world.exscan(IN_PLACE, exIn);
  if (rank > 0) sameArray('exscan IN_PLACE', exIn, expected(Int32Array, 'SUM', upTo(rank), n));
  const redIn = fill(Float64Array, n, (i) => value(rank, i));
  if (rank === root) sameArray('reduce IN_PLACE at root', world.reduce(IN_PLACE, redIn, 'SUM', root), expected(Float64Array, 'SUM', upTo(p), n));
  else world.reduce(redIn, null, 'SUM', root);
  const gathered = fill(Int16Array, n * p, (i) => (Math.floor(i / n) === rank ? value(rank, i % n) : 0));
  if (rank === root) sameArray('gather IN_PLACE at root', world.gather(IN_PLACE, gathered, root), fill(Int16Array, n * p, (i) => value(Math.floor(i / n), i % n)));
  else world.gather(gathered.subarray(rank * n, rank * n + n), null, root);
  const scattered = fill(Int16Array, n * p, (i) => value(Math.floor(i / n), i % n));
  // Every rank gets its block back; IN_PLACE at the root: a view of its block of sendbuf.
  const isView = (got, of, byteOffset) => got.buffer === (of.buffer ?? of) && got.byteOffset === byteOffset;
  const mine = world.scatter(rank === root ? scattered : null, rank === root ? IN_PLACE : new Int16Array(n), root);
  sameArray(rank === root ? 'scatter IN_PLACE returns the root block' : 'scatter to a non-root', mine, fill(Int16Array, n, (i) => value(rank, i)));
  if (rank === root) check('scatter IN_PLACE: a view of sendbuf', mine instanceof Int16Array && isView(mine, scattered, root * n * 2));
  const mineAsync = await world.iscatter(rank === root ? scattered : null, rank === root ? IN_PLACE : new Int16Array(n), root);
  sameArray('iscatter IN_PLACE', mineAsync, fill(Int16Array, n, (i) => value(rank, i)));
  // Byte buffers: a DataView gives a DataView, an ArrayBuffer a Uint8Array (no ArrayBuffer views).
  const bytesAll = fill(Uint8Array, 3 * p, (i) => value(Math.floor(i / 3), i % 3));
  for (const [kind, wrap, Want] of [['DataView', (u) => new DataView(u.buffer), DataView], ['ArrayBuffer', (u) => u.buffer, Uint8Array]]) {
    const sendbuf = wrap(bytesAll.slice());
    const got = world.scatter(rank === root ? sendbuf : null, rank === root ? IN_PLACE : wrap(new Uint8Array(3)), root);
    sameArray(`scatter IN_PLACE ${kind}`, new Uint8Array(got.buffer ?? got, got.byteOffset ?? 0, got.byteLength), fill(Uint8Array, 3, (i) => value(rank, i)));
    if (rank === root) check(`scatter IN_PLACE ${kind}: a ${Want.name} view`, got instanceof Want && isView(got, sendbuf, root * 3), got);
  }
  const sv = { buffer: fill(Float32Array, p * (p + 1), (i) => i), counts: upTo(p).map((r) => r + 1), displs: upTo(p).map((r) => r * (p + 1)) };
  const svWant = fill(Float32Array, rank + 1, (i) => rank * (p + 1) + i);
  const svMine = world.scatterv(rank === root ? sv : null, rank === root ? IN_PLACE : new Float32Array(rank + 1), root);
  sameArray('scatterv IN_PLACE returns the root block', svMine, svWant);
  if (rank === root) check('scatterv IN_PLACE: a view at displs[root]', isView(svMine, sv.buffer, root * (p + 1) * 4));
  const packed = { buffer: fill(Float32Array, (p * (p + 1)) / 2, (i) => i), counts: upTo(p).map((r) => r + 1) };
  const packedAt = (r) => (r * (r + 1)) / 2;
  sameArray('iscatterv IN_PLACE, displs packed', await world.iscatterv(rank === root ? packed : null, rank === root ? IN_PLACE : new Float32Array(rank + 1), root), fill(Float32Array, rank + 1, (i) => packedAt(rank) + i));
  const agIn = fill(Uint32Array, n * p, (i) => (Math.floor(i / n) === rank ? value(rank, i % n) : 0));
  sameArray('allgather IN_PLACE', world.allgather(IN_PLACE, agIn), fill(Uint32Array, n * p, (i) => value(Math.floor(i / n), i % n)));
  const counts = upTo(p).map((r) => r + 1);
  const total = counts.reduce((a, b) => a + b, 0);
  const displs = counts.map((_, r) => counts.slice(0, r).reduce((a, b) => a + b, 0));
  const vWant = new Int32Array(total);
  for (let r = 0; r < p; r++) vWant.set(fill(Int32Array, counts[r], (i) => value(r, i)), displs[r]);
  const agvIn = new Int32Array(total);
  agvIn.set(fill(Int32Array, counts[rank], (i) => value(rank, i)), displs[rank]);
  sameArray('allgatherv IN_PLACE', world.allgatherv(IN_PLACE, { buffer: agvIn, counts }), vWant);
  const gvIn = new Int32Array(total);
  gvIn.set(fill(Int32Array, counts[rank], (i) => value(rank, i)), displs[rank]);
  if (rank === root) sameArray('gatherv IN_PLACE at root', world.gatherv(IN_PLACE, { buffer: gvIn, counts }, root), vWant);
  else world.gatherv(fill(Int32Array, counts[rank], (i) => value(rank, i)), null, root);
  const a2avIn = fill(Float64Array, p, (j) => rank * 100 + j);
  const ones = upTo(p).map(() => 1);
  sameArray('alltoallv IN_PLACE', world.alltoallv(IN_PLACE, { buffer: a2avIn, counts: ones }), fill(Float64Array, p, (j) => j * 100 + rank));
  const rsbIn = fill(Int32Array, n * p, (i) => value(rank, i));
  world.reduceScatterBlock(IN_PLACE, rsbIn);
  sameArray('reduceScatterBlock IN_PLACE', rsbIn.subarray(0, n), fill(Int32Array, n, (i) => Number(combine(Int32Array, 'SUM', upTo(p), rank * n + i))));
}

section('inplace');
// --- nonblocking collectives (awaited together) ---
{
  const n = 3;
  const root = 0;
  const mine = fill(Float64Array, n, (i) => value(rank, i));
  const all = fill(Float64Array, n * p, (i) => value(Math.floor(i / n), i % n));
  const counts = upTo(p).map(() => n);
  const results = await waitAll([
    world.iallreduce(mine, new Float64Array(n), 'SUM'),
    world.ireduce(mine, rank === root ? new Float64Array(n) : null, 'MAX', root),
    world.iscan(mine, new Float64Array(n)),
    world.iexscan(mine, new Float64Array(n)),
    world.ireduceScatterBlock(all, new Float64Array(n)),
    world.igather(mine, rank === root ? new Float64Array(n * p) : null, root),
    world.iscatter(rank === root ? all : null, new Float64Array(n), root),
    world.igatherv(mine, rank === root ? { buffer: new Float64Array(n * p), counts } : null, root),
    world.iscatterv(rank === root ? { buffer: all, counts } : null, new Float64Array(n), root),
    world.iallgatherv(mine, { buffer: new Float64Array(n * p), counts }),
    world.ialltoallv({ buffer: all, counts }, { buffer: new Float64Array(n * p), counts }),
    world.iallgather(mine, new Float64Array(n * p)),
    world.ialltoall(all, new Float64Array(n * p)),
    world.ibcast(rank === root ? mine.slice() : new Float64Array(n), root),
    world.ibarrier(),
  ]);
  const [ar, rd, sc, ex, rsb, ga, sca, gav, scav, agv, a2av, ag, a2a, bc, bar] = results;
  sameArray('iallreduce', ar, expected(Float64Array, 'SUM', upTo(p), n));
  if (rank === root) sameArray('ireduce', rd, expected(Float64Array, 'MAX', upTo(p), n));
  else check('ireduce off root resolves null', rd === null);
  sameArray('iscan', sc, expected(Float64Array, 'SUM', upTo(rank + 1), n));
  if (rank > 0) sameArray('iexscan', ex, expected(Float64Array, 'SUM', upTo(rank), n));
  sameArray('ireduceScatterBlock', rsb, fill(Float64Array, n, (i) => p * value(Math.floor((rank * n + i) / n), (rank * n + i) % n)));
  if (rank === root) sameArray('igather', ga, all), sameArray('igatherv', gav, all);
  sameArray('iscatter', sca, mine);
  sameArray('iscatterv', scav, mine);
  sameArray('iallgatherv', agv, all);
  sameArray('ialltoallv', a2av, fill(Float64Array, n * p, (i) => value(rank, i % n)));
  sameArray('iallgather', ag, all);
  sameArray('ialltoall', a2a, fill(Float64Array, n * p, (i) => value(rank, i % n)));
  sameArray('ibcast', bc, fill(Float64Array, n, (i) => value(root, i)));
  check('ibarrier resolves', bar === undefined);
  const r = world.iallreduce(new Int32Array([1]), new Int32Array(1));
  check('Request.wait', r.wait()[0] === p && r.test() && r.done);
}

section('nonblocking');
// --- 4 MiB through the collectives ---
{
  const n = BIG_BYTES / 8;
  const f64 = (add, scale) => {
    const a = new Float64Array(n);
    for (let i = 0; i < n; i++) a[i] = scale * (i % 1000) + add;
    return a;
  };
  sameArray('allreduce 4 MiB', world.allreduce(f64(rank, 1), new Float64Array(n)), f64((p * (p - 1)) / 2, p));
  const bytes = rank === 0 ? bytePattern(BIG_BYTES, 1, 0) : new Uint8Array(BIG_BYTES);
  sameArray('bcast 4 MiB', world.bcast(bytes, 0), bytePattern(BIG_BYTES, 1, 0));
  const part = Math.floor(BIG_BYTES / p);
  const counts = upTo(p).map(() => part);
  const out = world.allgatherv(bytePattern(part, 1, rank), { buffer: new Uint8Array(part * p), counts });
  sameArray('allgatherv 4 MiB', out, blockPattern(p, part, 1, 0));
  // block j from rank r holds (i + 3r + j) & 255
  const a2a = world.alltoallv({ buffer: blockPattern(p, part, 1, 3 * rank), counts }, { buffer: new Uint8Array(part * p), counts });
  sameArray('alltoallv 4 MiB', a2a, blockPattern(p, part, 3, rank));
}

section('big');
// --- object mode ---
{
  const obj = (r) => ({ rank: r, name: `rank-${r}`, nested: { list: [r, r * 2], map: new Map([[r, 'x']]) }, when: new Date(1e12 + r), big: BigInt(r) ** 40n, bytes: new Uint16Array([r, 7]) });
  const same = (a, b) => JSON.stringify(a, (k, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Map ? [...v] : ArrayBuffer.isView(v) ? [...v] : v)) === JSON.stringify(b, (k, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Map ? [...v] : ArrayBuffer.isView(v) ? [...v] : v));
  const root = p - 1;
  check('bcastObject', same(world.bcastObject(rank === root ? obj(root) : null, root), obj(root)));
  const g = world.gatherObject(obj(rank), root);
  check('gatherObject', rank === root ? same(g, upTo(p).map(obj)) : g === null);
  check('scatterObject', same(world.scatterObject(rank === root ? upTo(p).map((r) => ({ to: r, s: 'x'.repeat(r * 1000) })) : null, root), { to: rank, s: 'x'.repeat(rank * 1000) }));
  check('allgatherObject', same(world.allgatherObject(obj(rank)), upTo(p).map(obj)));
  check('alltoallObject', same(world.alltoallObject(upTo(p).map((j) => [rank, j])), upTo(p).map((j) => [j, rank])));
  check('allreduceObject SUM', world.allreduceObject(rank + 1, 'SUM') === (p * (p + 1)) / 2);
  check('allreduceObject function', same(world.allreduceObject([rank], (a, b) => a.concat(b)), upTo(p)));
  const red = world.reduceObject(BigInt(rank), 'MAX', 0);
  check('reduceObject MAX', rank === 0 ? red === BigInt(p - 1) : red === null);
  const right = (rank + 1) % p;
  const left = (rank - 1 + p) % p;
  const large = 'z'.repeat(1 << 20);
  check('sendrecvObject 1 MiB', world.sendrecvObject({ from: rank, large }, right, left).from === left);
  if (p > 1) {
    const status = {};
    if (rank % 2 === 0) world.sendObject({ hello: rank }, right, 21);
    const got = world.recvObject(ANY_SOURCE, 21, status);
    if (rank % 2 === 1) world.sendObject({ hello: rank }, right, 21);
    check('recvObject with status', got.hello === left && status.source === left && status.tag === 21 && status.bytes > 0 && status.count === status.bytes, { got, status });
    const pending = world.irecvObject(left, 22);
    await world.isendObject(new Set([rank, 'a']), right, 22);
    const set = await pending;
    check('isendObject/irecvObject', set instanceof Set && set.has(left) && set.has('a'));
  }
  const emptyAll = world.allgatherObject(undefined);
  check('allgatherObject of undefined', emptyAll.length === p && emptyAll.every((v) => v === undefined));
  // Small values travel in one block with their length; the rest of a larger one follows: values
  // on both sides of the block's size (bcast: 256 B, allgather: 128 B per rank), mixed in one call.
  const plain = (r, n) => ({ r, s: 'q'.repeat(n), list: [r, 'é€', null, true, -0, 2 ** 40] });
  for (const n of [1, 192, 193, 500, 5000]) { // 192 chars: 247 bytes, in the 248 after the length; 193: 249
    const got = world.bcastObject(rank === root ? plain(root, n) : null, root);
    check(`bcastObject of ${n} chars`, same(got, plain(root, n)) && Object.is(got.list[4], -0), got);
  }
  for (const n of [1, 100, 200]) {
    const sizes = upTo(p).map((r) => (r % 2 ? n : 3));
    check(`allgatherObject of ${n} chars from odd ranks`, same(world.allgatherObject(plain(rank, sizes[rank])), upTo(p).map((r) => plain(r, sizes[r]))));
  }
  if (p > 1) {
    // recvObject receives a small message into a buffer it uses again: values made over it (a
    // typed array) must not change with the next message; a large one needs its own buffer.
    const status = {};
    if (rank % 2 === 0) world.sendObject(new Float64Array([rank, 1.5]), right, 23);
    const first = world.recvObject(left, 23, status);
    if (rank % 2 === 1) world.sendObject(new Float64Array([rank, 1.5]), right, 23);
    if (rank % 2 === 0) world.sendObject({ big: 'b'.repeat(10000) }, right, 24);
    const second = world.recvObject(left, 24, status);
    if (rank % 2 === 1) world.sendObject({ big: 'b'.repeat(10000) }, right, 24);
    check('recvObject: an earlier value is left alone', first instanceof Float64Array && first[0] === left && first[1] === 1.5, [...first]);
    check('recvObject of 10 kB with status', second.big.length === 10000 && status.source === left && status.tag === 24 && status.bytes > 10000 && status.count === status.bytes, status);
  }
}

section('object');
// --- errors: thrown before any MPI call, naming the argument and the valid choices ---
{
  // A root out of range: MPI_ERR_ROOT, as the MPI raises it, before any call.
  const rootError = (r) => new RegExp(`root = ${r} is not a rank of this communicator; valid: \\[0, ${p - 1}\\]`);
  throwsMpi('bad root', () => world.reduce(new Uint8Array(1), new Uint8Array(1), 'SUM', p), 'MPI_ERR_ROOT', rootError(p));
  throwsMpi('bad root (engine collective)', () => world.bcast(new Uint8Array(1), p), 'MPI_ERR_ROOT', rootError(p));
  throwsMpi('bad root (nonblocking engine collective)', () => world.ibcast(new Uint8Array(1), 10 ** 6), 'MPI_ERR_ROOT', rootError(10 ** 6));
  throwsMpi('negative root', () => world.reduce(new Int32Array(1), new Int32Array(1), 'SUM', -1), 'MPI_ERR_ROOT', rootError(-1));
  throws('non-integer root', () => world.gather(new Int32Array(1), new Int32Array(p), 0.5), TypeError, /root must be an integer/);
  // Every rooted call, engine, system MPI and object mode, blocking or not, says the same of a bad
  // root: the same class and the same words (the root is checked before any other argument).
  const b1 = () => new Int32Array(1);
  const bp = () => new Int32Array(p);
  const rooted = {
    bcast: (r) => world.bcast(b1(), r),
    ibcast: (r) => world.ibcast(b1(), r),
    gather: (r) => world.gather(b1(), bp(), r),
    igather: (r) => world.igather(b1(), bp(), r),
    gatherv: (r) => world.gatherv(b1(), { buffer: bp(), counts: upTo(p).map(() => 1) }, r),
    igatherv: (r) => world.igatherv(b1(), { buffer: bp(), counts: upTo(p).map(() => 1) }, r),
    scatter: (r) => world.scatter(bp(), b1(), r),
    iscatter: (r) => world.iscatter(bp(), b1(), r),
    scatterv: (r) => world.scatterv({ buffer: bp(), counts: upTo(p).map(() => 1) }, b1(), r),
    iscatterv: (r) => world.iscatterv({ buffer: bp(), counts: upTo(p).map(() => 1) }, b1(), r),
    reduce: (r) => world.reduce(b1(), b1(), 'SUM', r),
    ireduce: (r) => world.ireduce(b1(), b1(), 'SUM', r),
    bcastObject: (r) => world.bcastObject({ a: 1 }, r),
    gatherObject: (r) => world.gatherObject({ a: 1 }, r),
    scatterObject: (r) => world.scatterObject(upTo(p), r),
    reduceObject: (r) => world.reduceObject(1, 'SUM', r),
  };
  const notARank = (r) => `root = ${r} is not a rank of this communicator; valid: [0, ${p - 1}]: `; // then MPI's own text
  const badRoots = [
    [p, MpiError, notARank(p)],
    [-1, MpiError, notARank(-1)],
    [2 ** 40, MpiError, notARank(2 ** 40)], // out of range, not "not an integer" (no overflowing cast)
    ['0', TypeError, 'root must be a rank (a number)'],
    [null, TypeError, 'root must be a rank (a number)'],
    [0.5, TypeError, 'root must be an integer rank'],
    [NaN, TypeError, 'root must be an integer rank'],
    [Infinity, TypeError, 'root must be an integer rank'],
  ];
  for (const [root, cls, words] of badRoots) {
    for (const [name, call] of Object.entries(rooted)) {
      try {
        call(root);
        check(`bad root ${String(root)}: ${name}`, false, 'did not throw');
      } catch (e) {
        const ok = e.constructor === cls && (cls === TypeError ? e.message === words : e.message.startsWith(words) && e.errorClassName === 'MPI_ERR_ROOT');
        check(`bad root ${String(root)}: ${name}`, ok, `${e?.constructor?.name}: ${e?.message}`);
      }
    }
  }
  throws('mixed element types', () => world.allreduce(new Float64Array(2), new Int32Array(2)), TypeError, /sendbuf \(Float64Array\) and recvbuf \(Int32Array\) must have the same element type/);
  throws('not a buffer', () => world.send('hello', 0), TypeError, /buf must be a TypedArray, Buffer, DataView or ArrayBuffer/);
  throws('op not defined for floats', () => world.allreduce(new Float64Array(1), new Float64Array(1), 'BAND'), TypeError, /op BAND is not defined for Float64Array elements; valid ops: SUM, PROD, MIN, MAX$/);
  throws('op not defined for bytes', () => world.allreduce(new DataView(new ArrayBuffer(1)), new DataView(new ArrayBuffer(1)), 'SUM'), TypeError, /valid ops: BAND, BOR, BXOR/);
  throws('unknown op', () => world.allreduce(new Int32Array(1), new Int32Array(1), 'AVG'), TypeError, /op "AVG" is not valid; valid choices: SUM, PROD/);
  const allOps = 'SUM, PROD, MIN, MAX, LAND, LOR, LXOR, BAND, BOR, BXOR, MINLOC, MAXLOC, or a function \\(invec, inoutvec\\) => void';
  // A function is an op (test/mpi/user-ops.test.ts runs it); on bytes it has no elements to combine.
  const fn = (invec, inoutvec) => inoutvec.forEach((x, i) => (inoutvec[i] = x + invec[i]));
  const bytes = () => new DataView(new ArrayBuffer(4));
  throws('a function as an op on a DataView (allreduce)', () => world.allreduce(bytes(), bytes(), fn), TypeError, /^allreduce: a user-defined op combines typed arrays; recvbuf is a DataView$/);
  throws('a function as an op on a DataView (ireduce)', () => world.ireduce(bytes(), bytes(), fn, 0), TypeError, /^ireduce: a user-defined op combines typed arrays/);
  throws('a number as an op', () => world.allreduce(new Int32Array(1), new Int32Array(1), 7), TypeError, new RegExp(`op 7 is not valid; valid choices: ${allOps}$`));
  throws('null as an op', () => world.reduceScatterBlock(new Int32Array(p), new Int32Array(1), null), TypeError, /op null is not valid/);
  throws('recvbuf too small', () => world.allreduce(new Int32Array(4), new Int32Array(3)), RangeError, /recvbuf holds 3 elements, needs 4/);
  throws('gather recvbuf too small', () => world.gather(new Int32Array(2), new Int32Array(2 * p - 1), rank), RangeError, /recvbuf holds/);
  // Checked at the root before any message moves, so the other ranks need not take part.
  if (rank === 0) {
    const ones = upTo(p).map(() => 1);
    throws('gatherv: the root sends other than counts[root]', () => world.gatherv(new Int32Array(2), { buffer: new Int32Array(p + 1), counts: ones }, 0), RangeError, /gatherv: the root's sendbuf holds 2 elements but counts\[0\] = 1/);
    throws('scatterv: the root receives into less than counts[root]', () => world.scatterv({ buffer: new Int32Array(2 * p), counts: ones.map(() => 2) }, new Int32Array(1), 0), RangeError, /scatterv: the root's recvbuf holds 1 elements but counts\[0\] = 2/);
  }
  throws('counts beyond the buffer', () => world.allgatherv(new Int32Array(1), { buffer: new Int32Array(p - 1 || 0), counts: upTo(p).map(() => 1) }), RangeError, /block ends at/);
  throws('counts of the wrong length', () => world.allgatherv(new Int32Array(1), { buffer: new Int32Array(p + 1), counts: [1, 1, 1, 1, 1, 1, 1, 1, 1].slice(0, p + 1) }), RangeError, /needs one per rank/);
  throws('a negative count', () => world.allgatherv(new Int32Array(1), { buffer: new Int32Array(p), counts: upTo(p).map(() => -1) }), RangeError, /allgatherv: counts\[0\] must be a whole number from 0 to 9007199254740992 \(got -1\)/);
  throws('a count not a number', () => world.allgatherv(new Int32Array(1), { buffer: new Int32Array(p), counts: upTo(p).map(() => '1') }), TypeError, /allgatherv: counts\[0\] must be a number/);
  if (p > 1) throws('reduceScatterBlock not a multiple', () => world.reduceScatterBlock(new Int32Array(p + 1), new Int32Array(p + 1)), RangeError, /must be a multiple of the communicator size/);
  const detached = new ArrayBuffer(8);
  structuredClone(detached, { transfer: [detached] });
  throws('detached buffer', () => world.bcast(detached), TypeError, /detached/);
  throws('bad tag', () => world.send(new Uint8Array(1), rank, -5), RangeError, /tag = -5 is out of range; valid: \[0, \d+\]/);
  throws('bad dest', () => world.send(new Uint8Array(1), p + 3), RangeError, new RegExp(`dest = ${p + 3} is not a rank of this communicator; valid: \\[0, ${p - 1}\\] or PROC_NULL`));
  throws('bad source', () => world.recv(new Uint8Array(1), -7), RangeError, /source = -7.*ANY_SOURCE or PROC_NULL/);
  throws('bad color', () => world.split(-3), RangeError, /color = -3 is not valid/);
  if (rank !== 0) throws('IN_PLACE off root', () => world.gather(IN_PLACE, null, 0), TypeError, /IN_PLACE is valid only at the root/);
  throws('v-buffer spec', () => world.allgatherv(new Int32Array(1), new Int32Array(p)), TypeError, /recv must be \{ buffer, counts, displs\? \}/);
  // 2^31 elements: the MPI-4 large-count calls where the MPI has them (MPICH 4), else a RangeError.
  // The 2 GiB are never touched (PROC_NULL), so the zeroed pages are never even mapped in.
  const huge = new Int8Array(2 ** 31);
  if (/Open MPI v4/.test(topocoll.libraryVersion())) {
    throws('2^31 elements without large-count calls', () => world.send(huge, PROC_NULL), RangeError, /send: 2147483648 elements exceed 2\^31-1, and this MPI has no MPI-4 large-count calls/);
  } else {
    world.send(huge, PROC_NULL);
    check('2^31 elements through MPI_Recv_c', world.recv(huge, PROC_NULL).source === PROC_NULL);
  }
  // Bytes that are not a whole number of elements: count is UNDEFINED (MPI_UNDEFINED), bytes exact.
  // Only a sender of another element type makes them, which MPI's type matching rules out: Open MPI
  // delivers them; MPICH 4.0 asserts in its unpacking of a message to self.
  if (/^Open MPI/.test(libraryVersion())) {
    const six = COMM_SELF.isend(new Uint8Array(6), 0, 4);
    const partial = COMM_SELF.recv(new Float64Array(1), 0, 4);
    check('status count of a partial element is UNDEFINED', partial.count === UNDEFINED && partial.bytes === 6, partial);
    await six;
  }
  // An error MPI itself reports (a truncated receive) comes back as an MpiError.
  const pending = COMM_SELF.isend(new Uint8Array(16), 0, 3);
  try {
    COMM_SELF.recv(new Uint8Array(8), 0, 3);
    check('truncation raises MpiError', false, 'did not throw');
  } catch (e) {
    check('truncation raises MpiError', e instanceof MpiError && e.errorClassName === 'MPI_ERR_TRUNCATE' && e.errorString.length > 0 && /MPI_Recv/.test(e.message), `${e?.name} ${e?.errorClassName} ${e?.message}`);
  }
  await pending;
}

section('errors');
world.barrier();
finalize();
check('isFinalized after finalize', isFinalized() === true);
throws('queryThread after finalize', () => queryThread(), Error, /queryThread: MPI is finalized/);
throws('isThreadMain after finalize', () => isThreadMain(), Error, /isThreadMain: MPI is finalized/);
check('version after finalize (MPI allows it)', version().libraryVersion === mpiVersion.libraryVersion);
console.log(JSON.stringify({ rank, size: p, checks: report.checks, failures: report.failures, ompiOp: process.env.OMPI_MCA_op ?? null, libraryVersion: mpiVersion.libraryVersion, ...(process.env.BINDING_TIMING ? { timings } : {}) }));
