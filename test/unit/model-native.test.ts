// The timing model (native/engine/model/, one implementation) on the real C++ builders'
// schedules, through its entries: `topocoll simulate`'s (simulateBuilt, a profile's levels),
// schedules handed over from TypeScript (simulate), and the engine's own predictions (what
// TOPOCOLL_SELECT=model and `explain` decide by, the engine's two levels): given the same levels,
// they agree, and a profile's signal latency, exchange β, round overhead and γ move the
// predictions the way they should.
import { describe, expect, it } from 'vitest';
import {
  alcdBruck,
  alcdNeighborExchange,
  alcdOf,
  alcdRecursiveDoubling,
  alcdRing,
  blockPlacement,
  enginePredictions,
  hockney,
  nativeCompiled,
  nativeSchedules,
  registeredAlgorithms,
  ScheduleError,
  simulate,
  simulateBuilt,
  simulateCommand,
  verifyCollective,
  type Machine,
} from '../../src/model';
import { blockIsElement, isReduction, type CollectiveName } from '../../src/select/registry';
import { countsOf, type ScheduleParams } from '../../src/select/schedule';
import { addon } from '../../src/mpi/native';

const INTRA = { alpha: 0.5e-6, beta: 1 / 5e9 };
const INTER = { alpha: 2e-6, beta: 1 / 10e9 };
/** γ apart from the copy β: a model that priced reduce ops as copies would disagree. */
const GAMMA = 0.35e-9;

/** The engine's two-level machine as a TypeScript profile. */
function twoLevel(ppn: number): Machine {
  return {
    name: 'two-level',
    description: 'intra-node and inter-node Hockney levels',
    source: '<test>',
    node: { sockets: 1, coresPerSocket: ppn, nics: 1 },
    levels: [
      { name: 'shm', scope: 'node', alpha: INTRA.alpha, beta: INTRA.beta, overhead: 0, gap: 0, usesNic: false, signalAlpha: INTRA.alpha, exchangeBeta: INTRA.beta },
      { name: 'network', scope: 'system', alpha: INTER.alpha, beta: INTER.beta, overhead: 0, gap: 0, usesNic: true, signalAlpha: INTER.alpha, exchangeBeta: INTER.beta },
    ],
    copyBeta: INTRA.beta,
    gamma: GAMMA,
    roundOverhead: 0,
  };
}

interface Case {
  coll: CollectiveName;
  algorithm: string;
  p: number;
  ppn: number;
  bytes: number;
}

const CASES: Case[] = [
  { coll: 'allgather', algorithm: 'ring', p: 12, ppn: 4, bytes: 4096 },
  { coll: 'allgather', algorithm: 'bruck', p: 13, ppn: 4, bytes: 1000 },
  { coll: 'allgather', algorithm: 'recursive_doubling', p: 16, ppn: 8, bytes: 65536 },
  { coll: 'allgather', algorithm: 'neighbor_exchange', p: 10, ppn: 5, bytes: 8 },
  { coll: 'allgather', algorithm: 'hierarchical', p: 12, ppn: 4, bytes: 2048 },
  { coll: 'alltoall', algorithm: 'pairwise', p: 16, ppn: 4, bytes: 32768 },
  { coll: 'alltoall', algorithm: 'bruck', p: 11, ppn: 4, bytes: 64 },
  { coll: 'alltoall', algorithm: 'isend_irecv', p: 9, ppn: 3, bytes: 1024 },
  { coll: 'bcast', algorithm: 'binomial', p: 14, ppn: 4, bytes: 100000 },
  { coll: 'bcast', algorithm: 'scatter_allgather', p: 8, ppn: 2, bytes: 1 << 20 },
  { coll: 'barrier', algorithm: 'dissemination', p: 7, ppn: 3, bytes: 0 },
  // Shared memory: flags and the node's data area.
  { coll: 'bcast', algorithm: 'hierarchical', p: 12, ppn: 4, bytes: 300000 },
  { coll: 'bcast', algorithm: 'shm_numa', p: 8, ppn: 4, bytes: 500000 },
  { coll: 'barrier', algorithm: 'shm_hierarchical', p: 12, ppn: 6, bytes: 0 },
  { coll: 'alltoall', algorithm: 'tiled', p: 8, ppn: 4, bytes: 65536 },
  // Reductions: reduce ops priced at γ on the rank that combines.
  { coll: 'allreduce', algorithm: 'recursive_doubling', p: 12, ppn: 4, bytes: 65536 },
  { coll: 'allreduce', algorithm: 'reduce_scatter_allgather', p: 13, ppn: 4, bytes: 100000 },
  { coll: 'allreduce', algorithm: 'ring', p: 8, ppn: 4, bytes: 1 << 20 },
  { coll: 'allreduce', algorithm: 'hierarchical', p: 12, ppn: 4, bytes: 300000 },
  { coll: 'allreduce', algorithm: 'multi_leader', p: 8, ppn: 2, bytes: 1 << 20 },
  { coll: 'reduce', algorithm: 'binomial', p: 11, ppn: 4, bytes: 65536 },
  { coll: 'reduce', algorithm: 'reduce_scatter_gather', p: 8, ppn: 2, bytes: 262144 },
  { coll: 'reduce_scatter_block', algorithm: 'recursive_halving', p: 8, ppn: 4, bytes: 32768 },
  { coll: 'reduce_scatter', algorithm: 'pairwise', p: 7, ppn: 3, bytes: 70000 },
];

