// The hierarchical allreduce and reduce (native/engine/{allreduce,reduce}/hierarchical.cc over
// shm/node_reduce.h), built by the addon for every rank and replayed symbolically
// (src/model/replay.ts): every element of the result combines every rank's operand once, in rank
// order for an op that is not commutative, and no rank touches the node's shared data area
// unordered with another (the replayer's vector clocks). Every p = 1..64 over node layouts real
// runs on this host cannot reach (many nodes, uneven and interleaved nodes, bound sockets), whole
// and sliced node reductions, one chunk and many, and areas too small for any.
import { describe, expect, it } from 'vitest';
import { verifyCollective } from '../../src/model/replay';
import { addon } from '../../src/mpi/native';
import type { Schedule, ScheduleOp, ScheduleParams } from '../../src/select/schedule';

const native = addon();
type Coll = 'allreduce' | 'reduce';

const build = (coll: Coll, p: number, opts: ScheduleParams): Schedule[] =>
  Array.from({ length: p }, (_, rank) => native.buildSchedule(coll, 'hierarchical', p, rank, opts) as Schedule);

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const yieldToWorker = () => new Promise((resolve) => setImmediate(resolve));

/** Node of every rank: one node, blocks of 2, 3 and 8, round-robin over 3, and an uneven split. */
function layouts(p: number): Array<{ name: string; nodes: number[] }> {
  const r = range(0, p - 1);
  return [
    { name: 'one node', nodes: r.map(() => 0) },
    { name: 'block:2', nodes: r.map((i) => Math.floor(i / 2)) },
    { name: 'block:3', nodes: r.map((i) => Math.floor(i / 3)) },
    { name: 'block:8', nodes: r.map((i) => Math.floor(i / 8)) },
    { name: 'cyclic:3', nodes: r.map((i) => i % 3) },
    { name: 'uneven', nodes: r.map((i) => (i < 1 ? 0 : i < 4 ? 1 : 2)) },
  ];
}

/** Sockets of bound ranks: none given; the first half of each node on socket 0 (runs); alternating. */
function socketLayouts(nodes: number[]): Array<{ name: string; sockets?: number[] }> {
  const local = nodes.map((n, i) => nodes.slice(0, i).filter((m) => m === n).length);
  const size = nodes.map((n) => nodes.filter((m) => m === n).length);
  return [
    { name: 'no sockets' },
    { name: 'socket runs', sockets: local.map((l, i) => (2 * l < size[i] ? 0 : 1)) },
    { name: 'alternating sockets', sockets: local.map((l) => l % 2) },
  ];
}

interface Case {
  count: number;
  elementBytes: number;
  /** The data area: roomy, `chunks` chunks of the largest node's slots, or too small for an element per rank. */
  area: 'roomy' | 'too small' | { chunks: number };
  inPlace: boolean;
  commutative: boolean;
}

/**
 * Whole (short: 4-byte elements) and sliced (4 KiB elements), each in one chunk and in several
 * (alternating halves of the area), and an area too small for one element per rank.
 */
function casesFor(p: number): Case[] {
  const n = 2 * p + 3;
  return [
    { count: 7, elementBytes: 4, area: 'roomy', inPlace: false, commutative: true },
    { count: 1, elementBytes: 4, area: 'roomy', inPlace: true, commutative: false },
    { count: n, elementBytes: 4096, area: 'roomy', inPlace: true, commutative: true },
    { count: n, elementBytes: 4096, area: 'roomy', inPlace: false, commutative: false },
    { count: n, elementBytes: 4096, area: { chunks: 3 }, inPlace: false, commutative: true },
    { count: n + 1, elementBytes: 4096, area: { chunks: 5 }, inPlace: true, commutative: false },
    { count: n, elementBytes: 4, area: { chunks: 3 }, inPlace: true, commutative: false },
    { count: n + 2, elementBytes: 4, area: { chunks: 4 }, inPlace: false, commutative: true },
    { count: n, elementBytes: 4, area: 'too small', inPlace: false, commutative: true },
    { count: 0, elementBytes: 4, area: 'roomy', inPlace: false, commutative: true },
  ];
}

