// Predictions against measurements (`topocoll simulate --compare`): cells across launches, the
// pairs of algorithms measured more than 20% apart, and whether the model orders them the same.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchRecord, BenchReport } from '../../src/bench/sweep';
import { readReport } from '../../src/bench/report';
import { compareWithBench } from '../../src/cli/simulate';
import { loadProfile } from '../../src/model';
import { measuredCells, rankAgreement, type ComparedCell } from '../../src/bench/compare';

/** A report with only what the comparison reads: the job and the records' medians. */
function report(medians: Record<string, number>, job = { ranks: 8, nodes: 4, ranksPerNode: [2, 2, 2, 2] }): BenchReport {
  const records = Object.entries(medians).map(([key, median_us]) => {
    const [collective, bytes, algorithm] = key.split(' ');
    return { collective, bytes: Number(bytes), algorithm, median_us } as BenchRecord;
  });
  return { job, records } as unknown as BenchReport;
}

const cell = (algorithm: string, measured_us: number, predicted_us: number): ComparedCell => ({
  collective: 'allgather',
  bytes: 1024,
  algorithm,
  measured_us,
  lowest_us: measured_us,
  highest_us: measured_us,
  launches: 1,
  predicted_us,
});

describe('measured cells', () => {
  it('take the median of the launches\' medians, and leave native and auto out', () => {
    const cells = measuredCells([
      report({ 'allgather 1024 ring': 10, 'allgather 1024 native': 5, 'allgather 1024 auto': 6 }),
      report({ 'allgather 1024 ring': 30 }),
      report({ 'allgather 1024 ring': 12 }),
    ]);
    expect(cells).toEqual([{ collective: 'allgather', bytes: 1024, algorithm: 'ring', measured_us: 12, lowest_us: 10, highest_us: 30, launches: 3 }]);
  });

  it('refuse reports of different jobs or timings', () => {
    expect(() => measuredCells([report({}), report({}, { ranks: 2, nodes: 1, ranksPerNode: [2] })])).toThrow(/different jobs/);
    const windowed = { ...report({}), options: { timing: 'window' } } as unknown as BenchReport;
    expect(() => measuredCells([report({}), windowed])).toThrow('bench reports of different timings: loop and window');
    expect(() => measuredCells([])).toThrow(/no bench report/);
  });
});

describe('rank agreement', () => {
  it('counts only pairs measured more than 20% apart, as same, reversed or tied', () => {
    const a = rankAgreement([
      cell('ring', 100, 50), // fastest measured, predicted fastest
      cell('bruck', 150, 80), // 1.5x slower than ring: same order
      cell('recursive_doubling', 110, 90), // 1.1x of ring: not counted against ring; 1.36x faster than bruck, predicted slower
      cell('neighbor_exchange', 200, 50), // 2x slower than ring, predicted equal: tied
    ]);
    expect(a.pairs.map((p) => `${p.faster}<${p.slower}:${p.verdict}`).sort()).toEqual(
      ['bruck<neighbor_exchange:reversed', 'recursive_doubling<bruck:reversed', 'recursive_doubling<neighbor_exchange:reversed', 'ring<bruck:same', 'ring<neighbor_exchange:tied'].sort(),
    );
    expect([a.same, a.reversed, a.tied]).toEqual([1, 3, 1]);
  });

  it('tells the pairs ordered alike in every launch from those a noisy launch separated', () => {
    const spread = (c: ComparedCell, lowest_us: number, highest_us: number): ComparedCell => ({ ...c, lowest_us, highest_us, launches: 3 });
    const a = rankAgreement([
      spread(cell('ring', 100, 50), 90, 110),
      spread(cell('bruck', 150, 40), 140, 160), // apart in every launch, predicted faster: a robust reversal
      spread(cell('neighbor_exchange', 130, 30), 105, 170), // overlaps ring's launches
    ]);
    expect(a.pairs.map((p) => `${p.faster}<${p.slower}:${p.every_launch}`).sort()).toEqual(['ring<bruck:true', 'ring<neighbor_exchange:false'].sort());
    expect(a.everyLaunch).toEqual({ pairs: 1, same: 0, reversed: 1, tied: 0 });
    expect([a.same, a.reversed, a.tied]).toEqual([0, 2, 0]);
  });

  it('never pairs cells of different sizes or collectives', () => {
    const other = { ...cell('ring', 1000, 1), bytes: 65536 };
    expect(rankAgreement([cell('ring', 100, 50), other]).pairs).toEqual([]);
  });
});

describe('compareWithBench', () => {
  it('predicts every measured algorithm on the job\'s placement; remapping shows on the emulated cluster', () => {
    const measured = report({
      'allgather 1048576 bruck': 190_000,
      'allgather 1048576 bruck_reorder': 63_000,
      'allgather 1048576 native': 195_000,
    });
    const { np, ppn, cells, agreement } = compareWithBench([measured], { machine: loadProfile('emulated-cluster') });
    expect([np, ppn]).toEqual([8, 2]);
    expect(cells.map((c) => c.algorithm).sort()).toEqual(['bruck', 'bruck_reorder']);
    // 4 hosts x 2 contiguously: pi keeps Bruck's heavy edges inside hosts, which the model sees.
    expect(agreement.pairs).toHaveLength(1);
    expect(agreement.pairs[0]).toMatchObject({ faster: 'bruck_reorder', slower: 'bruck', verdict: 'same' });
    expect(agreement.pairs[0].predicted_ratio).toBeGreaterThan(1.5);
  });

  it('asks for --ppn when the job\'s nodes were uneven', () => {
    const uneven = report({ 'allgather 8 ring': 1 }, { ranks: 3, nodes: 2, ranksPerNode: [2, 1] });
    expect(() => compareWithBench([uneven], { machine: loadProfile('dev-vm') })).toThrow(/uneven nodes.*--ppn/);
  });
});

// The launches docs/models.md compares with, stored so that a change to the model or a profile is
// judged again here: the counts must stay those the document states.
describe('the stored measurements of docs/models.md', () => {
  const dataDir = path.join(__dirname, '..', '..', 'docs', 'data', 'model-compare');
  const doc = readFileSync(path.join(__dirname, '..', '..', 'docs', 'models.md'), 'utf8');
  it.each([
    // files, machine, [same, pairs], [same, pairs] apart in every launch
    ['openmpi-2-window-{1,2,3}', 'dev-vm', [76, 78], [68, 68]],
    ['openmpi-2-window-second-{1,2,3,4,5}', 'dev-vm', [86, 91], [54, 54]],
    ['openmpi-2-{1,2,3}', 'dev-vm', [81, 94], [76, 87]],
    ['cluster-4x2-{1,2,3}', 'emulated-cluster', [119, 129], [108, 118]],
    ['cluster-4x2-second-{1,2,3}', 'emulated-cluster', [115, 132], [106, 117]],
    ['cluster-2x2-{1,2,3}', 'emulated-cluster-2x2', [118, 144], [106, 124]],
  ] as const)('%s against %s', (files, machine, all, robust) => {
    const [stem, list] = /^(.*)\{(.*)\}$/.exec(files)!.slice(1);
    const reports = list.split(',').map((n) => readReport(path.join(dataDir, `${stem}${n}.json`), '--compare'));
    const { agreement } = compareWithBench(reports, { machine: loadProfile(machine) });
    expect([agreement.same, agreement.pairs.length]).toEqual(all);
    expect([agreement.everyLaunch.same, agreement.everyLaunch.pairs]).toEqual(robust);
    expect(doc).toContain(`${all[0]} of ${all[1]} pairs; ${robust[0]} of ${robust[1]} apart in every launch`);
  });
});
