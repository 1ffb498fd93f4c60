// The tables of `topocoll bench` on synthetic reports: the spread next to every median, ties
// where a difference lies within the noise, 3 significant digits, the CSV, `--render` of a saved
// report, and the load warning (src/bench/table.ts, stats.ts, machine.ts; src/cli/bench.ts).
// Formatting and decisions only: no timing is measured or compared here.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadWarning } from '../../src/bench/machine';
import { formatSig, formatUs, spreadOf } from '../../src/bench/stats';
import type { BenchRecord, BenchReport } from '../../src/bench/sweep';
import { formatCsv, formatLongTable, formatSkipped, formatSummaryTable, isTie } from '../../src/bench/table';
import { decide, describeKept } from '../../src/bench/tune';
import { schemaErrors } from '../../src/config/schemas';

const repoRoot = path.resolve(__dirname, '../..');
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-table-'));

/** A cell whose repetitions are `times` (the summary fields derived as the sweep derives them). */
function cell(collective: BenchRecord['collective'], algorithm: string, bytes: number, times: number[], nativeMedian?: number): BenchRecord {
  const s = [...times].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  return {
    collective, algorithm, bytes, basis: collective === 'barrier' ? 'none' : collective === 'bcast' ? 'message' : 'block', ranks: 2,
    iterations: 100, repetitions: times.length, times_us: times, min_us: s[0], median_us: median, max_us: s[s.length - 1],
    relative_spread: 0.01, speedup_vs_native: nativeMedian === undefined ? null : Number((nativeMedian / median).toFixed(4)), check: 'off', errors: 0,
  };
}

function report(records: BenchRecord[], loadAverage = 0.5): BenchReport {
  return {
    format: 'topocoll-bench', version: 1, created: '2026-11-26T06:00:00Z', generator: 'topocoll 0.1.0',
    machine: { hostname: 'box', cpuModel: 'cpu', cpus: 2, memoryBytes: 1, os: 'linux', node: 'v20', loadAverage },
    mpi: { flavour: 'openmpi', library: 'Open MPI v4.1.4' }, job: { ranks: 2, nodes: 1, ranksPerNode: [2] },
    options: { collectives: ['allgather'], algorithms: [], sizes: [8, 1024], repetitions: 3, targetUs: 1000, rotateBytes: 0, check: false, root: 0 },
    records, skipped: [{ collective: 'allgather', algorithm: 'shm_pool', why: 'shared memory is off (TOPOCOLL_SHM=0)' }],
  };
}

// 8 B: ring is 2% faster than native, inside both spreads: a tie. 1 KiB: ring is twice as fast,
// far outside the spreads: a winner. auto is fastest at 1 KiB but never the best (it runs one of the others).
const NATIVE_8 = [10.0, 10.4, 9.8];
const NATIVE_1K = [20.0, 20.2, 19.9];
const RECORDS = [
  cell('allgather', 'native', 8, NATIVE_8, 10.0),
  cell('allgather', 'ring', 8, [9.8, 9.5, 10.3], 10.0),
  cell('allgather', 'bruck', 8, [12.0, 12.1, 12.2], 10.0),
  cell('allgather', 'auto', 8, [9.9, 9.9, 9.9], 10.0),
  cell('allgather', 'native', 1024, NATIVE_1K, 20.0),
  cell('allgather', 'ring', 1024, [10.0, 10.1, 9.95], 20.0),
  cell('allgather', 'bruck', 1024, [15.0, 15.1, 15.2], 20.0),
  cell('allgather', 'auto', 1024, [9.0, 9.0, 9.0], 20.0),
];

describe('spread and ties', () => {
  it('takes the interquartile range from 4 repetitions, min..max below', () => {
    expect(spreadOf([3, 1, 2])).toEqual({ lo: 1, hi: 3, kind: 'range' });
    expect(spreadOf([1, 2, 3, 4, 5])).toEqual({ lo: 2, hi: 4, kind: 'iqr' });
    expect(spreadOf([7])).toEqual({ lo: 7, hi: 7, kind: 'range' });
  });

  it('is a tie when the medians differ by less than the larger spread, a winner when not', () => {
    const a = cell('bcast', 'binomial', 8, [10, 11, 12]); // median 11, spread 2
    expect(isTie(a, cell('bcast', 'native', 8, [12.5, 12.5, 12.5]))).toBe(true); // 1.5 apart, inside a's spread
    expect(isTie(a, cell('bcast', 'native', 8, [13.5, 13.5, 13.5]))).toBe(false); // 2.5 apart
    expect(isTie(cell('bcast', 'x', 8, [5, 5, 5]), cell('bcast', 'y', 8, [5, 5, 5]))).toBe(true);
    // Symmetric: the wider of the two spreads counts.
    const wide = cell('bcast', 'native', 8, [10, 20, 30, 40]); // median 25, IQR 17.5..32.5
    const narrow = cell('bcast', 'binomial', 8, [14, 14, 14, 14]);
    expect(isTie(wide, narrow)).toBe(true);
    expect(isTie(narrow, wide)).toBe(true);
  });
});

