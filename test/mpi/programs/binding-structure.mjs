// One launch that checks the binding's structure calls under mpirun: derived datatypes in the
// [buffer, count, datatype] form (point-to-point, the engine's bcast/allgather/alltoall, the
// system MPI's gather/scatter), Cartesian grids (a 2-D halo exchange with a column type),
// distributed graphs and the neighbour collectives, groups, communicators of groups, names and
// intercommunicators. Every received byte is checked against what the sender computed. Every rank
// prints one JSON line: {rank, size, checks, failures}.
import { COMM_SELF, Datatype, IN_PLACE, MpiError, PROC_NULL, Request, UNDEFINED, dimsCreate, rank, size, world } from 'topocoll';

const p = size;
let checks = 0;
const failures = [];

function check(name, ok, detail) {
  checks++;
  if (!ok && failures.length < 40) failures.push({ name, detail });
}

function same(name, got, want) {
  const g = Array.from(got, Number);
  const w = Array.from(want, Number);
  const at = g.findIndex((x, i) => x !== w[i]);
  check(name, g.length === w.length && at < 0, at >= 0 ? `[${at}] = ${g[at]}, want ${w[at]}` : `length ${g.length}, want ${w.length}`);
}

// What `fn` throws, or null.
function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return null;
}

function throws(name, fn, cls, pattern) {
  const e = thrown(fn);
  check(name, e instanceof cls && pattern.test(e.message), e ? `${e.constructor?.name}: ${e.message}` : 'did not throw');
}

const next = (rank + 1) % p;
const prev = (rank - 1 + p) % p;

// --- datatypes: layouts ---
{
  const sizes = [
    [Datatype.INT8, 1], [Datatype.UINT8, 1], [Datatype.INT16, 2], [Datatype.UINT16, 2], [Datatype.INT32, 4], [Datatype.UINT32, 4],
    [Datatype.INT64, 8], [Datatype.UINT64, 8], [Datatype.FLOAT32, 4], [Datatype.FLOAT64, 8], [Datatype.BYTE, 1],
  ];
  for (const [t, bytes] of sizes) check(`${t.kind} size`, t.size === bytes && t.extent === bytes && t.committed, t.layout());
  const contiguous = Datatype.contiguous(4, Datatype.INT32);
  check('contiguous layout', contiguous.size === 16 && contiguous.extent === 16 && !contiguous.committed, contiguous.layout());
  check('commit returns the type', contiguous.commit() === contiguous && contiguous.committed);
  const column = Datatype.vector(5, 1, 3, Datatype.FLOAT64).commit();
  check('vector layout', column.size === 40 && column.extent === (4 * 3 + 1) * 8, column.layout());
  const indexed = Datatype.indexed([2, 1], [0, 3], Datatype.INT32).commit();
  check('indexed layout', indexed.size === 12 && indexed.extent === 16, indexed.layout());
  const struct = Datatype.struct([1, 2], [0, 8], [Datatype.INT32, Datatype.FLOAT64]).commit();
  check('struct layout', struct.size === 20 && struct.extent === 24, struct.layout());
  const sub = Datatype.subarray([4, 6], [2, 3], [1, 2], Datatype.FLOAT64).commit();
  const l = sub.layout();
  check('subarray layout', l.size === 48 && l.extent === 192 && l.trueLb === (6 + 2) * 8 && l.trueExtent === (6 + 3) * 8, l);
  for (const t of [contiguous, column, indexed, struct, sub]) t.free();
  throws('a freed datatype', () => column.size, TypeError, /datatype is a freed datatype/);
  throws('free an element type', () => Datatype.FLOAT64.free(), TypeError, /predefined datatype .* cannot be freed/);
  throws('indexed lengths differ', () => Datatype.indexed([1, 2], [0], Datatype.INT32), RangeError, /indexed: blocklengths has 2 entries and displacements 1/);
  throws('subarray out of its array', () => Datatype.subarray([4], [3], [2], Datatype.INT8), RangeError, /subarray: dimension 0: starts \+ subsizes = 5 exceeds sizes = 4/);
  throws('subarray order', () => Datatype.subarray([4], [2], [0], Datatype.INT8, 'X'), TypeError, /order must be 'C'/);
  throws('not a datatype', () => Datatype.contiguous(2, 'float64'), TypeError, /contiguous: oldtype must be a Datatype/);
}

