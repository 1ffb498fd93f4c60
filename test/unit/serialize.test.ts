// Object mode's codec (src/mpi/serialize.ts) against node's v8.serialize/v8.deserialize: the same
// bytes for the small plain values it encodes itself, and a round trip through either side for
// everything (what it hands to V8 included), so that ranks read each other's messages.
import v8 from 'node:v8';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { deserialize, serialize, serializeTransient } from '../../src/mpi/serialize';

const small: unknown[] = [
  null,
  undefined,
  true,
  false,
  0,
  -0,
  1,
  -1,
  2 ** 30,
  -(2 ** 31),
  2 ** 31 - 1,
  2 ** 31,
  2 ** 53,
  -1.5,
  NaN,
  -Infinity,
  '',
  'x',
  'é',
  '€',
  'ab€',
  'x'.repeat(40),
  'é€'.repeat(30),
  [],
  {},
  [1, 'a', [2, {}]],
  { a: 1, b: 'x' },
  { '€': 'é', nested: { deep: [null, undefined, true, 0.25] } },
];

const shared = { s: 1 };
const cyclic: Record<string, unknown> = {};
cyclic.self = cyclic;
const others: unknown[] = [
  new Date(0),
  2n ** 70n,
  [1, , 3],
  Object.assign([1], { named: 1 }),
  { 1: 'an index key' },
  new Map([[1, 2]]),
  new Set(['a']),
  new Uint8Array([1, 2, 3]),
  new Float64Array([1.5, 2]),
  { a: shared, b: shared },
  cyclic,
  Array.from({ length: 100 }, (_, i) => i),
  new (class Point {
    x = 1;
  })(),
  JSON.parse('{"__proto__": 5}'),
  /re/g,
];

describe('object mode codec', () => {
  it.each(small.map((v) => [v]))('writes V8’s own bytes for %o', (value) => {
    expect(serialize(value).equals(v8.serialize(value))).toBe(true);
  });

  it.each([...small, ...others].map((v) => [v]))('round-trips %o through either side', (value) => {
    const ours = serialize(value);
    const theirs = v8.serialize(value);
    const want = v8.deserialize(theirs);
    for (const got of [deserialize(ours), deserialize(theirs), v8.deserialize(ours)]) {
      expect(isDeepStrictEqual(got, want) || (Number.isNaN(got) && Number.isNaN(want))).toBe(true);
    }
  });

  it('keeps -0 and shared references as V8 does', () => {
    expect(Object.is(deserialize(serialize(-0)), -0)).toBe(true);
    const both = deserialize(serialize({ a: shared, b: shared })) as { a: object; b: object };
    expect(both.a).toBe(both.b);
  });

  it('makes own properties, never a prototype, of a "__proto__" key', () => {
    const got = deserialize(v8.serialize(JSON.parse('{"__proto__": {"polluted": 1}}'))) as Record<string, unknown>;
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.keys(got)).toEqual(['__proto__']);
  });

  it('gives a nonblocking send a buffer of its own, a blocking one the reused buffer', () => {
    const a = serialize({ a: 1 });
    serialize({ a: 2 });
    expect(deserialize(a)).toEqual({ a: 1 });
    const t = serializeTransient({ a: 3 });
    serializeTransient({ a: 4 });
    expect(deserialize(t)).toEqual({ a: 4 });
  });

  it('encodes a value whose getter sends an object while it is being encoded', () => {
    const inner = { get nested() {
      return deserialize(serializeTransient({ inner: true }));
    } };
    const data = serialize({ outer: 1, inner });
    expect(v8.deserialize(data)).toEqual({ outer: 1, inner: { nested: { inner: true } } });
  });

  it('copies a transient message that V8 reads (its typed arrays would alias the bytes)', () => {
    const data = Buffer.from(v8.serialize(new Float64Array([1, 2])));
    const got = deserialize(data, true) as Float64Array;
    data.fill(0);
    expect([...got]).toEqual([1, 2]);
  });

  it('reads a message inside a larger buffer, and no further than its end', () => {
    const m = serialize({ a: 1, b: 'x' });
    const framed = Buffer.concat([Buffer.from([9, 9, 9]), m, Buffer.from([0x22, 0x01, 0x78])]);
    expect(deserialize(framed, true, 3, 3 + m.length)).toEqual({ a: 1, b: 'x' });
    expect(() => deserialize(framed, true, 3, 3 + m.length - 1)).toThrow();
  });

  it('throws V8’s error for bytes that are no message', () => {
    expect(() => deserialize(Buffer.from([0xff, 0x0f, 0x6f, 0x22]))).toThrow();
    expect(() => deserialize(Buffer.from([1, 2, 3]))).toThrow();
  });
});