function check(coll: Coll, p: number, nodes: number[], sockets: number[] | undefined, c: Case, root = 0): void {
  const largest = Math.max(...nodes.map((n) => nodes.filter((m) => m === n).length));
  const { area, ...rest } = c;
  const shmElements = area === 'roomy' ? 1 << 20 : area === 'too small' ? 2 * largest - 1 : 2 * largest * Math.ceil(c.count / area.chunks);
  const opts: ScheduleParams = { nodes, sockets, root, shmElements, ...rest };
  const result = verifyCollective(coll, p, build(coll, p, opts), { nodes, shmElements, rankOrdered: !c.commutative });
  if (!result.ok) throw new Error(`${coll} p=${p} ${JSON.stringify(opts)}: ${result.error}`);
}

describe('hierarchical reductions replay to the full reduction, race-free', () => {
  it('the native build registers them, as combining in rank order over shared memory', () => {
    expect(native.registeredAlgorithms().allreduce).toContain('hierarchical');
    expect(native.registeredAlgorithms().reduce).toContain('hierarchical');
  });

  it.each(['allreduce', 'reduce'] as const)(
    '%s, p = 1..64, node and socket layouts, whole, sliced, chunked, fallback, in place, non-commutative',
    async (coll) => {
      let checked = 0;
      for (const p of range(1, 64)) {
        await yieldToWorker();
        const cases = casesFor(p);
        for (const [l, { nodes }] of layouts(p).entries()) {
          for (const [s, { sockets }] of socketLayouts(nodes).entries()) {
            // Up to 12 ranks every case and root on every layout; above (where building and
            // replaying 64 schedules costs), one case and root per layout in turn, sockets in turn.
            const few = p > 12;
            if (few && s !== 0 && s !== 1 + ((p + l) % 2)) continue;
            const turn = p + 3 * l + s;
            const roots = coll === 'reduce' ? [...new Set([0, p - 1, p >> 1])] : [0];
            for (const c of few ? [cases[turn % cases.length]] : cases) {
              for (const root of few ? [roots[turn % roots.length]] : roots) check(coll, p, nodes, sockets, c, root);
              checked += 1;
            }
          }
        }
      }
      expect(checked).toBeGreaterThan(12 * 6 * 3 * 8);
    },
    300_000,
  );
});