// --- datatypes: byte bounds, checked before any MPI call ---
{
  const column = Datatype.vector(5, 1, 3, Datatype.FLOAT64).commit(); // reaches 13 doubles
  throws('spec beyond its buffer', () => COMM_SELF.send([new Float64Array(12), 1, column], 0), RangeError,
    /buf \[buffer, count, datatype\]: 1 items of the datatype \(extent 104 bytes\) reach bytes \[0, 104\), but the buffer holds 96 bytes/);
  throws('count beyond the buffer', () => COMM_SELF.recv([new Float64Array(13), 2, column], 0), RangeError, /buf \[buffer, count, datatype\]: 2 items .* holds 104 bytes/);
  throws('negative count', () => COMM_SELF.send([new Float64Array(13), -1, column], 0), RangeError, /buf \[buffer, count, datatype\]: count = -1 is out of range/);
  const loose = Datatype.vector(2, 1, 2, Datatype.INT8);
  throws('uncommitted', () => COMM_SELF.send([new Int8Array(3), 1, loose], 0), TypeError, /datatype is not committed \(call its commit\(\)\)/);
  throws('spec of 2 entries', () => COMM_SELF.send([new Int8Array(3), 1], 0), TypeError, /buf \[buffer, count, datatype\] must have 3 entries, not 2/);
  throws('spec in a spec', () => COMM_SELF.send([[new Int8Array(3), 1, Datatype.INT8], 1, Datatype.INT8], 0), TypeError, /buffer must be a TypedArray/);
  // Every rank throws alike, before any traffic, so no rank is left in the collective.
  throws('allgather: bytes that do not divide', () => world.allgather([new Uint8Array(3), 3, Datatype.BYTE], new Float64Array(p)), RangeError,
    /allgather: sendbuf carries 3 bytes per block, not a whole number of recvbuf's items \(8 bytes each\)/);
  throws('collective spec beyond its buffer', () => world.bcast([new Float64Array(4), 1, column]), RangeError, /buffer \[buffer, count, datatype\]: 1 items/);
  loose.free();
  column.free();
}

// --- datatypes: point-to-point ---
const ROWS = 5, COLS = 4;
const matrix = (r, base = 0) => Float64Array.from({ length: ROWS * COLS }, (_, i) => base + r * 1000 + i);
{
  const column = Datatype.vector(ROWS, 1, COLS, Datatype.FLOAT64).commit();
  const mine = matrix(rank);
  // Column 2 of my matrix to next, as a packed Float64Array at the receiver; column 1 of prev's into my column 3.
  const packed = new Float64Array(ROWS);
  const st = world.sendrecv([mine.subarray(2), 1, column], next, packed, prev, 1, 1);
  same('sendrecv: a column into a packed array', packed, Array.from({ length: ROWS }, (_, i) => prev * 1000 + i * COLS + 2));
  check('sendrecv: status counts doubles', st.count === ROWS && st.bytes === ROWS * 8 && st.source === prev, st);
  const into = new Float64Array(ROWS * COLS).fill(-1);
  const st2 = world.sendrecv(mine.subarray(0, ROWS), next, [into.subarray(3), 1, column], prev, 2, 2);
  const want = new Float64Array(ROWS * COLS).fill(-1);
  for (let i = 0; i < ROWS; i++) want[i * COLS + 3] = prev * 1000 + i;
  same('sendrecv: a packed array into a column', into, want);
  check('sendrecv: status counts columns', st2.count === 1 && st2.bytes === ROWS * 8, st2);
  // Nonblocking, struct type: {int32, 2 × float64} records.
  const record = Datatype.struct([1, 2], [0, 8], [Datatype.INT32, Datatype.FLOAT64]).commit();
  const out = new ArrayBuffer(3 * 24);
  for (let k = 0; k < 3; k++) {
    new Int32Array(out, k * 24, 1)[0] = rank * 10 + k;
    new Float64Array(out, k * 24 + 8, 2).set([rank + k / 4, -rank - k]);
  }
  const inbox = new ArrayBuffer(3 * 24);
  const recv = world.irecv([inbox, 3, record], prev, 3);
  const send = world.isend([out, 3, record], next, 3);
  const [status] = await Promise.all([recv, send]);
  let ok = status.count === 3 && status.bytes === 60;
  for (let k = 0; k < 3; k++) {
    ok &&= new Int32Array(inbox, k * 24, 1)[0] === prev * 10 + k;
    const d = new Float64Array(inbox, k * 24 + 8, 2);
    ok &&= d[0] === prev + k / 4 && d[1] === -prev - k;
  }
  check('isend/irecv of struct records', ok, status);
  record.free();
  column.free();
}

// --- datatypes: collectives ---
{
  const column = Datatype.vector(ROWS, 1, COLS, Datatype.FLOAT64).commit();
  // bcast (engine): a 2 × 3 block of the root's matrix into the same block of everyone's.
  const block = Datatype.subarray([ROWS, COLS], [2, 3], [1, 1], Datatype.FLOAT64).commit();
  for (const root of [0, p - 1]) {
    const m = rank === root ? matrix(root) : new Float64Array(ROWS * COLS).fill(-1);
    world.bcast([m, 1, block], root);
    const want = rank === root ? matrix(root) : new Float64Array(ROWS * COLS).fill(-1);
    if (rank !== root) for (const i of [1, 2]) for (const j of [1, 2, 3]) want[i * COLS + j] = root * 1000 + i * COLS + j;
    same(`bcast of a subarray from ${root}`, m, want);
  }
  // gather (system MPI): column 1 of every rank's matrix, packed in rank order at the root.
  const colOf = (r, j) => Array.from({ length: ROWS }, (_, i) => r * 1000 + i * COLS + j);
  const gathered = rank === 0 ? new Float64Array(p * ROWS) : null;
  world.gather([matrix(rank).subarray(1), 1, column], gathered, 0);
  if (rank === 0) same('gather of columns', gathered, Array.from({ length: p }, (_, r) => colOf(r, 1)).flat());
  // scatter: packed blocks from the root into each rank's column 2.
  const mine = new Float64Array(ROWS * COLS).fill(-1);
  const blocks = rank === p - 1 ? Float64Array.from({ length: p * ROWS }, (_, i) => 7000 + i) : null;
  world.scatter(blocks, [mine.subarray(2), 1, column], p - 1);
  const want = new Float64Array(ROWS * COLS).fill(-1);
  for (let i = 0; i < ROWS; i++) want[i * COLS + 2] = 7000 + rank * ROWS + i;
  same('scatter into a column', mine, want);
  // igather with a spec on the receive side: rows of a contiguous type.
  const row = Datatype.contiguous(ROWS, Datatype.FLOAT64).commit();
  const rows = rank === 0 ? new Float64Array(p * ROWS) : null;
  await world.igather(Float64Array.from(colOf(rank, 3)), rank === 0 ? [rows, p, row] : null, 0);
  if (rank === 0) same('igather into a spec of rows', rows, Array.from({ length: p }, (_, r) => colOf(r, 3)).flat());
  // allgather (engine): a column from each rank, into a plain array and into a spec of rows.
  const all = world.allgather([matrix(rank).subarray(0), 1, column], new Float64Array(p * ROWS));
  same('allgather of columns', all, Array.from({ length: p }, (_, r) => colOf(r, 0)).flat());
  const all2 = new Float64Array(p * ROWS);
  await world.iallgather(Float64Array.from(colOf(rank, 2)), [all2, p, row]);
  same('iallgather into a spec of rows', all2, Array.from({ length: p }, (_, r) => colOf(r, 2)).flat());
  // alltoall (engine): p blocks of 3 int32 as a contiguous type, received as plain int32.
  const triple = Datatype.contiguous(3, Datatype.INT32).commit();
  const sendAll = Int32Array.from({ length: 3 * p }, (_, i) => rank * 100 + i);
  const got = world.alltoall([sendAll, p, triple], new Int32Array(3 * p));
  same('alltoall of a contiguous type', got, Array.from({ length: p }, (_, r) => [0, 1, 2].map((k) => r * 100 + rank * 3 + k)).flat());
  const got2 = new Int32Array(3 * p);
  await world.ialltoall(sendAll, [got2, p, triple]);
  same('ialltoall into a contiguous type', got2, Array.from({ length: p }, (_, r) => [0, 1, 2].map((k) => r * 100 + rank * 3 + k)).flat());
  // scatter with IN_PLACE at the root and a spec: the root gets its spec back, its block unmoved.
  const src = Float64Array.from({ length: p * ROWS }, (_, i) => 9000 + i);
  const back = world.scatter(rank === 0 ? [src, p, row] : null, rank === 0 ? IN_PLACE : new Float64Array(ROWS), 0);
  if (rank === 0) check('scatter(spec, IN_PLACE) returns the spec', back[0] === src && back[1] === p && back[2] === row);
  else same('scatter from a spec', back, Array.from({ length: ROWS }, (_, i) => 9000 + rank * ROWS + i));
  // A type freed while operations that use it are in flight: they complete as usual (the engine's
  // ibcast and the system MPI's irecv).
  const late = Datatype.vector(ROWS, 1, COLS, Datatype.FLOAT64).commit();
  const m = rank === 0 ? matrix(0) : new Float64Array(ROWS * COLS).fill(-1);
  const cast = world.ibcast([m.subarray(1), 1, late], 0);
  const inbox = new Float64Array(ROWS * COLS).fill(-1);
  const recv = world.irecv([inbox.subarray(2), 1, late], prev, 21);
  late.free();
  world.send(Float64Array.from(colOf(rank, 3)), next, 21);
  await Promise.all([cast, recv]);
  const castWant = rank === 0 ? matrix(0) : new Float64Array(ROWS * COLS).fill(-1);
  if (rank !== 0) for (let i = 0; i < ROWS; i++) castWant[i * COLS + 1] = i * COLS + 1;
  same('ibcast of a type freed in flight', m, castWant);
  const recvWant = new Float64Array(ROWS * COLS).fill(-1);
  for (let i = 0; i < ROWS; i++) recvWant[i * COLS + 2] = prev * 1000 + i * COLS + 3;
  same('irecv of a type freed in flight', inbox, recvWant);
  for (const t of [column, block, row, triple]) t.free();
}

// --- Cartesian grid: a 2-D halo exchange ---
{
  const dims = dimsCreate(p, 2);
  check('dimsCreate', dims.length === 2 && dims[0] * dims[1] === p && dims[0] >= dims[1], dims);
  same('dimsCreate keeps given dims', dimsCreate(12, [0, 3, 0]), [2, 3, 2]);
  throws('dimsCreate that cannot divide', () => dimsCreate(5, [2, 0]), RangeError, /product of its nonzero entries \(2\) must divide nnodes = 5/);
  const cart = world.createCart(dims, [true, false]);
  check('cart topology', cart.topology === 'cart' && world.topology === null && cart.size === p);
  const [rows, cols] = dims;
  const info = cart.cartGet();
  const me = cart.rank;
  const r0 = Math.floor(me / cols), c0 = me % cols; // MPI numbers a grid row-major
  same('cartGet dims', info.dims, dims);
  check('cartGet periods', info.periods[0] === true && info.periods[1] === false, info.periods);
  same('cartGet coords', info.coords, [r0, c0]);
  same('coords()', cart.coords(), [r0, c0]);
  check('cartRank(coords) round trip', Array.from({ length: p }, (_, r) => cart.cartRank(cart.coords(r))).every((x, r) => x === r));
  check('cartRank wraps a periodic dimension', cart.cartRank([r0 + rows, c0]) === me);
  throws('cartRank outside a non-periodic dimension', () => cart.cartRank([0, cols]), RangeError, /coords\[1\] = \d+ is outside dimension 1, which is not periodic/);
  const up = cart.shift(0, 1);
  check('shift along a periodic dimension', up.dest === ((r0 + 1) % rows) * cols + c0 && up.source === ((r0 - 1 + rows) % rows) * cols + c0, up);
  const right = cart.shift(1, 1);
  check('shift along a non-periodic one', right.dest === (c0 + 1 < cols ? me + 1 : PROC_NULL) && right.source === (c0 > 0 ? me - 1 : PROC_NULL), right);
  same('neighbors of a grid', cart.neighbors().sources, [up.source, up.dest, right.source, right.dest]);

  // Local block NY × NX with one ghost layer; value of a cell: its global position.
  const NY = 3, NX = 4, W = NX + 2;
  const cell = (R, C, i, j) => (R * NY + i) * 1000 + (C * NX + j);
  const u = new Float64Array((NY + 2) * W).fill(-1);
  for (let i = 0; i < NY; i++) for (let j = 0; j < NX; j++) u[(i + 1) * W + j + 1] = cell(r0, c0, i, j);
  const column = Datatype.vector(NY, 1, W, Datatype.FLOAT64).commit();
  const at = (i, j) => u.subarray(i * W + j);
  // x: my east interior column to the right neighbour, my west ghost column from the left.
  cart.sendrecv([at(1, NX), 1, column], right.dest, [at(1, 0), 1, column], right.source, 10, 10);
  cart.sendrecv([at(1, 1), 1, column], right.source, [at(1, NX + 1), 1, column], right.dest, 11, 11);
  // y (periodic): rows are contiguous.
  cart.sendrecv(at(NY, 1).subarray(0, NX), up.dest, at(0, 1).subarray(0, NX), up.source, 12, 12);
  cart.sendrecv(at(1, 1).subarray(0, NX), up.source, at(NY + 1, 1).subarray(0, NX), up.dest, 13, 13);
  const want = new Float64Array(u.length).fill(-1);
  for (let i = 0; i < NY; i++) for (let j = 0; j < NX; j++) want[(i + 1) * W + j + 1] = cell(r0, c0, i, j);
  for (let i = 0; i < NY; i++) {
    if (c0 > 0) want[(i + 1) * W] = cell(r0, c0 - 1, i, NX - 1);
    if (c0 + 1 < cols) want[(i + 1) * W + NX + 1] = cell(r0, c0 + 1, i, 0);
  }
  const below = (r0 - 1 + rows) % rows, above = (r0 + 1) % rows;
  for (let j = 0; j < NX; j++) {
    want[j + 1] = cell(below, c0, NY - 1, j);
    want[(NY + 1) * W + j + 1] = cell(above, c0, 0, j);
  }
  same('halo exchange through shift, sendrecv and a column type', u, want);
  column.free();

  // Sub-grids: my row (dimension 1 remains) and my column (dimension 0 remains).
  const myRow = cart.sub([false, true]);
  const myCol = cart.sub([true, false]);
  check('sub: a row', myRow.size === cols && myRow.rank === c0 && myRow.topology === 'cart', { size: myRow.size, rank: myRow.rank });
  check('sub: a column', myCol.size === rows && myCol.rank === r0);
  same('allgather along a column', myCol.allgather(new Int32Array([me]), new Int32Array(rows)), Array.from({ length: rows }, (_, r) => r * cols + c0));

  // Neighbour collectives on the grid: PROC_NULL blocks are left as they were.
  const heard = cart.neighborAllgather(new Int32Array([me * 10]), new Int32Array(4).fill(-7));
  same('neighborAllgather on a grid', heard, [up.source, up.dest, right.source, right.dest].map((r) => (r === PROC_NULL ? -7 : r * 10)));
  // alltoall, on a grid without wrap-around (where a dimension of 1 or 2 would make one rank both
  // neighbours, and which block goes where is then the MPI's choice): block k to neighbour k
  // carries (me, k), and neighbour k sends me its block for the opposite direction.
  const open = world.createCart(dims, [false, false]);
  const nb = open.neighbors().sources;
  same('neighbours without wrap-around', nb, [r0 > 0 ? me - cols : PROC_NULL, r0 + 1 < rows ? me + cols : PROC_NULL, c0 > 0 ? me - 1 : PROC_NULL, c0 + 1 < cols ? me + 1 : PROC_NULL]);
  const toEach = Int32Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? me : i >> 1));
  const fromEach = await open.ineighborAlltoall(toEach, new Int32Array(8).fill(-7));
  const opposite = [1, 0, 3, 2];
  same('ineighborAlltoall on a grid', fromEach, nb.flatMap((r, k) => (r === PROC_NULL ? [-7, -7] : [r, opposite[k]])));
  for (const c of [myRow, myCol, cart, open]) c.free();
  throws('coords without a grid', () => world.coords(), TypeError, /coords: this communicator has no Cartesian topology \(createCart makes one\)/);
  throws('a grid too large', () => world.createCart([p + 1]), RangeError, /a grid of \d+ processes does not fit a communicator of \d+/);
  throws('periods of another length', () => world.createCart([p], [true, true]), RangeError, /periods has 2 entries, needs 1/);
  throws('neighbours without a topology', () => world.neighborAllgather(new Int32Array(1), new Int32Array(1)), TypeError, /neighborAllgather: this communicator has no topology/);
  // A grid smaller than the communicator: the ranks beyond it get null.
  const small = world.createCart([1]);
  check('ranks beyond a grid get null', rank === 0 ? small?.size === 1 : small === null);
  small?.free();
}

