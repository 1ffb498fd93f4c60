import { describe, expect, it } from 'vitest';
import { verifyCollective } from '../../src/model/replay';
import type { BlockSpan, Schedule, ScheduleOp } from '../../src/select/schedule';
import {
  binomialBcast,
  bruckAllgather,
  bruckAlltoall,
  copy,
  deadlockingRingAllgather,
  disseminationBarrier,
  neighborExchangeAllgather,
  pairwiseAlltoall,
  hierarchicalAllgather,
  recursiveDoublingAllgather,
  recv,
  ringAllgather,
  schedule,
  send,
  shmRelayBcast,
  signal,
  span,
  wait,
} from './model-builders';

const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const ceilLog2 = (p: number) => Math.ceil(Math.log2(p));

function expectOk(result: ReturnType<typeof verifyCollective>) {
  expect(result.error).toBeUndefined();
  expect(result.ok).toBe(true);
}

describe('replay of correct schedules', () => {
  it.each(range(1, 40))('ring allgather, p=%i, in place and not', (p) => {
    for (const inPlace of [false, true]) {
      const r = verifyCollective('allgather', p, (rank) => ringAllgather(p, rank, inPlace));
      expectOk(r);
      expect(r.messages.length).toBe(p * (p - 1));
      expect(r.rounds).toBe(inPlace ? p - 1 : p);
    }
  });

  it.each(range(1, 70))('bruck allgather, p=%i', (p) => {
    for (const inPlace of [false, true]) {
      const r = verifyCollective('allgather', p, (rank) => bruckAllgather(p, rank, inPlace));
      expectOk(r);
      expect(r.messages.length).toBe(p * ceilLog2(p));
      // Every rank receives the p-1 other blocks exactly once.
      expect(r.messages.totalBlocks()).toBe(p * (p - 1));
    }
  });

  it.each([1, 2, 4, 8, 16, 64, 256])('recursive doubling allgather, p=%i', (p) => {
    expectOk(verifyCollective('allgather', p, (rank) => recursiveDoublingAllgather(p, rank)));
  });

  it.each(range(1, 32).map((n) => 2 * n))('neighbor exchange allgather, p=%i: p/2 steps', (p) => {
    const r = verifyCollective('allgather', p, (rank) => neighborExchangeAllgather(p, rank));
    expectOk(r);
    expect(r.rounds).toBe(p / 2);
  });

  it.each(range(1, 40))('pairwise and bruck alltoall, p=%i', (p) => {
    expectOk(verifyCollective('alltoall', p, (rank) => pairwiseAlltoall(p, rank)));
    const bruck = verifyCollective('alltoall', p, (rank) => bruckAlltoall(p, rank));
    expectOk(bruck);
    expect(bruck.messages.length).toBe(p * ceilLog2(p));
  });

  it.each(range(1, 40))('binomial bcast, p=%i, every root', (p) => {
    for (let root = 0; root < p; root++) {
      for (const count of [0, 1, 5]) {
        const r = verifyCollective('bcast', p, (rank) => binomialBcast(p, rank, root, count));
        expectOk(r);
        expect(r.messages.length).toBe(p - 1);
      }
    }
  });

  it.each(range(1, 70))('dissemination barrier, p=%i', (p) => {
    const r = verifyCollective('barrier', p, (rank) => disseminationBarrier(p, rank));
    expectOk(r);
    expect(r.rounds).toBe(ceilLog2(p));
  });

  it('accepts an array of schedules', () => {
    const p = 6;
    const schedules = range(0, p - 1).map((rank) => bruckAllgather(p, rank));
    expectOk(verifyCollective('allgather', p, schedules));
  });

  it('records every message with its round, ends and size', () => {
    const r = verifyCollective('allgather', 4, (rank) => bruckAllgather(4, rank));
    const all = r.messages.toArray();
    expect(all).toHaveLength(8);
    // Step 0: rank i sends 1 block to i-1 in its round 0; step 1: 2 blocks to i-2 in round 1.
    expect(all.filter((m) => m.round === 0).every((m) => m.blocks === 1 && m.dst === (m.src + 3) % 4)).toBe(true);
    expect(all.filter((m) => m.round === 1).every((m) => m.blocks === 2 && m.dst === (m.src + 2) % 4)).toBe(true);
  });

  it('replays a 1024-rank Bruck allgather quickly', () => {
    const p = 1024;
    const t0 = performance.now();
    const r = verifyCollective('allgather', p, (rank) => bruckAllgather(p, rank));
    const ms = performance.now() - t0;
    expectOk(r);
    expect(r.messages.length).toBe(p * 10);
    console.log(`replay: bruck allgather p=1024 in ${ms.toFixed(0)} ms`);
  });
});

