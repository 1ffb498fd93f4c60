// The shared-memory algorithms' native schedules, replayed symbolically for every rank (no MPI
// launch): every byte lands where the collective says, no rank reads shared memory that another
// may still be writing, and no deadlock, over node layouts real runs on this 2-core host cannot
// reach (many nodes, uneven and interleaved nodes, several NUMA nodes and sockets).
import { describe, expect, it } from 'vitest';
import { verifyCollective } from '../../src/model/replay';
import { addon } from '../../src/mpi/native';
import type { CollectiveName } from '../../src/select/registry';
import type { Schedule, ScheduleParams } from '../../src/select/schedule';

const build = (coll: CollectiveName, algorithm: string, p: number, opts: ScheduleParams) => (rank: number): Schedule =>
  addon().buildSchedule(coll, algorithm, p, rank, opts);

/** Node of every rank: one node, blocks of 2 and 3, round-robin over 2, and an uneven list. */
function layouts(p: number): Array<{ name: string; nodes: number[] }> {
  const r = Array.from({ length: p }, (_, i) => i);
  return [
    { name: 'one node', nodes: r.map(() => 0) },
    { name: 'block:2', nodes: r.map((i) => Math.floor(i / 2)) },
    { name: 'block:3', nodes: r.map((i) => Math.floor(i / 3)) },
    { name: 'cyclic:2', nodes: r.map((i) => i % 2) },
    { name: 'uneven', nodes: r.map((i) => (i < 1 ? 0 : i < 4 ? 1 : 2)) },
  ];
}

const SIZES = [1, 2, 3, 4, 5, 7, 8, 12];

function expectOk(what: string, r: ReturnType<typeof verifyCollective>) {
  expect(r.error, what).toBeUndefined();
  expect(r.ok, what).toBe(true);
}

describe('shared-memory schedules replay correctly', () => {
  it.each(SIZES)('barrier shm_hierarchical, p=%i, sockets and nodes', (p) => {
    for (const { name, nodes } of layouts(p)) {
      for (const sockets of [nodes.map(() => 0), nodes.map((_, i) => i % 2)]) {
        const r = verifyCollective('barrier', p, build('barrier', 'shm_hierarchical', p, { nodes, sockets, count: 0 }), { nodes });
        expectOk(`${name} sockets ${sockets}`, r);
      }
    }
  });

  it.each(SIZES)('bcast shm_numa and hierarchical, p=%i, roots, sizes, NUMA parts, small data areas', (p) => {
    for (const { name, nodes } of layouts(p)) {
      const numa = nodes.map((_, i) => (i >> 1) % 2);
      for (const algorithm of ['shm_numa', 'hierarchical']) {
        // count x elementBytes: below and above the short-message bound; shmElements: roomy, and
        // so small that long messages go through it in several chunks.
        for (const [count, elementBytes, shmElements] of [
          [5, 1, 4096],
          [2000, 8, 1 << 17],
          [2000, 8, 300],
        ]) {
          for (const root of [...new Set([0, p - 1, p >> 1])]) {
            for (const bcastConcurrency of [0, 1]) {
              const opts = { nodes, numa, count, root, elementBytes, shmElements, bcastConcurrency };
              const r = verifyCollective('bcast', p, build('bcast', algorithm, p, opts), { nodes, shmElements });
              expectOk(`${algorithm} ${name} count ${count} root ${root} k ${bcastConcurrency}`, r);
            }
          }
        }
      }
    }
  });

  it.each(SIZES)('allgather hierarchical, p=%i, short and long, in place', (p) => {
    for (const { name, nodes } of layouts(p)) {
      // Short (all blocks fit the area), long through the pipelined node bcast, long in chunks.
      for (const [count, elementBytes, shmElements] of [
        [3, 4, 1 << 18],
        [30, 4096, 30 * p - 1],
        [30, 4096, 100],
      ]) {
        for (const inPlace of [false, true]) {
          const opts = { nodes, count, elementBytes, shmElements, inPlace };
          const r = verifyCollective('allgather', p, build('allgather', 'hierarchical', p, opts), { nodes, shmElements });
          expectOk(`${name} count ${count} shm ${shmElements} inPlace ${inPlace}`, r);
        }
      }
    }
  });

  it.each(SIZES)('alltoall tiled, p=%i, tiles that divide blocks and that do not', (p) => {
    for (const [count, tileBytes] of [
      [1, 0],
      [1000, 400],
      [1000, 4096],
      [1000, 1 << 20],
    ]) {
      for (const inPlace of [false, true]) {
        const r = verifyCollective('alltoall', p, build('alltoall', 'tiled', p, { count, elementBytes: 4, tileBytes, inPlace }));
        expectOk(`count ${count} tile ${tileBytes} inPlace ${inPlace}`, r);
      }
    }
  });
});