describe('hierarchical allreduce with a leader per part on nodes of one size (lanes), replayed', () => {
  it('p = 4..32 on nodes of 2, 3 and 4 ranks, one chunk and several, in place, non-commutative', async () => {
    let checked = 0;
    for (const p of [4, 6, 8, 9, 12, 16, 24, 32]) {
      await yieldToWorker();
      for (const k of [2, 3, 4]) {
        if (p % k !== 0 || p === k) continue;
        const nodes = range(0, p - 1).map((i) => Math.floor(i / k));
        // 17 to 40 elements of 1 MiB (lanes from 16 MiB), in one chunk, in several, in many.
        for (const [count, area] of [
          [17, 'roomy'],
          [40, { chunks: 3 }],
          [33, { chunks: 9 }],
        ] as const) {
          for (const inPlace of [false, true]) {
            for (const commutative of [true, false]) {
              check('allreduce', p, nodes, undefined, { count, elementBytes: 1 << 20, area, inPlace, commutative });
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  }, 120_000);
});

const opsOf = (s: Schedule) => s.rounds.flat();
const ofKind = <K extends ScheduleOp['kind']>(s: Schedule, kind: K) => opsOf(s).filter((o) => o.kind === kind) as Extract<ScheduleOp, { kind: K }>[];
const messagePeers = (s: Schedule) => opsOf(s).flatMap((o) => (o.kind === 'send' || o.kind === 'recv' ? [o.peer] : []));

describe('what the hierarchical reductions are made of', () => {
  it('one node, sliced: each rank combines its own slice, from the shared area into slot 0, and everyone reads the result', () => {
    const p = 4;
    const count = 40;
    for (const rank of range(0, p - 1)) {
      const s = build('allreduce', p, { count, elementBytes: 4096, shmElements: 1 << 20 })[rank];
      expect(s.shm).toBe('data');
      expect(messagePeers(s)).toEqual([]);
      const reduces = ofKind(s, 'reduce');
      // p - 1 combinations of my 10 elements, each from slot j into slot 0, the lower rank on the left.
      expect(reduces.map((o) => [o.src.buf, o.src.first, o.dst.buf, o.dst.first, o.src.count, o.order])).toEqual(
        range(1, p - 1).map((j) => ['shm', j * count + 10 * rank, 'shm', 10 * rank, 10, 'dst_first']),
      );
      expect(ofKind(s, 'copy').at(-1)).toEqual({ kind: 'copy', src: { buf: 'shm', first: 0, count }, dst: { buf: 'recv', first: 0, count } });
    }
  });

  it('one node, short (or of two ranks): one flag handoff, every rank combines the whole vector in rank order', () => {
    const s = build('allreduce', 3, { count: 5, elementBytes: 8, shmElements: 1 << 20 })[1];
    expect(s.rounds).toHaveLength(2);
    expect(ofKind(s, 'flag_wait').map((o) => o.peer)).toEqual([0, 2]);
    expect(ofKind(s, 'reduce').map((o) => o.src.buf)).toEqual(['send', 'shm']);
    // Two ranks, 256 KiB: still whole (slices would take two handoffs and a copy out).
    for (const rank of [0, 1]) expect(build('allreduce', 2, { count: 1 << 16, elementBytes: 4, shmElements: 1 << 20 })[rank].rounds).toHaveLength(2);
  });

  it('long vectors go through the area in chunks, alternating halves', () => {
    const p = 3;
    const count = 100;
    const shmElements = 60; // 10 elements per slot and half
    const s = build('allreduce', p, { count, elementBytes: 4096, shmElements })[0];
    const puts = ofKind(s, 'copy').filter((o) => o.dst.buf === 'shm');
    expect(puts.map((o) => o.dst.first)).toEqual([0, 30, 0, 30, 0, 30, 0, 30, 0, 30]);
    // Combining chunk 1 waits until rank 1 has put chunk 1 in (stage 4 x 1 + 1), which it does
    // only once done with chunk 0: the put of chunk 2 into chunk 0's half needs no wait of its own.
    const put = (t: number) => s.rounds.findIndex((r) => r.some((o) => o.kind === 'copy' && o.src.first === 10 * t && o.dst.buf === 'shm'));
    expect(s.rounds[put(1) + 1]).toContainEqual({ kind: 'flag_wait', peer: 1, slot: 1, stage: 5 });
    expect(s.rounds[put(2)].filter((o) => o.kind === 'flag_wait')).toEqual([]);
  });

  it('several nodes of one size, long vectors: every rank leads its part of the vector among the same-index ranks of the other nodes', () => {
    const nodes = [0, 0, 1, 1, 2, 2, 3, 3];
    const count = 1 << 16; // of 256-byte elements: 16 MiB
    const schedules = build('allreduce', 8, { nodes, count, elementBytes: 256, shmElements: 1 << 18 });
    for (const [rank, s] of schedules.entries()) {
      // The ring among the same-index ranks of the 4 nodes: neighbours 2 nodes away in ranks.
      expect(new Set(messagePeers(s))).toEqual(new Set([(rank + 2) % 8, (rank + 6) % 8]));
      // A lane moves its part of the vector: the first half for the nodes' first ranks, the second for the others.
      const [lo, hi] = rank % 2 === 0 ? [0, count / 2] : [count / 2, count];
      for (const o of opsOf(s)) {
        const at = o.kind === 'send' ? o.src : o.kind === 'recv' ? o.dst : undefined;
        if (at?.buf === 'recv') expect([at.first, at.first + at.count].every((e) => e >= lo && e <= hi)).toBe(true);
      }
    }
    const result = verifyCollective('allreduce', 8, schedules, { nodes, shmElements: 1 << 18 });
    expect(result.error).toBeUndefined();
  });

  it('reduce, short vectors in chunks: the root combines each chunk whole, puts nothing, and the other ranks wait for it to reuse a half', () => {
    const [root, other] = build('reduce', 2, { count: 100, elementBytes: 4, shmElements: 40 });
    expect(opsOf(root).some((o) => o.kind === 'copy' && o.dst.buf === 'shm')).toBe(false);
    expect(ofKind(root, 'reduce').map((o) => [o.src.buf, o.src.first, o.dst.buf, o.dst.first])).toEqual(
      range(0, 9).map((t) => ['shm', 20 * (t % 2) + 10, 'recv', 10 * t]),
    );
    const puts = other.rounds.filter((r) => r.some((o) => o.kind === 'copy' && o.dst.buf === 'shm'));
    expect(puts).toHaveLength(10);
    expect(puts[2]).toContainEqual({ kind: 'flag_wait', peer: 0, slot: 1, stage: 4 });
  });

  it('several nodes: only the leaders exchange messages, and the result reaches the node through shared memory', () => {
    const nodes = [0, 0, 0, 1, 1, 1, 2, 2];
    const schedules = build('allreduce', 8, { nodes, count: 1000, elementBytes: 8, shmElements: 1 << 17 });
    for (const [rank, s] of schedules.entries()) {
      const leaders = [0, 3, 6];
      if (leaders.includes(rank)) expect(new Set(messagePeers(s))).toEqual(new Set(leaders.filter((l) => l !== rank)));
      else expect(messagePeers(s)).toEqual([]);
    }
    // A reader copies the result out of the area into its receive buffer.
    expect(ofKind(schedules[4], 'copy').some((o) => o.src.buf === 'shm' && o.dst.buf === 'recv')).toBe(true);
  });

  it('a socket level where bound ranks share sockets: socket slices first, then one partial result per socket', () => {
    const sockets = [0, 0, 1, 1];
    const s = build('allreduce', 4, { sockets, count: 8, elementBytes: 4096, shmElements: 1 << 20 })[1];
    const reduces = ofKind(s, 'reduce');
    // Rank 1 (second of socket 0): slot 1 into slot 0 over its socket slice (elements 4..8), then
    // slot 2 (socket 1's partial result) into slot 0 over its node slice (elements 2..4).
    expect(reduces.map((o) => [o.src.first, o.dst.first, o.src.count])).toEqual([
      [8 + 4, 4, 4],
      [16 + 2, 2, 2],
    ]);
    // Unbound ranks (no sockets given) have no socket level.
    expect(ofKind(build('allreduce', 4, { count: 8, elementBytes: 4096, shmElements: 1 << 20 })[1], 'reduce')).toHaveLength(3);
  });

  it('an op that is not commutative on interleaved nodes: a flat allreduce over all ranks, said in the note', () => {
    const nodes = [0, 1, 0, 1];
    const s = build('allreduce', 4, { nodes, count: 4, elementBytes: 4, shmElements: 1 << 20, commutative: false })[0];
    expect(s.shm).toBe('none');
    expect(s.note).toMatch(/not commutative and the nodes are not runs of ranks/);
    expect(build('allreduce', 4, { nodes, count: 4, elementBytes: 4, shmElements: 1 << 20 })[0].shm).toBe('data');
  });

  it('reduce: the root leads its node and gets the result; other ranks hold no receive buffer', () => {
    const nodes = [0, 0, 1, 1, 1];
    const root = 3;
    const schedules = build('reduce', 5, { nodes, root, count: 1000, elementBytes: 8, shmElements: 1 << 17 });
    expect(new Set(messagePeers(schedules[3]))).toEqual(new Set([0]));
    expect(new Set(messagePeers(schedules[0]))).toEqual(new Set([3]));
    for (const rank of [1, 2, 4]) expect(messagePeers(schedules[rank])).toEqual([]);
    for (const rank of [0, 1, 2, 4]) {
      expect(opsOf(schedules[rank]).some((o) => ('src' in o && o.src.buf === 'recv') || ('dst' in o && o.dst.buf === 'recv'))).toBe(false);
    }
  });
});