/** Parameters as the engine's model gives them to the builders (explain and TOPOCOLL_SELECT=model). */
function paramsOf(c: Case): { params: ScheduleParams; blockBytes: number; nodes: number[] } {
  const nodes = Array.from({ length: c.p }, (_, r) => Math.floor(r / c.ppn));
  // bcast and the reductions: a vector of one-byte elements; the block exchanges: one block per rank.
  const element = blockIsElement(c.coll);
  const count = c.coll === 'barrier' ? 0 : element ? c.bytes : 1;
  const blockBytes = c.coll === 'barrier' ? 0 : element ? 1 : c.bytes;
  const elementBytes = Math.max(1, blockBytes);
  return { params: { ...countsOf(c.coll, count, c.p), elementBytes, shmElements: Math.floor((1 << 20) / elementBytes), nodes }, blockBytes, nodes };
}

describe('the timing model on real schedules: simulate and the engine model agree', () => {
  const built = (coll: CollectiveName) => registeredAlgorithms(coll);

  for (const c of CASES) {
    it(`${c.coll} ${c.algorithm}, p=${c.p}, ${c.ppn} per node, ${c.bytes} B`, () => {
      expect(built(c.coll)).toContain(c.algorithm);
      const { params, blockBytes } = paramsOf(c);
      const machine = twoLevel(c.ppn);
      const placement = blockPlacement(c.p, c.ppn, machine);
      const request = (rank: number) => ({ collective: c.coll, algorithm: c.algorithm, p: c.p, rank, params });

      const timed = (m: Machine) => simulateBuilt(request(0), m, placement, hockney, blockBytes);
      const base = timed(machine);
      expect(base.time).toBeGreaterThan(0);

      // Schedules handed over as objects and compiled by the engine: the same stream, the same times.
      const given = simulate({ p: c.p, schedules: (rank) => nativeSchedules(request(rank)), machine, placement, model: hockney, blockBytes });
      expect(given).toEqual({ ...base, note: nativeSchedules(request(0)).note });

      const engine = enginePredictions(c.coll, c.p, { ...params, blockBytes, intra: INTRA, inter: INTER, gamma: GAMMA });
      const mine = engine.predictions.find((x) => x.algorithm === c.algorithm)!;
      expect(mine.skipped).toBeUndefined();
      expect(mine.predicted_us! / 1e6).toBeCloseTo(base.time, 12);
      expect(mine.messages).toBe(base.messages);
      expect(mine.rounds).toBe(base.rounds);

      // A profile's signal latency (a flag's cache-line trip), exchange bandwidth (both
      // directions of a pair at once) and round overhead (the executor's work per round) price
      // flags, exchanges and rounds.
      const signalled: Machine = {
        ...machine,
        levels: machine.levels.map((l) => ({ ...l, signalAlpha: l.alpha / 4, exchangeBeta: l.beta * 2 })),
        roundOverhead: 0.03e-6,
      };
      const signalledTime = timed(signalled).time;
      if (c.algorithm.startsWith('shm')) expect(signalledTime).toBeLessThan(base.time);
      if (['recursive_doubling', 'pairwise', 'neighbor_exchange'].includes(c.algorithm)) expect(signalledTime).toBeGreaterThan(base.time);

      // γ prices the reduce ops alone: a slower combine slows every reduction, nothing else.
      const slowTime = timed({ ...machine, gamma: 4 * GAMMA }).time;
      const engineSlow = enginePredictions(c.coll, c.p, { ...params, blockBytes, intra: INTRA, inter: INTER, gamma: 4 * GAMMA });
      expect(engineSlow.predictions.find((x) => x.algorithm === c.algorithm)!.predicted_us! / 1e6).toBeCloseTo(slowTime, 12);
      if (isReduction(c.coll)) expect(slowTime).toBeGreaterThan(base.time);
      else expect(slowTime).toBe(base.time);
    });
  }

  it('the engine model prices a remapped allgather under the pi of the placement', () => {
    // 4 nodes x 2 contiguously: pi keeps Bruck's heavy edges inside nodes, so the remapped
    // Bruck sends 24 of its 56 blocks between nodes instead of 52.
    const nodes = [0, 0, 1, 1, 2, 2, 3, 3];
    const slowNetwork = { alpha: 30e-6, beta: 1 / 125e6 }; // 1 Gbit/s, as the emulated cluster
    const { predictions } = enginePredictions('allgather', 8, { count: 65536, elementBytes: 1, nodes, blockBytes: 65536, intra: INTRA, inter: slowNetwork });
    const at = (a: string) => predictions.find((x) => x.algorithm === a)!.predicted_us!;
    expect(at('bruck_reorder')).toBeLessThan(at('bruck') / 1.5);
    expect(at('recursive_doubling_exch')).toBeLessThan(at('recursive_doubling') / 1.5);
  });

  it('the engine model picks the algorithm with the smallest prediction', () => {
    const c: Case = { coll: 'allgather', algorithm: 'ring', p: 16, ppn: 4, bytes: 16 };
    const { params, blockBytes } = paramsOf(c);
    const engine = enginePredictions(c.coll, c.p, { ...params, blockBytes, intra: INTRA, inter: INTER });
    const predicted = engine.predictions.filter((x) => x.predicted_us !== undefined);
    expect(predicted.length).toBeGreaterThan(2);
    const fastest = predicted.reduce((a, b) => (b.predicted_us! < a.predicted_us! ? b : a));
    expect(engine.choice?.algorithm).toBe(fastest.algorithm);
    expect(engine.choice?.reason).toMatch(/^model: smallest predicted time, \d+\.\d\d us/);
  });

  it('short blocks favour Bruck alltoall, long blocks pairwise exchange (seed 002 section 2)', () => {
    const predicted = (bytes: number) => {
      const c: Case = { coll: 'alltoall', algorithm: 'pairwise', p: 16, ppn: 16, bytes };
      const { params, blockBytes } = paramsOf(c);
      const rows = enginePredictions(c.coll, c.p, { ...params, blockBytes, intra: INTRA, inter: INTER }).predictions;
      const us = (a: string) => rows.find((x) => x.algorithm === a)!.predicted_us!;
      return { bruck: us('bruck'), pairwise: us('pairwise') };
    };
    const short = predicted(8);
    expect(short.bruck).toBeLessThan(short.pairwise);
    const long = predicted(1 << 20);
    expect(long.pairwise).toBeLessThan(long.bruck);
  });

  it('one flattening: the builders\' schedules compiled in C++ are their objects compiled, and both replay alike', () => {
    const native = addon();
    for (const c of CASES) {
      const { params } = paramsOf(c);
      for (const rank of [0, c.p - 1]) {
        const built = native.buildCompiled(c.coll, c.algorithm, c.p, rank, params);
        const { rounds, ...header } = native.buildSchedule(c.coll, c.algorithm, c.p, rank, params);
        expect(built).toMatchObject(header);
        expect(built.rounds).toBe(rounds.length);
        expect(native.compileSchedule({ ...header, rounds }, c.p, true)).toEqual({ rank, tmpBlocks: header.tmpBlocks, rounds: built.rounds, stream: built.stream, unitsPerBlock: built.unitsPerBlock, spans: built.spans, ...(built.flags && { flags: built.flags }) });
      }
      // The replay of both, for the cases with flags, the node's area, tiles and uneven parts.
      if (!['hierarchical', 'shm_numa', 'tiled', 'pairwise'].includes(c.algorithm)) continue;
      const request = (rank: number) => ({ collective: c.coll, algorithm: c.algorithm, p: c.p, rank, params });
      const verify = { nodes: params.nodes, shmElements: params.shmElements, recvCounts: params.recvCounts };
      const compiled = verifyCollective(c.coll, c.p, (rank) => nativeCompiled(request(rank)), verify);
      expect(compiled.error, `${c.coll} ${c.algorithm}`).toBeUndefined();
      expect(compiled).toEqual(verifyCollective(c.coll, c.p, (rank) => nativeSchedules(request(rank)), verify));
    }
  });

  it('refuses malformed compiled schedules and machines with a clear message, no crash', () => {
    const level = { alpha: 1e-6, beta: 1e-9, exchangeBeta: 1e-9, signalAlpha: 1e-6, overhead: 0, gap: 0, usesNic: false };
    const machine = {
      levels: [level],
      levelByScope: Int32Array.of(0, 0, 0),
      node: Int32Array.of(0, 0),
      socket: Int32Array.of(0, 0),
      nic: Int32Array.of(0, 0),
      hops: 1,
      nodesPerSwitch: 0,
      copyBeta: 0,
      gamma: 0,
      roundOverhead: 0,
    };
    const timing = { model: 'hockney', switchWait: 0, blockBytes: 8 } as const;
    // Round 0 of each: one send to the other rank and one receive from it.
    const exchange = (peer: number) => ({ rounds: 1, unitsPerBlock: 1, stream: Int32Array.of(2, 2, peer, 1, -1 - peer, 1) });
    expect(addon().simulateCompiled([exchange(1), exchange(0)], machine, timing)).toMatchObject({ messages: 2, seconds: 1e-6 + 8e-9 });
    const native = addon();
    expect(() => native.simulateCompiled([{ rounds: 1, unitsPerBlock: 1, stream: Int32Array.of(5, 0) }, exchange(0)], machine, timing)).toThrow(/rank 0: round 0 has a bad header \[5, 0\]/);
    expect(() => native.simulateCompiled([{ ...exchange(1), stream: Int32Array.of(2, 1, 1, 1, -2, 1) }, exchange(0)], machine, timing)).toThrow(/rank 0: round 0 has a bad header \[2, 1\]/);
    expect(() => native.simulateCompiled([exchange(7), exchange(0)], machine, timing)).toThrow(/rank 0: round 0: peer 7 is not a rank of 2/);
    expect(() => native.simulateCompiled([{ ...exchange(1), rounds: 2 }, exchange(0)], machine, timing)).toThrow(/rank 0: the stream holds 1 rounds, not 2/);
    expect(() => native.simulateCompiled([exchange(1), exchange(0)], { ...machine, node: Int32Array.of(0) }, timing)).toThrow(/machine.node, socket and nic must have one entry per rank/);
    expect(() => native.simulateCompiled([exchange(1), exchange(0)], { ...machine, levelByScope: Int32Array.of(0, 0, 3) }, timing)).toThrow(/levelByScope names a level that machine.levels lacks/);
    expect(() => native.simulateCompiled([exchange(1), exchange(0)], { ...machine, levels: [{ ...level, beta: -1 }] }, timing)).toThrow(/machine.levels\[0\].beta must be a finite non-negative number/);
    expect(() => native.simulateCompiled([exchange(1), exchange(0)], machine, { ...timing, model: 'bogus' as 'hockney' })).toThrow(/timing.model must be hockney, loggp or contention/);
    expect(() => native.simulateCompiled([exchange(1), exchange(0)], machine, { model: 'contention', blockBytes: 8 } as unknown as typeof timing)).toThrow(/timing.switchWait must be a finite non-negative number/);
  });

  it('replayEvents hands over the progression in order: rounds, matches, signals, flag passes', () => {
    const native = addon();
    const follow = (ranks: Parameters<typeof native.replayEvents>[0]) => {
      const records: number[] = [];
      const stopped = native.replayEvents(ranks, (chunk) => records.push(...chunk));
      return { records, stopped };
    };
    const exchange = (peer: number) => ({ rounds: 1, unitsPerBlock: 1, stream: Int32Array.of(2, 2, peer, 1, -1 - peer, 1) });
    // Rank 0 posts first and queues both ops; rank 1's send (slot 1) meets rank 0's receive
    // (slot 2), then rank 1's receive meets rank 0's send; the last rank to complete ends first.
    const { signalCode, waitCode, events } = native.modelLayout;
    const { roundStart: START, match: MATCH, signal: SIGNAL, flagPass: PASS, roundEnd: END } = events;
    expect(follow([exchange(1), exchange(0)])).toEqual({ records: [START, 0, START, 1, MATCH, 1, 1, 0, 2, MATCH, 0, 1, 1, 2, END, 1, END, 0], stopped: null });
    // Rank 0 raises its flag 0 to stage 1 at the end of its round (signal 0); rank 1's wait for it passes when posted.
    const flags = { slot: Uint8Array.of(0, 0), stage: Int32Array.of(0, 1) };
    const signaller = { rounds: 1, unitsPerBlock: 1, stream: Int32Array.of(1, 0, signalCode, 0), flags };
    const waiter = { rounds: 1, unitsPerBlock: 1, stream: Int32Array.of(1, 1, waitCode, 0), flags };
    expect(follow([signaller, waiter])).toEqual({ records: [START, 0, END, 0, SIGNAL, 0, START, 1, PASS, 1, 1, 0, END, 1], stopped: null });
    // Only receives: the deadlock report, after the events that happened.
    const receiver = (peer: number) => ({ rounds: 1, unitsPerBlock: 1, stream: Int32Array.of(1, 1, -1 - peer, 1) });
    expect(follow([receiver(1), receiver(0)])).toEqual({
      records: [START, 0, START, 1],
      stopped: 'deadlock: 2 of 2 ranks cannot finish; rank 0 round 0 waits for a message from 1 (rank 1 is in round 0); rank 1 round 0 waits for a message from 0 (rank 0 is in round 0)',
    });
    // What the consumer throws stops the replay and reaches the caller as it was thrown.
    const thrown = new ScheduleError('seen enough');
    expect(() => native.replayEvents([exchange(1), exchange(0)], () => { throw thrown; })).toThrow(thrown);
    expect(() => native.replayEvents([exchange(1), exchange(0)], undefined as unknown as () => void)).toThrow(/onEvents must be a function/);
    expect(() => native.replayEvents([exchange(7), exchange(0)], () => {})).toThrow(/rank 0: round 0: peer 7 is not a rank of 2/);
  });

  it('rejects bad machines with a clear message', () => {
    const c = CASES[0];
    const { params } = paramsOf(c);
    expect(() => enginePredictions(c.coll, c.p, { ...params, blockBytes: 8, intra: { alpha: -1, beta: 0 } })).toThrow(/intra.alpha and intra.beta must be non-negative/);
    expect(() => enginePredictions(c.coll, c.p, { ...params, nodes: [0, 1], blockBytes: 8 })).toThrow(/nodes must be an array of 12 numbers/);
    expect(() => enginePredictions(c.coll, c.p, { ...params, blockBytes: 8, gamma: -1e-9 })).toThrow(/gamma must be a finite non-negative number/);
  });
});