describe('replay rejects broken schedules', () => {
  it('a Bruck allgather without its final rotation', () => {
    const r = verifyCollective('allgather', 5, (rank) => bruckAllgather(5, rank, false, false));
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/final state: rank 1 recv\[0\] holds the block of rank 1, expected the block of rank 0/);
  });

  it('a ring whose ranks all receive before they send: deadlock', () => {
    const r = verifyCollective('allgather', 4, (rank) => deadlockingRingAllgather(4, rank));
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^deadlock: 4 of 4 ranks cannot finish; rank 0 round 1 waits for a message from 3 \(rank 3 is in round 1\)/);
  });

  it('an exchange that only works with eager buffering', () => {
    // Both ranks send in round 0 and receive in round 1: fine for small messages, a deadlock
    // once MPI switches to rendezvous.
    const build = (rank: number) =>
      schedule('allgather', 'eager_only', 2, rank, [
        [send(1 - rank, span('send', 0, 1)), copy(span('send', 0, 1), span('recv', rank, 1))],
        [recv(1 - rank, span('recv', 1 - rank, 1))],
      ]);
    const r = verifyCollective('allgather', 2, build);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/deadlock/);
    expect(r.error).toMatch(/never received/);
  });

  it('a send nobody receives', () => {
    const build = (rank: number): Schedule => {
      const s = ringAllgather(3, rank);
      if (rank === 0) s.rounds.push([send(1, span('recv', 0, 1))]);
      return s;
    };
    const r = verifyCollective('allgather', 3, build);
    expect(r.ok).toBe(false);
    expect(r.error).toBe('deadlock: 1 of 3 ranks cannot finish; rank 0 round 3 its send of 1 units to 1 is never received (rank 1 has finished)');
  });

  it('a receive whose size differs from the send', () => {
    const build = (rank: number): Schedule => {
      const s = ringAllgather(4, rank);
      if (rank === 2) s.rounds[1] = [s.rounds[1][0], recv(1, span('recv', 0, 2))];
      return s;
    };
    const r = verifyCollective('allgather', 4, build);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/rank 2 round 1: receive from 1 expects 2 units but the matching send \(rank 1 round 1\) carries 1/);
  });

  it('a receive into a block that a send of the same round reads', () => {
    const build = (rank: number) => {
      const s = ringAllgather(3, rank);
      s.rounds[1] = [send((rank + 1) % 3, span('recv', rank, 1)), recv((rank + 2) % 3, span('recv', rank, 1))];
      return s;
    };
    const r = verifyCollective('allgather', 3, build);
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/rank 0 round 1: a send reads what a receive writes in recv\[0\] in the same round/);
  });

  it('spans outside their buffer, peers outside the communicator, wrong headers', () => {
    const outside = verifyCollective('allgather', 3, (rank) => ({ ...ringAllgather(3, rank), rounds: [[copy(span('send', 0, 2), span('recv', 0, 2))]] }));
    expect(outside.error).toMatch(/rank 0 round 0: span send\[0\.\.2\) exceeds the 1-unit send buffer/);
    const tmp = verifyCollective('allgather', 3, (rank) => ({ ...bruckAllgather(3, rank), tmpBlocks: 2 }));
    expect(tmp.error).toMatch(/exceeds the 2-unit tmp buffer/);
    const peer = verifyCollective('allgather', 3, (rank) => ({ ...ringAllgather(3, rank), rounds: [[send(3, span('send', 0, 1))]] }));
    expect(peer.error).toMatch(/peer 3 is not a rank of a 3-rank communicator/);
    const header = verifyCollective('allgather', 3, () => ringAllgather(3, 0));
    expect(header.error).toMatch(/rank 1: schedule was built for rank 0 of 3/);
    const coll = verifyCollective('bcast', 3, (rank) => ringAllgather(3, rank));
    expect(coll.error).toMatch(/is for allgather, not bcast/);
  });

  it('malformed ops, refused by the engine that compiles them, by rank, round and op', () => {
    // Rank 1 of a 2-rank allgather: its round 0 is `ops`, the ring's round 1 follows.
    const given = (ops: unknown[], extra = {}) => (rank: number) => {
      const s = ringAllgather(2, rank);
      return rank === 1 ? { ...s, ...extra, rounds: [ops as ScheduleOp[], ...s.rounds.slice(1)] } : s;
    };
    const error = (ops: unknown[], extra = {}) => verifyCollective('allgather', 2, given(ops, extra)).error;
    expect(error([{ kind: 'put', peer: 0 }])).toBe('rank 1 round 0 op 0 (put): unknown op kind');
    expect(error([copy(span('send', 0, 1), span('recv', 1, 1)), { kind: 'recv', peer: 0 }])).toBe('rank 1 round 0 op 1 (recv): missing block span');
    expect(error([send(0, { buf: 'stack', first: 0, count: 1 } as unknown as BlockSpan)])).toBe("rank 1 round 0 op 0 (send): unknown buffer 'stack' (send, recv, tmp, shm)");
    expect(error([send(0, span('send', 0.5, 1))])).toBe('rank 1 round 0 op 0 (send): first must be a whole number, got 0.5');
    expect(error([send(0, span('send', -1, 1))])).toBe('rank 1 round 0 op 0 (send): span first/count must be non-negative integers, got -1/1');
    expect(error([send(0, span('send', 0, 2 ** 31))])).toBe('rank 1 round 0 op 0 (send): span first/count 0/2147483648 does not fit the model\'s 32-bit counts');
    expect(error([copy(span('send', 0, 2), span('recv', 1, 1))])).toBe('rank 1 round 0 op 0 (copy): copies 2 units into a 1-unit span');
    expect(error([{ kind: 'reduce', src: span('send', 0, 1), dst: span('recv', 1, 1), order: 'left' }])).toBe("rank 1 round 0 op 0 (reduce): order must be 'src_first' or 'dst_first', got left");
    expect(error([signal(1, 64, 1)])).toBe('rank 1 round 0 op 0 (flag_signal): flag slot 64 is not in [0, 64)');
    expect(error([wait(0, 1, 0)])).toBe('rank 1 round 0 op 0 (flag_wait): flag stage 0 is not in [1, 16777215]');
    expect(error([send(-1, span('send', 0, 1))])).toBe('rank 1 round 0 op 0 (send): peer -1 is not a rank of a 2-rank communicator');
    expect(error([{ kind: 'send', src: span('send', 0, 1) }])).toBe('rank 1 round 0 op 0 (send): peer must be a whole number, got undefined');
    expect(error(['send'])).toBe('rank 1 round 0 op 0: an op must be an object');
    // The header's unitsPerBlock must agree across ranks before it is compiled.
    expect(verifyCollective('allgather', 1, [{ ...ringAllgather(1, 0), unitsPerBlock: 0 }]).error).toBe('rank 0: unitsPerBlock must be a positive integer, got 0');
  });

  it('a barrier missing its last round', () => {
    const r = verifyCollective('barrier', 5, (rank) => disseminationBarrier(5, rank, true));
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/^barrier: rank 0 can finish before rank 1 has started \(no chain of messages or flags from 1 to 0\)/);
  });

  it('a bcast from the wrong root', () => {
    const r = verifyCollective('bcast', 4, (rank) => binomialBcast(4, rank, 0, 3), { root: 1 });
    expect(r.ok).toBe(false);
    expect(r.error).toMatch(/schedule has root 0, expected 1/);
  });
});

