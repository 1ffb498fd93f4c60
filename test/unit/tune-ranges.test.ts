// `topocoll tune` over several job shapes (`--from` reports): decisions per shape, rules over
// ranges of nodes and ranks with breakpoints between the measured values, reports of one shape
// pooled; and the tuned rules file read by the engine (the preload's reader, through the addon)
// choosing what the TypeScript reading of the same rules chooses, at every size, rank count and
// node count around the breakpoints.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeReports } from '../../src/bench/report';
import type { BenchRecord, BenchReport } from '../../src/bench/sweep';
import { breakpointRanges, describeChanges, tuneReports } from '../../src/bench/tune';
import { addon, loadedFlavour } from '../../src/mpi/native';
import type { CollectiveName, MpiFlavour } from '../../src/select/registry';
import { matchesCall, rulesToJson, type FileRule } from '../../src/select/rules';
import { rulesFromObject } from '../../src/mpi/files';

function record(collective: CollectiveName, algorithm: string, bytes: number, median: number, ranks: number, times = [median, median, median]): BenchRecord {
  return {
    collective, algorithm, bytes, basis: 'block', ranks, iterations: 10, repetitions: times.length, times_us: times,
    min_us: Math.min(...times), median_us: median, max_us: Math.max(...times), relative_spread: 0.01, speedup_vs_native: null, check: 'off', errors: 0,
  };
}

/** A report of `ranks` on `nodes` under `mpi` in which `fastest(bytes)` wins every size clearly. */
function report(mpi: MpiFlavour, ranks: number, nodes: number, fastest: (bytes: number) => string, algorithms = ['ring', 'bruck', 'recursive_doubling', 'native']): BenchReport {
  const sizes = [8, 1024, 65536];
  const records = sizes.flatMap((bytes) => algorithms.map((a) => record('allgather', a, bytes, a === fastest(bytes) ? 5 : 20, ranks)));
  return {
    format: 'topocoll-bench', version: 1, created: '2026-11-26T08:00:00Z', generator: 'topocoll test',
    machine: { hostname: 'box', cpuModel: 'cpu', cpus: 2, memoryBytes: 1, os: 'linux', node: 'v20', loadAverage: 0 },
    mpi: { flavour: mpi, library: mpi === 'openmpi' ? 'Open MPI v4.1.4' : 'MPICH Version: 4.0.2' },
    job: { ranks, nodes, ranksPerNode: Array.from({ length: nodes }, () => ranks / nodes) },
    options: { collectives: ['allgather'], algorithms: [], sizes, repetitions: 3, targetUs: 1000, rotateBytes: 0, check: false, root: 0 },
    records, skipped: [],
  };
}

/** The first rule matching a call, as the engine reads rules (first match wins). */
function firstMatch(rules: readonly FileRule[], call: Parameters<typeof matchesCall>[1]): FileRule | undefined {
  return rules.find((r) => matchesCall(r, call));
}

const reports = [
  report('openmpi', 2, 1, () => 'ring'),
  report('openmpi', 4, 1, (b) => (b < 65536 ? 'bruck' : 'ring')),
  report('openmpi', 8, 1, () => 'recursive_doubling'),
  report('openmpi', 8, 4, () => 'bruck'),
  report('mpich', 2, 1, (b) => (b === 8 ? 'native:brucks' : 'ring'), ['ring', 'bruck', 'native', 'native:brucks']),
];