describe('γ: the combining of reductions', () => {
  // p = 64, 4 MiB: recursive doubling combines the whole vector in each of its log p = 6 steps
  // (6n per rank), Rabenseifner only the halves it keeps (n (p-1)/p), so a slower combine costs
  // recursive doubling about six times what it costs Rabenseifner. A model property, no timing.
  const p = 64;
  const bytes = 4 << 20;
  const algorithms = ['recursive_doubling', 'reduce_scatter_allgather'];
  const withGamma = (gamma: number): Machine => ({ ...twoLevel(8), gamma });
  const increase = (predict: (gamma: number) => Record<string, number>) => {
    const [low, high] = [predict(0.1e-9), predict(1e-9)];
    return Object.fromEntries(algorithms.map((a) => [a, high[a] - low[a]]));
  };

  for (const model of ['hockney', 'loggp'] as const) {
    it(`simulate (${model}): raising γ raises recursive doubling's allreduce more than Rabenseifner's`, () => {
      const grown = increase((gamma) => {
        const rows = simulateCommand({ coll: 'allreduce', algorithm: algorithms, np: p, ppn: 8, bytes, machine: withGamma(gamma), model, verify: false, schedules: nativeSchedules, nativeBuilders: true });
        return Object.fromEntries(rows.map((r) => [r.algorithm, r.predicted_us]));
      });
      // 0.9 ns more per byte: at most 6 x 4 MiB = 22.6 ms more for recursive doubling (less where a
      // combine overlaps a wait for the node's shared port), 63/64 x 4 MiB = 3.7 ms for Rabenseifner.
      expect(grown.recursive_doubling).toBeLessThanOrEqual(0.9e-3 * 6 * bytes * (1 + 1e-9));
      expect(grown.reduce_scatter_allgather).toBeGreaterThan(0);
      expect(grown.reduce_scatter_allgather).toBeLessThanOrEqual(0.9e-3 * bytes * (1 + 1e-9));
      expect(grown.recursive_doubling).toBeGreaterThan(4 * grown.reduce_scatter_allgather);
    });
  }

  it("explain's engine model (TOPOCOLL_SELECT=model): the same", () => {
    const nodes = Array.from({ length: p }, (_, r) => Math.floor(r / 8));
    const predict = (gamma: number) => {
      const { predictions } = enginePredictions('allreduce', p, { count: bytes, elementBytes: 1, shmElements: 1 << 20, nodes, blockBytes: 1, intra: INTRA, inter: INTER, gamma });
      return Object.fromEntries(predictions.filter((x) => algorithms.includes(x.algorithm)).map((x) => [x.algorithm, x.predicted_us!]));
    };
    const grown = increase(predict);
    expect(grown.recursive_doubling).toBeGreaterThan(4 * grown.reduce_scatter_allgather);
    expect(grown.reduce_scatter_allgather).toBeGreaterThan(0);
  });
});