// --- distributed graph: a ring ---
{
  const ring = world.createDistGraphAdjacent([prev], [next]);
  check('dist graph topology', ring.topology === 'distGraph');
  const n = ring.neighbors();
  same('ring sources', n.sources, [prev]);
  same('ring destinations', n.destinations, [next]);
  same('neighborAllgather on a ring', ring.neighborAllgather(new Float64Array([rank, rank + 0.5]), new Float64Array(2)), [prev, prev + 0.5]);
  same('ineighborAllgather on a ring', await ring.ineighborAllgather(new Int16Array([rank * 3]), new Int16Array(1)), [prev * 3]);
  same('neighborAlltoall round a ring', ring.neighborAlltoall(new Int32Array([rank * 10, rank * 10 + 1]), new Int32Array(2)), [prev * 10, prev * 10 + 1]);
  // Both ways round: block 0 goes forward, block 1 back. Only where prev and next differ: with
  // two edges between one pair, which block lands where is the MPI's choice (MPICH and Open MPI
  // differ).
  const both = world.createDistGraphAdjacent([prev, next], [next, prev], { sourceWeights: [1, 2], destWeights: [1, 2] });
  if (p >= 3) same('neighborAlltoall both ways round a ring', both.neighborAlltoall(new Int32Array([rank * 10, rank * 10 + 1]), new Int32Array(2)), [prev * 10, next * 10 + 1]);
  same('neighbours both ways', both.neighbors().destinations, [next, prev]);
  // A spec on the send side: column 0 of a 3 × 2 matrix to the next rank.
  const column = Datatype.vector(3, 1, 2, Datatype.UINT8).commit();
  const m = Uint8Array.from({ length: 6 }, (_, i) => rank * 16 + i);
  same('neighborAllgather of a column', ring.neighborAllgather([m, 1, column], new Uint8Array(3)), [0, 2, 4].map((i) => prev * 16 + i));
  column.free();
  throws('sources out of range', () => world.createDistGraphAdjacent([p], []), RangeError, /createDistGraphAdjacent: sources\[0\] = \d+ is out of range/);
  ring.free();
  both.free();
}

