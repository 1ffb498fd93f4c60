// Object mode's wire format is v8.serialize's (V8's ValueSerializer, structured clone), written and
// read here in JS for the small plain values that object mode mostly carries: node's
// v8.serialize/v8.deserialize make a native Serializer or Deserializer per call, which costs
// several µs, more than the MPI calls of a small object (an object ping-pong was 2-3x mpi4py's).
// Plain objects and dense arrays (up to SMALL_COUNT properties, elements and nested objects),
// strings, numbers, booleans, null and undefined are encoded as V8 encodes them; anything else
// (Date, Map, typed arrays, bigints, class instances, shared or cyclic references, index keys...)
// goes to v8.serialize, and a message holding a tag the reader does not know to v8.deserialize.
// Both sides read what the other writes: the bytes are V8's format either way.
import v8 from 'node:v8';

// V8's tags (src/objects/value-serializer.cc).
const TAG = {
  version: 0xff,
  padding: 0x00,
  null: 0x30, // '0'
  undefined: 0x5f, // '_'
  true: 0x54, // 'T'
  false: 0x46, // 'F'
  int32: 0x49, // 'I', zigzag varint
  uint32: 0x55, // 'U', varint
  double: 0x4e, // 'N', 8 bytes little-endian
  oneByteString: 0x22, // '"', Latin-1
  twoByteString: 0x63, // 'c', UTF-16LE
  beginObject: 0x6f, // 'o'
  endObject: 0x7b, // '{', varint property count
  beginDenseArray: 0x41, // 'A', varint length
  endDenseArray: 0x24, // '$', varint property count, varint length
} as const;

// What this Node's V8 writes as its format version (ff 0f: 15 in Node 20); the fast paths run
// only for the versions whose tags above are known (13 to 15), so a newer V8 falls back whole.
const VERSION = v8.serialize(null)[1];
const KNOWN_VERSION = VERSION >= 13 && VERSION <= 15;

// Past this many properties, elements or objects a value is not small: v8.serialize's fixed cost
// no longer matters, and the checks that keep the fast path exact (Object.keys of an array) grow.
const SMALL_COUNT = 64;

// Thrown (once made) inside the encoder or decoder when the value or message is not theirs.
const NOT_SMALL = new Error('not a small plain value');

// --- encoding ---

let out = Buffer.allocUnsafeSlow(256);
let at = 0;
let view = out.subarray(0, 0); // what serializeTransient returned last
let encoding = false; // a getter that sends an object while we encode gets v8.serialize
// The objects on the path being written (a repeat is a cycle or a shared reference): a fixed array
// and a count, as push() and `length = 0` cost a call into the runtime per object.
const seen: (object | undefined)[] = Array.from({ length: SMALL_COUNT }, () => undefined);
let seenCount = 0;
const float = new Float64Array(1);
const floatBytes = new Uint8Array(float.buffer);

function room(n: number): void {
  if (at + n <= out.length) return;
  const bigger = Buffer.allocUnsafeSlow(Math.max(out.length * 2, at + n));
  out.copy(bigger, 0, 0, at);
  out = bigger;
}

function writeVarint(n: number): void {
  room(5);
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  out[at++] = n;
}

function writeNumber(n: number): void {
  if ((n | 0) === n && !(n === 0 && 1 / n < 0)) {
    out[at++] = TAG.int32;
    writeVarint(((n << 1) ^ (n >> 31)) >>> 0);
    return;
  }
  room(9);
  out[at++] = TAG.double;
  float[0] = n;
  for (let i = 0; i < 8; i++) out[at++] = floatBytes[i];
}

function isLatin1(s: string): boolean {
  if (s.length > 32) return !/[^\x00-\xff]/.test(s);
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) return false;
  return true;
}

function varintBytes(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}

function writeString(s: string): void {
  if (isLatin1(s)) {
    room(6 + s.length);
    out[at++] = TAG.oneByteString;
    writeVarint(s.length);
    if (s.length <= 16) for (let i = 0; i < s.length; i++) out[at++] = s.charCodeAt(i);
    else at += out.write(s, at, 'latin1');
    return;
  }
  const bytes = s.length * 2;
  room(7 + bytes);
  // V8 aligns a two-byte string's characters on an even offset.
  if ((at + 1 + varintBytes(bytes)) & 1) out[at++] = TAG.padding;
  out[at++] = TAG.twoByteString;
  writeVarint(bytes);
  at += out.write(s, at, 'utf16le');
}

function writeValue(v: unknown): void {
  room(1);
  switch (typeof v) {
    case 'number':
      return writeNumber(v);
    case 'string':
      return writeString(v);
    case 'boolean':
      out[at++] = v ? TAG.true : TAG.false;
      return;
    case 'undefined':
      out[at++] = TAG.undefined;
      return;
    case 'object':
      if (v === null) {
        out[at++] = TAG.null;
        return;
      }
      if (seenCount >= SMALL_COUNT) throw NOT_SMALL;
      for (let i = 0; i < seenCount; i++) if (seen[i] === v) throw NOT_SMALL; // V8 writes a back-reference
      seen[seenCount++] = v;
      if (Array.isArray(v)) return writeArray(v);
      if (Object.getPrototypeOf(v) === Object.prototype) return writeObject(v as Record<string, unknown>);
  }
  throw NOT_SMALL;
}