describe('tune over several job shapes', () => {
  it('keys ranges on the measured values: each up to the next, the largest alone', () => {
    expect([...breakpointRanges([8, 2, 4, 4])]).toEqual([[2, [2, 3]], [4, [4, 7]], [8, [8, 8]]]);
    expect([...breakpointRanges([1])]).toEqual([[1, [1, 1]]]);
  });

  const { file, decisions } = tuneReports(reports, { noiseFloor: 0.03 });

  it('writes rules per MPI, node range and rank range, each shape deciding its own', () => {
    expect(() => rulesFromObject(file)).not.toThrow();
    const shapes = file.rules.map((r) => `${r.mpi} nodes ${r.minNodes}..${r.maxNodes} ranks ${r.minRanks}..${r.maxRanks}`);
    expect([...new Set(shapes)]).toEqual([
      'mpich nodes 1..1 ranks 2..2',
      'openmpi nodes 1..3 ranks 2..3',
      'openmpi nodes 1..3 ranks 4..7',
      'openmpi nodes 1..3 ranks 8..8',
      'openmpi nodes 4..4 ranks 8..8',
    ]);
    expect(file.job).toEqual({ shapes: expect.arrayContaining([{ ranks: 8, nodes: 4, mpi: 'openmpi' }]) });
    // The MPI's own algorithm is a rule of its MPI.
    expect(file.rules.find((r) => r.algorithm === 'native:brucks')).toMatchObject({ mpi: 'mpich', basis: 'block', maxBytes: 1024 });
    expect(describeChanges(decisions).find((l) => l.includes('native:brucks'))).toMatch(/^2 ranks on 1 node, MPICH: allgather 8 B: .* -> native:brucks \(4\.00x faster\) \(MPICH's own: apply it with --export mpich\)$/);
  });

  it('chooses, at every measured shape and size, what that shape decided; between shapes, the lower one\'s', () => {
    for (const d of decisions) {
      const call = { collective: d.collective, ranks: d.shape.ranks, blockBytes: d.bytes, totalBytes: d.bytes * d.shape.ranks, nodes: d.shape.nodes, mpi: d.shape.mpi };
      expect(firstMatch(file.rules, call)?.algorithm, JSON.stringify(call)).toBe(d.chosen);
    }
    const at = (ranks: number, nodes: number, bytes: number, mpi: MpiFlavour = 'openmpi') => firstMatch(file.rules, { collective: 'allgather', ranks, blockBytes: bytes, totalBytes: bytes * ranks, nodes, mpi })?.algorithm;
    expect([at(3, 1, 8), at(7, 1, 8), at(7, 1, 1 << 20), at(6, 2, 8), at(16, 4, 8)]).toEqual(['ring', 'bruck', 'ring', 'bruck', undefined]);
    expect([at(9, 1, 8), at(8, 5, 8), at(1, 1, 8), at(3, 1, 8, 'mpich')]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('pools the repetitions of reports of one shape', () => {
    const a = report('openmpi', 4, 1, () => 'ring');
    const b = report('openmpi', 4, 1, () => 'ring');
    b.records = b.records.map((r) => (r.algorithm === 'ring' && r.bytes === 8 ? record('allgather', 'ring', 8, 7, 4, [6, 7, 8]) : r));
    const merged = mergeReports([a, b]);
    const ring8 = merged.records.find((r) => r.algorithm === 'ring' && r.bytes === 8)!;
    expect(ring8.times_us).toEqual([5, 5, 5, 6, 7, 8]);
    expect([ring8.repetitions, ring8.median_us, ring8.min_us, ring8.max_us]).toEqual([6, 5.5, 5, 8]);
    expect(ring8.speedup_vs_native).toBeCloseTo(20 / 5.5, 3);
    expect(merged.records).toHaveLength(a.records.length);
    // One shape, two reports: the rules of one shape.
    expect(new Set(tuneReports([a, b], { noiseFloor: 0.03 }).file.rules.map((r) => `${r.minRanks}..${r.maxRanks}`))).toEqual(new Set(['4..4']));
  });
});

describe('a tuned rules file in the engine (the preload\'s reader) chooses what TypeScript reads', () => {
  const native = addon();
  const mpi = loadedFlavour();
  const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-tune-ranges-'));
  const saved = process.env.TOPOCOLL_RULES;
  afterAll(() => {
    if (saved === undefined) delete process.env.TOPOCOLL_RULES;
    else process.env.TOPOCOLL_RULES = saved;
    native.loadConfig();
  });

  it('at every size, rank count and node count around the breakpoints', () => {
    // Placement and MPI conditions besides the tuned ones; algorithms with a builder in every build.
    const extra: FileRule[] = [
      { collective: 'bcast', algorithm: 'scatter_allgather', minRanksPerNode: 3, maxRanksPerNode: 4, basis: 'total', maxBytes: 1024, why: 'rpn' },
      { collective: 'bcast', algorithm: 'binomial', multiNode: true, why: 'multi' },
      { collective: 'bcast', algorithm: 'native:binomial', mpi: mpi === 'openmpi' ? 'mpich' : 'openmpi', why: 'other MPI' },
    ];
    const { file } = tuneReports(reports, { noiseFloor: 0.03 });
    // Native names of the other MPI's rules stay the other MPI's: the engine must skip them by `mpi`.
    file.rules = [...extra, ...file.rules];
    const json = path.join(tmp, 'tuned.json');
    writeFileSync(json, rulesToJson(file));
    process.env.TOPOCOLL_RULES = json;
    native.loadConfig();
    let compared = 0;
    for (const coll of ['allgather', 'bcast'] as const) {
      for (const ranks of [1, 2, 3, 4, 5, 7, 8, 9, 16]) {
        for (const nodes of [1, 2, 3, 4, 5, 8].filter((n) => n <= ranks)) {
          for (const bytes of [0, 8, 1023, 1024, 65535, 65536, 1 << 20]) {
            const totalBytes = coll === 'allgather' ? bytes * ranks : bytes;
            const ts = firstMatch(file.rules, { collective: coll, ranks, blockBytes: bytes, totalBytes, nodes, mpi });
            const engine = native.selectAlgorithm(coll, ranks, bytes, totalBytes, nodes);
            const where = `${coll} ${bytes} B on ${ranks} ranks, ${nodes} nodes`;
            if (!ts) {
              expect(engine.reason, where).not.toMatch(/^rules file/);
              continue;
            }
            const expected = ts.algorithm.startsWith('native') ? 'native' : ts.algorithm;
            expect(engine.algorithm, where).toBe(expected);
            expect(engine.reason, where).toMatch(new RegExp(`^rules file ${json}:\\d+: ${ts.why!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(100);
  });
});