describe('ALCD (seed 000 Table 1) of the real allgather builders', () => {
  /** ALCD of the messages of the C++ builder's schedules, after the replay proves them correct. */
  const alcd = (algorithm: string, p: number) => {
    const r = verifyCollective('allgather', p, (rank) => nativeSchedules({ collective: 'allgather', algorithm, p, rank, params: { count: 1 } }));
    expect(r.error, `${algorithm} p=${p}`).toBeUndefined();
    return alcdOf(r.messages);
  };
  const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
  // Every size to 40, then odd, 4k, 4k + 2 and powers of two: up to 1024 for the log-step
  // algorithms, 258 for the p - 1 and p / 2 step ones (p^2 messages; the TypeScript reference
  // builders cover them to 1024 in model-alcd.test.ts).
  const SIZES = [...range(4, 40), 127, 128, 130, 255, 256, 258, 1022, 1024];
  const LINEAR_SIZES = SIZES.filter((p) => p <= 258);

  it('ring: 2 - 2/p', () => {
    for (const p of LINEAR_SIZES) expect(alcd('ring', p), `p=${p}`).toBeCloseTo(alcdRing(p), 12);
  });

  it('neighbor exchange: 2 - 2/p for p = 4k, 2 - 4/p + 4/p^2 for p = 4k + 2', () => {
    for (const p of LINEAR_SIZES.filter((n) => n % 2 === 0)) expect(alcd('neighbor_exchange', p), `p=${p}`).toBeCloseTo(alcdNeighborExchange(p), 12);
  });

  it('recursive doubling, powers of two: (p - 1) / log p', () => {
    for (const p of [4, 8, 16, 32, 64, 128, 256, 512, 1024]) expect(alcd('recursive_doubling', p), `p=${p}`).toBeCloseTo(alcdRecursiveDoubling(p), 12);
  });

  it('Bruck: [2p(2^L - 1) - (2/3)(4^L - 1)] / (pL), L = ceil(log p)', () => {
    for (const p of SIZES) expect(alcd('bruck', p), `p=${p}`).toBeCloseTo(alcdBruck(p), 9);
  });
});