function writeArray(a: unknown[]): void {
  const n = a.length;
  // Holes (V8 writes a sparse array) and named properties (V8 writes them after the elements).
  if (n > SMALL_COUNT || Object.getPrototypeOf(a) !== Array.prototype || Object.keys(a).length !== n) throw NOT_SMALL;
  out[at++] = TAG.beginDenseArray;
  writeVarint(n);
  for (let i = 0; i < n; i++) writeValue(a[i]);
  room(1);
  out[at++] = TAG.endDenseArray;
  writeVarint(0);
  writeVarint(n);
}

function writeObject(o: Record<string, unknown>): void {
  const keys = Object.keys(o);
  if (keys.length > SMALL_COUNT) throw NOT_SMALL;
  out[at++] = TAG.beginObject;
  for (const key of keys) {
    const c = key.charCodeAt(0);
    if (c >= 0x30 && c <= 0x39) throw NOT_SMALL; // an index key: V8 writes it as a number
    writeString(key);
    writeValue(o[key]);
  }
  room(1);
  out[at++] = TAG.endObject;
  writeVarint(keys.length);
}

/**
 * `value` in v8.serialize's format, in a buffer that the next call overwrites: for a send that
 * completes before the program runs again (a blocking send, a collective's contribution).
 */
export function serializeTransient(value: unknown): Buffer {
  if (!KNOWN_VERSION || encoding) return v8.serialize(value);
  encoding = true;
  at = 0;
  try {
    room(2);
    out[at++] = TAG.version;
    out[at++] = VERSION;
    writeValue(value);
    // The same view again for a value of the same length (a loop's messages): no new Buffer.
    if (view.length !== at || view.buffer !== out.buffer) view = out.subarray(0, at);
    return view;
  } catch (e) {
    if (e !== NOT_SMALL) throw e;
    return v8.serialize(value);
  } finally {
    // Not kept alive by us once sent.
    while (seenCount > 0) seen[--seenCount] = undefined;
    encoding = false;
  }
}

/** `value` in v8.serialize's format, in a buffer of its own (a nonblocking send's). */
export function serialize(value: unknown): Buffer {
  const data = serializeTransient(value);
  return data.buffer === out.buffer ? Buffer.from(data) : data;
}

// --- decoding ---

let src: Buffer = out;
let pos = 0;
let end = 0; // the message is src[pos..end)

function readVarint(): number {
  let n = 0;
  let shift = 0;
  for (;;) {
    if (pos >= end || shift > 28) throw NOT_SMALL;
    const b = src[pos++];
    n += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return n;
    shift += 7;
  }
}

function readTag(): number {
  while (pos < end) {
    const tag = src[pos++];
    if (tag !== TAG.padding) return tag;
  }
  throw NOT_SMALL;
}

function readBytes(n: number): number {
  const start = pos;
  pos += n;
  if (pos > end) throw NOT_SMALL;
  return start;
}

function readValue(tag: number): unknown {
  switch (tag) {
    case TAG.int32: {
      const z = readVarint();
      return (z >>> 1) ^ -(z & 1); // an int32 (a Smi where it fits), as V8 makes it
    }
    case TAG.uint32:
      return readVarint();
    case TAG.double: {
      const start = readBytes(8);
      for (let i = 0; i < 8; i++) floatBytes[i] = src[start + i];
      return float[0];
    }
    case TAG.oneByteString: {
      const n = readVarint();
      const start = readBytes(n);
      if (n > 16) return src.toString('latin1', start, pos);
      let s = '';
      for (let i = start; i < pos; i++) s += String.fromCharCode(src[i]);
      return s;
    }
    case TAG.twoByteString: {
      const n = readVarint();
      const start = readBytes(n);
      return src.toString('utf16le', start, pos);
    }
    case TAG.beginObject:
      return readObject();
    case TAG.beginDenseArray:
      return readArray();
    case TAG.null:
      return null;
    case TAG.undefined:
      return undefined;
    case TAG.true:
      return true;
    case TAG.false:
      return false;
  }
  throw NOT_SMALL;
}

function readObject(): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  let count = 0;
  for (;;) {
    const tag = readTag();
    if (tag === TAG.endObject) {
      if (readVarint() !== count) throw NOT_SMALL;
      return o;
    }
    const key = readValue(tag);
    // Only string keys, and no key that an assignment would treat otherwise.
    if (typeof key !== 'string' || key === '__proto__') throw NOT_SMALL;
    o[key] = readValue(readTag());
    count++;
  }
}

function readArray(): unknown[] {
  const n = readVarint();
  if (n > SMALL_COUNT) throw NOT_SMALL;
  const a: unknown[] = [];
  for (let i = 0; i < n; i++) a.push(readValue(readTag()));
  if (readTag() !== TAG.endDenseArray || readVarint() !== 0 || readVarint() !== n) throw NOT_SMALL;
  return a;
}

/**
 * v8.deserialize of `data` (of its bytes from `start` to `end`). `transient`: the bytes will be
 * overwritten (a receive buffer used again), so what v8.deserialize returns must not alias them
 * (it makes typed arrays over the message's memory): it gets a copy.
 */
export function deserialize(data: Buffer, transient = false, start = 0, stop = data.length): unknown {
  if (KNOWN_VERSION && data[start] === TAG.version && data[start + 1] === VERSION && stop <= data.length) {
    src = data;
    pos = start + 2;
    end = stop;
    try {
      return readValue(readTag());
    } catch (e) {
      if (e !== NOT_SMALL) throw e;
    } finally {
      src = out;
    }
  }
  const message = start === 0 && stop === data.length ? data : data.subarray(start, stop);
  return v8.deserialize(transient ? Buffer.from(message) : message);
}