describe('3 significant digits', () => {
  it('rounds every magnitude to 3 digits, never in exponent form', () => {
    expect([0.0012345, 0.12345, 1.2345, 12.345, 123.45, 1234.5, 123456].map(formatUs)).toEqual(['0.00123', '0.123', '1.23', '12.3', '123', '1230', '123000']);
    // Significant zeros stay: 10.0 is not 10.
    expect([10, 1.5, 0.15, 0].map((x) => formatSig(x))).toEqual(['10.0', '1.50', '0.150', '0.00']);
    // The spread, to 2 (5 repetitions do not pin a third).
    expect([0.00349, 0.6, 47.2, 1234].map((x) => formatSig(x, 2))).toEqual(['0.0035', '0.60', '47', '1200']);
    expect(formatUs(NaN)).toBe('-');
  });
});

describe('formatSummaryTable', () => {
  const text = formatSummaryTable(report(RECORDS));
  const lines = text.split('\n');

  it('shows median (spread) in every cell and says what the spread is', () => {
    expect(text).toContain('# spread: interquartile range of the repetitions (max - min under 4)');
    expect(text).toContain('# allgather (size: bytes of one rank\'s block); cell: median (spread)');
    const row8 = lines.find((l) => l.startsWith('  8 '))!;
    // native: median 10, spread 10.4 - 9.8 = 0.6; ring: 9.8 (0.8); bruck 12.1 (0.2).
    expect(row8.match(/[\d.]+ \([\d.]+\)/g)).toEqual(['10.0 (0.60)', '9.80 (0.80)', '12.1 (0.20)', '9.90 (0.0)']);
  });

  it('marks a best inside the spread as a tie, and its speedup with ≈; a clear winner plainly', () => {
    const row8 = lines.find((l) => l.startsWith('  8 '))!;
    expect(row8).toMatch(/ tie: ring, native +≈1\.02x$/);
    const row1k = lines.find((l) => l.startsWith('  1K '))!;
    expect(row1k).toMatch(/ ring +2\.00x$/);
    expect(row1k).not.toContain('auto  ');
  });

  it('flags a report measured on a machine busier than its CPUs', () => {
    expect(text).toContain('2 CPUs, load 0.5; 2 ranks on 1 node');
    expect(formatSummaryTable(report(RECORDS, 3.1))).toContain('2 CPUs, load 3.1 (above the 2 CPUs: noisy)');
  });
});

describe('formatLongTable', () => {
  it('has a spread column and marks speedups within the noise', () => {
    const lines = formatLongTable(report(RECORDS)).split('\n');
    expect(lines).toContain(`# ${'Size'.padEnd(10)} ${'Algorithm'.padEnd(20)}  Median(us)  Spread(us)     Min(us)     Max(us) vs native Iterations`);
    expect(lines.find((l) => /^ {2}8 B +ring /.test(l))!.split(/\s+/).slice(3)).toEqual(['ring', '9.80', '0.80', '9.50', '10.3', '≈1.02x', '100']);
    expect(lines.find((l) => /^ {2}1 KiB +ring /.test(l))!.split(/\s+/).slice(3)).toEqual(['ring', '10.0', '0.15', '9.95', '10.1', '2.00x', '100']);
  });
});

describe('formatCsv', () => {
  it('writes one row per cell with the spread, the verdict against native and the best, at full precision', () => {
    const rows = formatCsv(report(RECORDS)).trimEnd().split('\n').map((l) => l.split(','));
    expect(rows[0]).toEqual(['collective', 'basis', 'bytes', 'algorithm', 'repetitions', 'iterations', 'median_us', 'spread_lo_us', 'spread_hi_us', 'spread_kind', 'min_us', 'max_us', 'speedup_vs_native', 'vs_native', 'best', 'check']);
    expect(rows).toHaveLength(1 + RECORDS.length);
    const byCell = Object.fromEntries(rows.slice(1).map((r) => [`${r[2]} ${r[3]}`, Object.fromEntries(rows[0].map((c, i) => [c, r[i]]))]));
    expect(byCell['8 ring']).toMatchObject({ median_us: '9.8', spread_lo_us: '9.5', spread_hi_us: '10.3', spread_kind: 'range', speedup_vs_native: '1.0204', vs_native: 'tie', best: 'tie' });
    expect(byCell['8 native']).toMatchObject({ vs_native: '', best: 'tie' });
    expect(byCell['8 bruck']).toMatchObject({ vs_native: 'slower', best: '' });
    expect(byCell['1024 ring']).toMatchObject({ vs_native: 'faster', best: 'best' });
    expect(byCell['1024 auto']).toMatchObject({ vs_native: 'faster', best: '' });
    const iqr = formatCsv(report([cell('barrier', 'native', 0, [1, 2, 3, 4, 5])])).trimEnd().split('\n')[1].split(',');
    expect(iqr.slice(7, 10)).toEqual(['2', '4', 'iqr']);
  });
});