describe('replay of shared-memory schedules (flags and the node data area)', () => {
  const blockNodes = (p: number, k: number) => Array.from({ length: p }, (_, r) => Math.floor(r / k));
  const cyclicNodes = (p: number, n: number) => Array.from({ length: p }, (_, r) => r % n);

  it('hierarchical allgather on block, cyclic and uneven node layouts', () => {
    const layouts: number[][] = [];
    for (let p = 2; p <= 24; p++) {
      for (const k of [2, 3, 4, 8]) if (p % k === 0 || p > k) layouts.push(blockNodes(p, k).map((n, r, all) => (all.filter((x) => x === n).length < 2 ? n - 1 : n)));
      if (p >= 4) layouts.push(cyclicNodes(p, Math.floor(p / 2)));
    }
    layouts.push([0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3]);
    for (const nodes of layouts) {
      const p = nodes.length;
      const r = verifyCollective('allgather', p, (rank) => hierarchicalAllgather(p, rank, nodes), { nodes });
      expect(r.error, JSON.stringify(nodes)).toBeUndefined();
    }
  });

  it('rejects a reader that does not wait for the flag of the block it reads', () => {
    const nodes = [0, 0, 0, 0];
    const r = verifyCollective('allgather', 4, (rank) => hierarchicalAllgather(4, rank, nodes, true), { nodes });
    // Which of the two accesses the replay meets second depends on its order; either names both.
    expect(r.error).toMatch(
      /^shared-memory race on node 0: (rank 0 round 1 reads shm\[1\], which rank 1 writes in round 0|rank 1 round 0 writes shm\[1\], which rank 0 reads in round 1), and no flag or message orders the two$/,
    );
  });

  it('rejects overwriting the area before the readers are done with it', () => {
    expect(verifyCollective('bcast', 4, (rank) => shmRelayBcast(4, rank, 5)).error).toBeUndefined();
    const r = verifyCollective('bcast', 4, (rank) => shmRelayBcast(4, rank, 5, false));
    expect(r.error).toMatch(/^shared-memory race on node 0: rank [0-3] round \d (reads|writes) shm\[0\], which rank [0-3] (reads|writes) in round \d, and no flag/);
  });

  it('bounds the area by shmElements and keeps flags and the area on the node', () => {
    const nodes = [0, 0, 1, 1];
    const small = verifyCollective('allgather', 4, (rank) => hierarchicalAllgather(4, rank, nodes), { nodes, shmElements: 3 });
    expect(small.error).toMatch(/span shm\[\d\.\.4\) exceeds the 3-unit shm buffer/);
    const alone = verifyCollective('allgather', 3, (rank) => hierarchicalAllgather(3, rank, [0, 1, 1]), { nodes: [0, 1, 1] });
    expect(alone.error).toMatch(/^rank 0 round 0: uses the shared data area but is alone on node 0/);
    const remote = verifyCollective('allgather', 4, (rank) => hierarchicalAllgather(4, rank, [0, 0, 0, 0]), { nodes });
    expect(remote.error).toMatch(/flag of rank 2, which is on node 1, not 0/);
  });

  it('reports a flag wait nobody satisfies', () => {
    const build = (rank: number) =>
      schedule('barrier', 'flags', 2, rank, rank === 0 ? [[signal(0, 1, 1)], [wait(1, 1, 2)]] : [[wait(0, 1, 1), signal(1, 1, 1)]], { shm: 'flags' });
    const r = verifyCollective('barrier', 2, build);
    expect(r.error).toBe('deadlock: 1 of 2 ranks cannot finish; rank 0 round 1 waits for flag 1 of rank 1 to reach stage 2 (it holds 1)');
  });

  it('orders a barrier through flags alone', () => {
    // Everyone signals its arrival; rank 0 waits for all, then releases them on its own flag.
    const p = 6;
    const build = (rank: number) =>
      schedule(
        'barrier',
        'flags',
        p,
        rank,
        rank === 0
          ? [[...Array.from({ length: p - 1 }, (_, i) => wait(i + 1, 1, 1)), signal(0, 1, 1)]]
          : [[signal(rank, 1, 1)], [wait(0, 1, 1)]],
        { shm: 'flags' },
      );
    expect(verifyCollective('barrier', p, build).error).toBeUndefined();
  });
});