// --- groups and communicators of groups ---
{
  const g = world.group;
  check('world group', g.size === p && g.rank === rank);
  const evenRanks = Array.from({ length: Math.ceil(p / 2) }, (_, i) => 2 * i);
  const evens = g.incl(evenRanks);
  const odds = g.excl(evenRanks);
  check('incl', evens.size === evenRanks.length && evens.rank === (rank % 2 === 0 ? rank / 2 : UNDEFINED), { size: evens.size, rank: evens.rank });
  check('excl', odds.size === p - evenRanks.length && odds.rank === (rank % 2 === 1 ? (rank - 1) / 2 : UNDEFINED));
  same('translateRanks into the world', evens.translateRanks(evenRanks.map((_, i) => i), g), evenRanks);
  same('translateRanks out of the group: UNDEFINED', g.translateRanks([...Array(p).keys()], evens), [...Array(p).keys()].map((r) => (r % 2 ? UNDEFINED : r / 2)));
  const union = evens.union(odds);
  check('union', union.size === p && union.compare(g) === (p <= 2 ? 'ident' : 'similar'), union.compare(g));
  check('intersection', g.intersection(evens).compare(evens) === 'ident');
  check('difference', g.difference(evens).compare(odds) === 'ident');
  throws('incl: a rank twice', () => g.incl([0, 0]), RangeError, /incl: ranks\[1\] = 0 appears twice/);
  throws('incl: out of range', () => g.incl([p]), RangeError, /incl: ranks\[0\] = \d+ is out of range/);

  // create: collective over the world; the odd ranks get null.
  const evenComm = world.create(evens);
  if (rank % 2 === 0) {
    check('create: size and rank', evenComm.size === evens.size && evenComm.rank === rank / 2);
    same('create: allgather over it', evenComm.allgather(new Int32Array([rank]), new Int32Array(evens.size)), evenRanks);
    evenComm.free();
  } else {
    check('create: outside the group', evenComm === null);
  }
  // createGroup: only the odd ranks call it.
  if (rank % 2 === 1) {
    const oddComm = world.createGroup(odds, 5);
    same('createGroup: allgather over it', oddComm.allgather(new Int32Array([rank]), new Int32Array(odds.size)), Array.from({ length: odds.size }, (_, i) => 2 * i + 1));
    oddComm.free();
  }
  for (const x of [union, evens, odds]) x.free();
  throws('a freed group', () => evens.size, TypeError, /group is a freed group/);
  g.free();
}

