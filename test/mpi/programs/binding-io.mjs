// MPI-IO under mpirun: every rank writes its block collectively, views (a vector filetype that
// interleaves the ranks' blocks, a subarray of a 2-D array) place each rank's bytes, and the bytes
// are checked as Node's fs reads them after close, then read back through MPI. Also: independent
// and nonblocking reads and writes, the file pointer and seek, setSize, append, zero-size writes,
// files of one rank (COMM_SELF), and the errors (no such file, an existing file with 'excl',
// writing a read-only file, a closed file, a spec beyond its buffer, bad modes and views).
// Argument: a directory every rank can write to (the test removes it). Every rank prints one
// JSON line: {rank, size, checks, failures}.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { COMM_SELF, Datatype, File, rank, size, world } from 'topocoll';
import { check, report, throws, throwsMpi } from './checks.mjs';

const dir = process.argv[2];
if (!dir || !existsSync(dir)) throw new Error(`binding-io.mjs: pass an existing directory (got ${dir})`);
const p = size;
const at = (name) => path.join(dir, name);

function same(name, got, want) {
  const g = Array.from(got, Number);
  const w = Array.from(want, Number);
  const i = g.findIndex((x, j) => x !== w[j]);
  check(name, g.length === w.length && i < 0, i >= 0 ? `[${i}] = ${g[i]}, want ${w[i]}` : `length ${g.length}, want ${w.length}`);
}

