import { describe, expect, it } from 'vitest';
import {
  ScheduleError,
  alltoallBruckTime,
  alltoallContentionTime,
  alltoallLongTime,
  blockPlacement,
  contentionModel,
  hockney,
  hockneyAllgather,
  loadProfile,
  logGP,
  machineFromObject,
  roundRobinPlacement,
  simulate,
  simulateCommand,
  type CostModel,
  type Machine,
  type Placement,
  type ScheduleRequest,
} from '../../src/model';
import type { Schedule } from '../../src/select/schedule';
import {
  binomialBcast,
  bruckAllgather,
  bruckAlltoall,
  deadlockingRingAllgather,
  disseminationBarrier,
  hierarchicalAllgather,
  neighborExchangeAllgather,
  pairwiseAlltoall,
  recursiveDoublingAllgather,
  ringAllgather,
} from './model-builders';

/** One level, one rank per node: no sharing, every message α + nβ. */
const flat = machineFromObject({
  name: 'flat',
  node: { sockets: 1, cores_per_socket: 1 },
  levels: [{ name: 'net', scope: 'system', latency: '2 us', bandwidth: '1 GB/s' }],
});
const net = flat.levels[0];

/** Cheap shared memory inside a node, a NIC shared by the node's ranks between nodes. */
const twoLevel = machineFromObject({
  name: 'two-level',
  node: { sockets: 1, cores_per_socket: 4, nics: 1 },
  levels: [
    { name: 'shm', scope: 'node', latency: '0.3 us', bandwidth: '10 GB/s' },
    { name: 'net', scope: 'system', latency: '2 us', bandwidth: '1 GB/s' },
  ],
});

const bxj = loadProfile('bxj');

function run(p: number, build: (p: number, rank: number) => Schedule, blockBytes: number, machine: Machine = flat, model: CostModel = hockney, placement?: Placement) {
  return simulate({ p, schedules: (rank) => build(p, rank), machine, placement: placement ?? blockPlacement(p, 1, machine), model, blockBytes });
}

const n = 4096;
const relative = (a: number, b: number) => Math.abs(a / b - 1);

describe('simulator against closed forms (Hockney, one level)', () => {
  it.each([2, 3, 7, 16, 33, 100])('allgather algorithms, p=%i', (p) => {
    expect(relative(run(p, ringAllgather, n).time, hockneyAllgather('ring', p, n, net))).toBeLessThan(1e-12);
    expect(relative(run(p, bruckAllgather, n).time, hockneyAllgather('bruck', p, n, net))).toBeLessThan(1e-12);
    if ((p & (p - 1)) === 0) {
      expect(relative(run(p, recursiveDoublingAllgather, n).time, hockneyAllgather('recursive_doubling', p, n, net))).toBeLessThan(1e-12);
    }
    if (p % 2 === 0) {
      expect(relative(run(p, neighborExchangeAllgather, n).time, hockneyAllgather('neighbor_exchange', p, n, net))).toBeLessThan(1e-12);
    }
  });

  it('LogGP overlaps latency: (p - 1)(α + (n - 1)β) for the ring', () => {
    const p = 12;
    expect(relative(run(p, ringAllgather, n, flat, logGP).time, (p - 1) * (net.alpha + (n - 1) * net.beta))).toBeLessThan(1e-12);
  });

  it('Bruck alltoall: lg p steps of p/2 blocks, about eq. (1)', () => {
    for (const p of [8, 64, 256]) {
      const lg = Math.log2(p);
      const r = run(p, bruckAlltoall, 128);
      expect(relative(r.time, lg * (net.alpha + (p / 2) * 128 * net.beta))).toBeLessThan(1e-12);
      // Eq. (1) charges (p - 1)/2 blocks a step instead of p/2.
      expect(r.time).toBeGreaterThan(alltoallBruckTime(flat, { p, blockBytes: 128, ppn: 1 }));
      expect(relative(r.time, alltoallBruckTime(flat, { p, blockBytes: 128, ppn: 1 }))).toBeLessThan(1 / (p - 1) + 1e-12);
    }
  });

  it('binomial bcast and dissemination barrier take ceil(lg p) steps', () => {
    for (const p of [5, 16, 37]) {
      const steps = Math.ceil(Math.log2(p));
      const bcast = simulate({ p, schedules: (rank) => binomialBcast(p, rank, 0, 1000), machine: flat, placement: blockPlacement(p, 1, flat), model: hockney, blockBytes: 1 });
      expect(relative(bcast.time, steps * (net.alpha + 1000 * net.beta))).toBeLessThan(1e-12);
      expect(relative(run(p, disseminationBarrier, 0).time, steps * net.alpha)).toBeLessThan(1e-12);
    }
  });
});