describe('what the schedules are made of', () => {
  it('the barrier climbs socket masters and the node leader over flags only', () => {
    // 8 ranks, 2 nodes of 4, 2 sockets per node: rank 1 (socket 1 of node 0) is a socket master.
    const nodes = [0, 0, 0, 0, 1, 1, 1, 1];
    const sockets = [0, 1, 0, 1, 0, 1, 0, 1];
    const s = (rank: number) => addon().buildSchedule('barrier', 'shm_hierarchical', 8, rank, { nodes, sockets });
    const ops = (rank: number) => s(rank).rounds.flat();
    expect(s(0).shm).toBe('flags');
    // Rank 3 reports to its socket master 1, which reports to leader 0.
    expect(ops(3)).toContainEqual({ kind: 'flag_wait', peer: 3, slot: 0, stage: 2 });
    expect(ops(1)).toContainEqual({ kind: 'flag_wait', peer: 3, slot: 0, stage: 1 });
    expect(ops(0)).toContainEqual({ kind: 'flag_wait', peer: 1, slot: 0, stage: 1 });
    expect(ops(0)).not.toContainEqual(expect.objectContaining({ kind: 'flag_wait', peer: 3 }));
    // Only the leaders exchange messages, and only with each other.
    for (let r = 0; r < 8; r++) {
      const peers = ops(r).filter((o) => o.kind === 'send' || o.kind === 'recv').map((o) => (o as { peer: number }).peer);
      if (r === 0 || r === 4) expect(new Set(peers)).toEqual(new Set([4 - r]));
      else expect(peers).toEqual([]);
    }
  });

  it('shm_numa limits the readers of a segment to k and starts each group on its own NUMA node', () => {
    // One node of 7 ranks on 2 NUMA nodes (0-3 on 0, 4-6 on 1), k = 2.
    const numa = [0, 0, 0, 0, 1, 1, 1];
    const opts = { numa, count: 1 << 20, elementBytes: 1, shmElements: 1 << 20, bcastConcurrency: 2 };
    const firstSegment = (rank: number) => {
      const s: Schedule = addon().buildSchedule('bcast', 'shm_numa', 7, rank, opts);
      const copy = s.rounds.flat().find((o) => o.kind === 'copy')!;
      return (copy as { src: { first: number } }).src.first;
    };
    const part = (1 << 20) / 2;
    // Ranks 1 and 2 (NUMA 0, first group) start in part 0; rank 3 (second group of NUMA 0) elsewhere;
    // ranks 4 and 5 (NUMA 1) start in part 1.
    expect(firstSegment(1)).toBeLessThan(part);
    expect(firstSegment(2)).toBe(firstSegment(1));
    expect(firstSegment(3)).not.toBe(firstSegment(1));
    expect(firstSegment(4)).toBeGreaterThanOrEqual(part);
    expect(firstSegment(5)).toBe(firstSegment(4));
  });

  it('tiled alltoall cuts blocks into tiles of TOPOCOLL_ALLTOALL_TILE_BYTES', () => {
    const s: Schedule = addon().buildSchedule('alltoall', 'tiled', 4, 0, { count: 1000, elementBytes: 4, tileBytes: 1000 });
    expect(s.unitsPerBlock).toBe(1000);
    const sends = s.rounds.flat().filter((o) => o.kind === 'send') as Array<{ src: { count: number } }>;
    expect(sends).toHaveLength(3 * 4);
    expect(new Set(sends.map((o) => o.src.count))).toEqual(new Set([250]));
  });
});