// --- names ---
{
  check('world name', world.name === 'MPI_COMM_WORLD', world.name);
  const d = world.dup();
  d.name = `halo ${rank}`;
  check('set and get a name', d.name === `halo ${rank}`, d.name);
  throws('a name too long', () => (d.name = 'x'.repeat(1000)), RangeError, /name is 1000 bytes long; this MPI keeps at most \d+/);
  d.free();
}

// --- intercommunicators ---
if (p >= 2) {
  const color = rank % 2;
  const local = world.split(color);
  // Leaders: local rank 0 of each half, world ranks 0 and 1.
  const inter = local.createIntercomm(0, world, color === 0 ? 1 : 0, 7);
  const others = color === 0 ? Math.floor(p / 2) : Math.ceil(p / 2);
  check('intercomm', inter.isInter && !world.isInter && inter.remoteSize === others && inter.size === local.size, { remote: inter.remoteSize });
  check('remote group', inter.remoteGroup.size === others);
  if (local.rank === 0) {
    // The leaders exchange over it: ranks name the remote group.
    const got = new Int32Array(2);
    inter.sendrecv(new Int32Array([rank, 42]), 0, got, 0, 3, 3);
    same('intercomm: sendrecv between the leaders', got, [1 - color, 42]);
  }
  throws('intercomm: a rank beyond the remote group', () => inter.send(new Int32Array(1), others), RangeError, new RegExp(`valid: \\[0, ${others - 1}\\]`));
  const merged = inter.merge(color === 1);
  const order = [...evenRanksOf(p), ...oddRanksOf(p)];
  check('merge', !merged.isInter && merged.size === p && merged.rank === order.indexOf(rank), { rank: merged.rank });
  same('merge: evens first', merged.allgather(new Int32Array([rank]), new Int32Array(p)), order);
  throws('merge of an intracommunicator', () => world.merge(), TypeError, /merge: not an intercommunicator/);
  // Its collectives would take the remote group's roots and sizes: refused before any traffic.
  const refused = /collectives on an intercommunicator are not supported; merge\(\) it/;
  throws('intercomm: bcast (engine)', () => inter.bcast(new Int32Array(1), 0), TypeError, refused);
  throws('intercomm: allgather (engine)', () => inter.allgather(new Int32Array(1), new Int32Array(p)), TypeError, refused);
  throws('intercomm: gather (system MPI)', () => inter.gather(new Int32Array(1), new Int32Array(p), 0), TypeError, refused);
  throws('intercomm: allreduce (system MPI)', () => inter.allreduce(new Int32Array(1), new Int32Array(1)), TypeError, refused);
  for (const c of [merged, inter, local]) c.free();
}

function evenRanksOf(n) {
  return [...Array(n).keys()].filter((r) => r % 2 === 0);
}
function oddRanksOf(n) {
  return [...Array(n).keys()].filter((r) => r % 2 === 1);
}

check('MpiError and Request are exported', typeof MpiError === 'function' && typeof Request === 'function');
world.barrier();
console.log(JSON.stringify({ rank, size: p, checks, failures }));