// The file's bytes as Node reads them, as elements of `Type`.
function fileAs(Type, name) {
  const bytes = readFileSync(at(name));
  return new Type(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

// --- each rank its block at rank × n, collectively; read back with readAtAll ---
{
  const n = 5;
  const mine = Float64Array.from({ length: n }, (_, i) => rank * 100 + i + 0.5);
  const f = File.open(world, at('blocks.bin'), ['w', 'create']);
  const st = f.writeAtAll(rank * n * 8, mine);
  check('writeAtAll status', st.count === n && st.bytes === n * 8, st);
  check('mode', f.mode.join() === 'w,create', f.mode);
  f.close();
  check('closed', f.closed);
  world.barrier();
  same('blocks: file bytes', fileAs(Float64Array, 'blocks.bin'), Array.from({ length: p * n }, (_, i) => Math.floor(i / n) * 100 + (i % n) + 0.5));

  const g = File.open(world, at('blocks.bin'), 'r');
  check('size', g.size === p * n * 8, g.size);
  const next = (rank + 1) % p;
  const back = new Float64Array(n);
  const rs = g.readAtAll(next * n * 8, back);
  check('readAtAll status', rs.count === n && rs.bytes === n * 8, rs);
  same("readAtAll: the next rank's block", back, Array.from({ length: n }, (_, i) => next * 100 + i + 0.5));
  // Past the end of the file: nothing read.
  const past = g.readAt(p * n * 8, new Float64Array(2));
  check('readAt past the end', past.count === 0 && past.bytes === 0, past);
  g.close();
}

// --- a vector filetype interleaves the ranks' blocks: writeAll through the file pointer ---
{
  const block = 2, blocks = 3;
  const filetype = Datatype.vector(blocks, block, block * p, Datatype.INT32).commit();
  const mine = Int32Array.from({ length: block * blocks }, (_, i) => rank * 1000 + i);
  const f = File.open(world, at('interleaved.bin'), ['rw', 'create']);
  f.setView(rank * block * 4, Datatype.INT32, filetype);
  const view = f.getView();
  check('getView', view.disp === rank * block * 4 && view.etype === Datatype.INT32 && view.filetype === filetype && view.datarep === 'native', view);
  const st = f.writeAll(mine);
  check('writeAll status', st.count === block * blocks, st);
  check('position after writeAll', f.position === block * blocks, f.position);
  const back = new Int32Array(block * blocks);
  f.readAtAll(0, back);
  same('interleaved: read back through the view', back, mine);
  filetype.free(); // the view keeps its own
  f.close();
  world.barrier();
  const want = [];
  for (let k = 0; k < blocks; k++) for (let r = 0; r < p; r++) for (let j = 0; j < block; j++) want.push(r * 1000 + k * block + j);
  same('interleaved: file bytes', fileAs(Int32Array, 'interleaved.bin'), want);
}

// --- a subarray filetype: rank r owns columns [2r, 2r + 2) of a 3 × 2p Int16 array ---
{
  const rows = 3, cols = 2 * p;
  const filetype = Datatype.subarray([rows, cols], [rows, 2], [0, 2 * rank], Datatype.INT16).commit();
  const mine = Int16Array.from({ length: rows * 2 }, (_, i) => rank * 100 + i);
  const f = File.open(world, at('columns.bin'), ['w', 'create']);
  f.setView(0, Datatype.INT16, filetype);
  const st = f.writeAtAll(0, mine);
  check('subarray writeAtAll status', st.count === rows * 2, st);
  f.close();
  world.barrier();
  const want = Array.from({ length: rows * cols }, (_, i) => {
    const row = Math.floor(i / cols), col = i % cols, owner = Math.floor(col / 2);
    return owner * 100 + row * 2 + (col % 2);
  });
  same('subarray: file bytes', fileAs(Int16Array, 'columns.bin'), want);
  filetype.free();
}

// --- zero-size writes: rank 0 writes nothing, the others their byte ---
{
  const f = File.open(world, at('sparse.bin'), ['w', 'create']);
  const mine = rank === 0 ? new Uint8Array(0) : Uint8Array.of(rank);
  const st = f.writeAtAll(rank, mine);
  check('zero-size writeAtAll status', st.count === mine.length && st.bytes === mine.length, st);
  const none = f.writeAt(0, new ArrayBuffer(0));
  check('zero-size writeAt status', none.count === 0 && none.bytes === 0, none);
  f.close();
  world.barrier();
  // Rank 0's byte is a hole (zero); alone, it leaves the file empty.
  same('zero-size: file bytes', readFileSync(at('sparse.bin')), p === 1 ? [] : Array.from({ length: p }, (_, r) => r));
}

// --- one rank's file (COMM_SELF): independent, nonblocking, the file pointer, setSize, append ---
{
  const name = `self-${rank}.bin`;
  const f = File.open(COMM_SELF, at(name), ['rw', 'create', 'excl']);
  const data = Uint32Array.from({ length: 8 }, (_, i) => rank * 10 + i);
  check('writeAt', f.writeAt(0, data.subarray(0, 4)).count === 4);
  const st = await f.iwriteAt(16, data.subarray(4));
  check('iwriteAt status', st.count === 4 && st.bytes === 16, st);
  f.sync();
  check('size after writes', f.size === 32, f.size);
  const back = new Uint32Array(8);
  const rs = await f.ireadAt(0, back);
  check('ireadAt status', rs.count === 8, rs);
  same('ireadAt bytes', back, data);

  f.seek(8);
  const two = new Uint32Array(2);
  f.read(two);
  same('read at the file pointer', two, [data[2], data[3]]);
  check('position after read', f.position === 16, f.position);
  f.seek(-4, 'end');
  f.write(Uint32Array.of(0xdeadbeef));
  f.seek(-8, 'current');
  f.read(two);
  same('seek current/end, write, read', two, [data[6], 0xdeadbeef]);

  // A [buffer, count, datatype] spec: every other element of the buffer.
  const everyOther = Datatype.vector(4, 1, 2, Datatype.UINT32).commit();
  const spread = new Uint32Array(7);
  const ss = f.readAt(0, [spread, 1, everyOther]);
  check('readAt a spec status', ss.count === 1 && ss.bytes === 16, ss);
  same('readAt a spec: bytes land at its displacements', spread, [data[0], 0, data[1], 0, data[2], 0, data[3]]);
  everyOther.free();

  f.setSize(12);
  check('setSize', f.size === 12, f.size);
  f.close();
  check('setSize: file on disk', readFileSync(at(name)).length === 12);

  const a = File.open(COMM_SELF, at(name), ['w', 'append']);
  check('append: the file pointer starts at the end', a.position === 12, a.position);
  a.write(Uint32Array.of(7));
  a.close();
  same('append: file bytes', fileAs(Uint32Array, name), [data[0], data[1], data[2], 7]);

  const d = File.open(COMM_SELF, at(`gone-${rank}.bin`), ['w', 'create', 'deleteOnClose']);
  d.writeAt(0, Uint8Array.of(1));
  d.close();
  check('deleteOnClose', !existsSync(at(`gone-${rank}.bin`)));

  File.delete(at(name));
  check('File.delete', !existsSync(at(name)));
}

// --- errors ---
{
  const missing = at('no-such-file.bin');
  throwsMpi('open a missing file for reading', () => File.open(world, missing, 'r'), 'MPI_ERR_NO_SUCH_FILE', /MPI_File_open\('.*no-such-file\.bin'\): MPI_ERR_NO_SUCH_FILE/);
  throwsMpi('delete a missing file', () => File.delete(missing), 'MPI_ERR_NO_SUCH_FILE', /MPI_File_delete\('.*no-such-file\.bin'\)/);
  throwsMpi("'excl' on an existing file", () => File.open(world, at('blocks.bin'), ['w', 'create', 'excl']), 'MPI_ERR_FILE_EXISTS', /blocks\.bin/);

  const ro = File.open(world, at('blocks.bin'), 'r');
  throwsMpi('write to a read-only file', () => ro.writeAt(0, new Uint8Array(1)), 'MPI_ERR_READ_ONLY', /MPI_File_write_at\('.*blocks\.bin'\)/);
  throws('a spec beyond its buffer', () => ro.readAt(0, [new Int32Array(3), 4, Datatype.INT32]), RangeError, /buf \[buffer, count, datatype\]: 4 items .* the buffer holds 12 bytes/);
  throws('a negative offset', () => ro.readAt(-1, new Uint8Array(1)), RangeError, /readAt: offset = -1 is out of range/);
  throws('not a buffer', () => ro.readAt(0, 'bytes'), TypeError, /buf must be a TypedArray, Buffer, DataView or ArrayBuffer, or \[buffer, count, datatype\]/);
  const loose = Datatype.vector(2, 1, 2, Datatype.INT32);
  throws('an uncommitted filetype', () => ro.setView(0, Datatype.INT32, loose), TypeError, /setView: filetype is not committed/);
  loose.free();
  throws('an unknown datarep', () => ro.setView(0, Datatype.BYTE, Datatype.BYTE, 'big-endian'), TypeError, /datarep 'big-endian' is not one of 'native', 'internal', 'external32'/);
  throws('an unknown whence', () => ro.seek(0, 'start'), TypeError, /whence 'start' is not valid; valid: 'set', 'current', 'end'/);
  throws('a negative seek from the start', () => ro.seek(-1), RangeError, /seek: offset = -1 is out of range/);
  ro.close();
  const closed = /the file '.*blocks\.bin' is closed/;
  throws('readAt after close', () => ro.readAt(0, new Uint8Array(1)), TypeError, closed);
  throws('writeAtAll after close', () => ro.writeAtAll(0, new Uint8Array(1)), TypeError, closed);
  throws('size after close', () => ro.size, TypeError, closed);
  throws('close twice', () => ro.close(), TypeError, closed);
  throws('getView after close', () => ro.getView(), TypeError, closed);

  throws('an unknown mode', () => File.open(world, missing, 'read'), TypeError, /mode 'read' is not valid; valid: 'r', 'w', 'rw', 'create', 'excl', 'append', 'deleteOnClose', 'uniqueOpen', or an array of them/);
  throws('no access mode', () => File.open(world, missing, ['create']), TypeError, /mode must include exactly one of 'r', 'w', 'rw' \(got none\)/);
  throws('two access modes', () => File.open(world, missing, ['r', 'w']), TypeError, /exactly one of 'r', 'w', 'rw' \(got r and w\)/);
  throws("'create' with 'r'", () => File.open(world, missing, ['r', 'create']), TypeError, /'create' or 'excl' needs 'w' or 'rw'/);
  throws('not a communicator', () => File.open(0, missing, 'r'), TypeError, /File.open: comm must be a Comm/);
  throws('an empty path', () => File.open(world, '', 'r'), TypeError, /File.open: path must be a non-empty string/);
  throws('hints not strings', () => File.open(world, missing, 'r', { cb_nodes: 2 }), TypeError, /File.open: info.cb_nodes must be a string/);
}

console.log(JSON.stringify({ rank, size, ...report }));