describe('simulator on BXJ: seed 002 models from schedules', () => {
  it.each([
    [512, 4096, 8],
    [512, 16384, 12],
    [1024, 4096, 12],
  ])('pairwise alltoall, p=%i, %i B, %i per node: the old model, eq. (2) x ppn', (p, bytes, ppn) => {
    const r = run(p, pairwiseAlltoall, bytes, bxj, hockney, blockPlacement(p, ppn, bxj));
    expect(relative(r.time, alltoallLongTime(bxj, { p, blockBytes: bytes, ppn }))).toBeLessThan(1e-9);
    expect(r.messages).toBe(p * (p - 1));
    expect(r.bytes).toBe(p * (p - 1) * bytes);
  });

  it('pairwise alltoall under the contention model: eq. (4), less the on-node steps', () => {
    const [p, bytes, ppn, rho] = [512, 4096, 8, 0.8];
    const r = run(p, pairwiseAlltoall, bytes, bxj, contentionModel(bxj, rho), blockPlacement(p, ppn, bxj));
    const closed = alltoallContentionTime(bxj, { p, blockBytes: bytes, ppn }, rho);
    // The ppn - 1 on-node exchanges cross no switch; eq. (4) charges every step 3 hops.
    expect(r.time).toBeLessThan(closed);
    expect(relative(r.time, closed)).toBeLessThan(0.02);
  });

  it('simulates 8192-rank Bruck allgather', () => {
    const p = 8192;
    const t0 = performance.now();
    const r = run(p, bruckAllgather, 1024, bxj, hockney, blockPlacement(p, 8, bxj));
    console.log(`simulate: bruck allgather p=8192 in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(r.messages).toBe(p * 13);
    expect(r.bytes).toBe(p * (p - 1) * 1024);
  });
});

describe('simulator and placement', () => {
  it('charges the NIC of a node for all its ranks: a ring is cheap with ranks in order, dear round robin', () => {
    const p = 16;
    const block = run(p, ringAllgather, n, twoLevel, hockney, blockPlacement(p, 4, twoLevel));
    const scattered = run(p, ringAllgather, n, twoLevel, hockney, roundRobinPlacement(p, 4, twoLevel));
    // Round robin puts every ring neighbour on another node, so all 4 ranks of a node share
    // its NIC in every step; in order only one does.
    expect(scattered.time / block.time).toBeGreaterThan(3);
    // ALCD is a property of the algorithm, not of the placement.
    expect(block.alcd).toBe(scattered.alcd);
  });

  it('prices flags at the latency of the level they cross', () => {
    const [shm, netLevel] = twoLevel.levels;
    const oneNode = [0, 0, 0, 0];
    const local = simulate({ p: 4, schedules: (rank) => hierarchicalAllgather(4, rank, oneNode), machine: twoLevel, placement: blockPlacement(4, 4, twoLevel), model: hockney, blockBytes: n });
    // Put and flag, then read the node mates' blocks once their flags are visible.
    expect(relative(local.time, shm.alpha)).toBeLessThan(1e-12);
    const twoNodes = [0, 0, 0, 0, 1, 1, 1, 1];
    const both = simulate({ p: 8, schedules: (rank) => hierarchicalAllgather(8, rank, twoNodes), machine: twoLevel, placement: blockPlacement(8, 4, twoLevel), model: hockney, blockBytes: n });
    // Then the leaders swap their nodes' 4 blocks and flag them to their node.
    expect(relative(both.time, 2 * shm.alpha + netLevel.alpha + 4 * n * netLevel.beta)).toBeLessThan(1e-12);
  });

  it('throws on a schedule that deadlocks', () => {
    expect(() => run(4, deadlockingRingAllgather, n)).toThrow(ScheduleError);
    // Which ranks are stuck, and on what.
    expect(() => run(4, deadlockingRingAllgather, n)).toThrow(
      'deadlock: 4 of 4 ranks cannot finish; rank 0 round 1 waits for a message from 3 (rank 3 is in round 1); rank 1 round 1 waits for a message from 0 (rank 0 is in round 1);',
    );
  });
});

describe('simulateCommand', () => {
  const builders: Record<string, (req: ScheduleRequest) => Schedule> = {
    ring: (req) => ringAllgather(req.p, req.rank, req.params.inPlace),
    bruck: (req) => bruckAllgather(req.p, req.rank, req.params.inPlace),
    recursive_doubling: (req) => recursiveDoublingAllgather(req.p, req.rank),
    neighbor_exchange: (req) => neighborExchangeAllgather(req.p, req.rank),
  };
  const provider = (req: ScheduleRequest) => builders[req.algorithm](req);

  it('returns one row per algorithm, checked and priced', () => {
    const algorithms = ['ring', 'recursive_doubling', 'bruck', 'neighbor_exchange'];
    const rows = simulateCommand({ coll: 'allgather', algorithm: algorithms, np: 16, ppn: 4, bytes: 1024, machine: twoLevel, schedules: provider });
    expect(rows.map((r) => r.algorithm)).toEqual(algorithms);
    const ring = rows[0];
    expect(ring.model).toBe('hockney');
    expect(ring.rounds).toBe(16);
    expect(ring.messages).toBe(16 * 15);
    expect(ring.bytes).toBe(16 * 15 * 1024);
    expect(ring.alcd).toBeCloseTo(2 - 2 / 16, 12);
    expect(ring.predicted_us).toBeGreaterThan(0);
    for (const row of rows) expect(row.note).toBe('');
  });

  it('takes a profile name and the contention model', () => {
    const [row] = simulateCommand({
      coll: 'alltoall',
      algorithm: 'pairwise',
      np: 64,
      ppn: 8,
      bytes: 4096,
      machine: 'bxj',
      model: 'contention',
      rho: 0.5,
      schedules: (req) => pairwiseAlltoall(req.p, req.rank),
    });
    expect(row.model).toBe('contention');
    expect(row.predicted_us).toBeGreaterThan(alltoallLongTime(bxj, { p: 64, blockBytes: 4096, ppn: 8 }) * 1e6);
  });

  it('refuses wrong schedules, unknown algorithms and missing parameters', () => {
    const broken = (req: ScheduleRequest) => bruckAllgather(req.p, req.rank, false, false);
    expect(() => simulateCommand({ coll: 'allgather', algorithm: 'bruck', np: 6, ppn: 2, bytes: 8, machine: flat, schedules: broken })).toThrow(
      /^allgather bruck on 6 ranks is wrong: final state: rank 1 recv\[0\]/,
    );
    expect(() => simulateCommand({ coll: 'allgather', algorithm: 'bogus', np: 6, ppn: 2, bytes: 8, machine: flat, schedules: provider })).toThrow(
      /^cannot simulate allgather algorithm 'bogus' \(valid: ring, recursive_doubling, bruck, .*, all\)$/,
    );
    expect(() => simulateCommand({ coll: 'allgather', algorithm: 'ring', np: 6, ppn: 2, bytes: 8, machine: bxj, model: 'contention', schedules: provider })).toThrow(
      /needs rho/,
    );
  });
});