describe('tune keeps the default within the noise, and says so', () => {
  it('names the faster algorithm, by how much and the noise', () => {
    const rec = (algorithm: string, bytes: number, median: number) => ({ ...cell('allgather', algorithm, bytes, [median, median, median]), ranks: 4 });
    const r4 = (records: BenchRecord[]): BenchReport => ({ ...report(records), job: { ranks: 4, nodes: 1, ranksPerNode: [4] } });
    // 8 and 64 B: ring 2% faster than the default (recursive_doubling at 4 ranks), under the 3% floor; 1 KiB: ring 25% faster.
    const records = [8, 64, 1024].flatMap((b) => [rec('native', b, 20), rec('recursive_doubling', b, b === 1024 ? 8 : 5.1), rec('ring', b, b === 1024 ? 6 : 5)]);
    const decisions = decide(r4(records), { noiseFloor: 0.03 });
    expect(decisions.map((d) => d.chosen)).toEqual(['recursive_doubling', 'recursive_doubling', 'ring']);
    expect(describeKept(decisions)).toEqual(['allgather 8 B..64 B: kept the default (recursive_doubling): difference within noise (it took 2% longer than ring; noise 3%)']);
    // A clear winner everywhere: nothing kept.
    expect(describeKept(decide(r4(records.filter((r) => r.bytes === 1024)), { noiseFloor: 0.03 }))).toEqual([]);
  });
});

describe('the load warning', () => {
  it('warns when the 1-minute load average exceeds the cores, not otherwise', () => {
    expect(loadWarning('bench', 3.52, 2)).toBe('topocoll bench: warning: the 1-minute load average (3.52) exceeds the 2 cores: other work competes for the CPUs, the numbers will be noisy (differences within the spread are marked as ties)');
    expect(loadWarning('tune', 1.5, 1)).toMatch(/^topocoll tune: warning: .* exceeds the 1 core: .* \(differences within the noise keep the defaults\)$/);
    expect(loadWarning('bench', 2, 2)).toBeNull();
    expect(loadWarning('bench', 0.1, 16)).toBeNull();
  });
});

describe('topocoll bench --render (bin/topocoll.js over dist/)', () => {
  const file = path.join(tmp, 'report.json');
  const saved = report(RECORDS);
  writeFileSync(file, JSON.stringify(saved));
  const topocoll = (args: string[]) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TOPOCOLL_') && !k.startsWith('OMPI_COMM_WORLD') && k !== 'PMI_RANK'));
    return spawnSync(process.execPath, [path.join(repoRoot, 'bin/topocoll.js'), 'bench', ...args], { env, cwd: tmp, encoding: 'utf8', timeout: 60_000 });
  };

  it('the saved report is a valid bench report', () => {
    expect(schemaErrors('bench', saved)).toEqual([]);
  });

  it('reproduces the tables of a saved report without measuring, and writes CSV and plots on request', () => {
    const r = topocoll(['--render', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${formatSummaryTable(saved)}${formatSkipped(saved)}\n`);
    expect(existsSync(path.join(tmp, 'topocoll-bench'))).toBe(false); // no plots unless --svg
    const long = topocoll(['--render', file, '--long']);
    expect(long.stdout).toBe(`${formatLongTable(saved)}\n`);
    const csv = topocoll(['--render', file, '--csv', '-']);
    expect(csv.status, csv.stderr).toBe(0);
    expect(csv.stdout).toBe(formatCsv(saved));
    const svg = path.join(tmp, 'plots');
    const files = topocoll(['--render', file, '--csv', path.join(tmp, 'out.csv'), '--svg', svg]);
    expect(files.status, files.stderr).toBe(0);
    expect(readFileSync(path.join(tmp, 'out.csv'), 'utf8')).toBe(formatCsv(saved));
    expect(readdirSync(svg).sort()).toEqual(['allgather-latency.svg', 'allgather-speedup.svg']);
    expect(files.stdout).toContain(`\nwrote ${path.join(tmp, 'out.csv')}\nwrote 2 plots in ${svg}/\n`);
  });

  it('refuses options that measure (usage, 2) and a file that is not a report (failure, 1)', () => {
    const both = topocoll(['--render', file, '--np', '4']);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('topocoll bench: --render re-renders a saved report and measures nothing: --np does not go with it');
    writeFileSync(path.join(tmp, 'bad.json'), '{"format":"other"}');
    const bad = topocoll(['--render', path.join(tmp, 'bad.json')]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^topocoll bench: --render .*bad\.json is not a bench report/);
    expect(topocoll(['--render', path.join(tmp, 'missing.json')]).status).toBe(1);
  });
});
