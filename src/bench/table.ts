// Text output in the style of the OSU micro-benchmarks ("# Size  Avg Latency(us)"), which HPC
// users read at a glance: a header of '#' lines, then one row per message size.
import type { CollectiveName } from '../select/registry';
import { AUTO, NATIVE, shapeOf, sizeBasisOf } from '../select/registry';
import { formatBytes, formatSig, formatUs, shortBytes, spreadOf } from './stats';
import type { BenchRecord, BenchReport } from './sweep';

const BASIS_TEXT = { block: 'bytes of one rank\'s block', message: 'bytes of the message', none: 'no payload' };

function collectivesOf(report: BenchReport): CollectiveName[] {
  return [...new Set(report.records.map((r) => r.collective))];
}

function header(report: BenchReport): string[] {
  const j = report.job;
  const m = report.machine;
  const shape = `${j.ranks} ranks on ${j.nodes} node${j.nodes === 1 ? '' : 's'}`;
  const load = m.loadAverage > m.cpus ? `load ${m.loadAverage} (above the ${m.cpus} CPUs: noisy)` : `load ${m.loadAverage}`;
  return [
    `# topocoll bench ${report.generator.replace(/^topocoll /, '')}: ${report.mpi.library}`,
    `# ${m.hostname}: ${m.cpuModel}, ${m.cpus} CPUs, ${load}; ${shape}`,
    `# times in microseconds: median of ${report.options.repetitions} repetitions, each the slowest rank's mean over the iterations`,
    '# spread: interquartile range of the repetitions (max - min under 4); "≈", "tie": the medians differ by less than the larger spread',
  ];
}

/** The width of a cell's spread (interquartile range, or max - min under 4 repetitions). */
function spreadWidth(r: BenchRecord): number {
  const s = spreadOf(r.times_us);
  return s.hi - s.lo;
}

/** The spread as the tables print it: 2 significant digits (5 repetitions do not pin a third). */
export function formatSpread(r: BenchRecord): string {
  return formatSig(spreadWidth(r), 2);
}

/** Two cells tie when their medians differ by no more than the larger of their spreads: noise, not a winner. */
export function isTie(a: BenchRecord, b: BenchRecord): boolean {
  return Math.abs(a.median_us - b.median_us) <= Math.max(spreadWidth(a), spreadWidth(b));
}

/** The fastest record of a row (auto left out), and the others within its noise, fastest first. */
export function verdictOf(row: readonly (BenchRecord | undefined)[]): { best: BenchRecord; tied: BenchRecord[] } | undefined {
  const candidates = row.filter((r): r is BenchRecord => r !== undefined && r.algorithm !== AUTO);
  const best = bestOf(candidates);
  if (!best) return undefined;
  const tied = candidates.filter((r) => r !== best && isTie(r, best)).sort((a, b) => a.median_us - b.median_us);
  return { best, tied };
}

/** "1.35x", or "≈1.02x" when the cell ties with native; "-" without a native measurement. */
export function speedupText(r: BenchRecord | undefined, native: BenchRecord | undefined): string {
  if (!r?.speedup_vs_native) return '-';
  const tie = native !== undefined && r !== native && isTie(r, native);
  return `${tie ? '≈' : ''}${formatSig(r.speedup_vs_native)}x`;
}

/** The best column: the winner, or "tie: a, b +N" when others are within its noise. */
export function bestText(v: { best: BenchRecord; tied: BenchRecord[] } | undefined): string {
  if (!v) return '-';
  if (v.tied.length === 0) return v.best.algorithm;
  const names = [v.best, ...v.tied].map((r) => r.algorithm);
  return `tie: ${names.slice(0, 2).join(', ')}${names.length > 2 ? ` +${names.length - 2}` : ''}`;
}

/**
 * One table per collective: the median (spread) of every algorithm per size, then the best
 * algorithm and its speedup against native (> 1: faster than the system MPI's own collective);
 * within the noise, "tie" and "≈".
 */
export function formatSummaryTable(report: BenchReport): string {
  const out = header(report);
  for (const coll of collectivesOf(report)) {
    const records = report.records.filter((r) => r.collective === coll);
    const algorithms = [...new Set(records.map((r) => r.algorithm))];
    const sizes = [...new Set(records.map((r) => r.bytes))];
    const rows = sizes.map((bytes) => algorithms.map((a) => records.find((r) => r.algorithm === a && r.bytes === bytes)));
    const text = rows.map((row) => row.map((r) => (r ? `${formatUs(r.median_us)} (${formatSpread(r)})` : '-')));
    const widths = algorithms.map((a, i) => Math.max(9, a.length, ...text.map((t) => t[i].length)));
    const verdicts = rows.map((row) => verdictOf(row));
    const bestWidth = Math.max(20, ...verdicts.map((v) => bestText(v).length));
    out.push('', `# ${coll} (size: ${BASIS_TEXT[sizeBasisOf(coll)]}); cell: median (spread)`);
    out.push(`# ${'Size'.padEnd(8)} ${algorithms.map((a, i) => a.padStart(widths[i])).join('  ')}  ${'best'.padEnd(bestWidth)} vs native`);
    rows.forEach((row, k) => {
      const v = verdicts[k];
      const native = row.find((r) => r?.algorithm === NATIVE);
      const cells = text[k].map((t, i) => t.padStart(widths[i]));
      out.push(`  ${(shapeOf(coll) === 'none' ? '-' : shortBytes(sizes[k])).padEnd(8)} ${cells.join('  ')}  ${bestText(v).padEnd(bestWidth)} ${speedupText(v?.best, native)}`);
    });
  }
  return out.join('\n');
}

/** Per cell, OSU's columns: median, spread, min and max over the repetitions, speedup, iterations. */
export function formatLongTable(report: BenchReport): string {
  const out = header(report);
  for (const coll of collectivesOf(report)) {
    const records = report.records.filter((x) => x.collective === coll);
    out.push('', `# ${coll} (size: ${BASIS_TEXT[sizeBasisOf(coll)]})`);
    out.push(`# ${'Size'.padEnd(10)} ${'Algorithm'.padEnd(20)} ${'Median(us)'.padStart(11)} ${'Spread(us)'.padStart(11)} ${'Min(us)'.padStart(11)} ${'Max(us)'.padStart(11)} ${'vs native'.padStart(9)} ${'Iterations'.padStart(10)}${report.options.check ? '  Check' : ''}`);
    for (const r of records) {
      const native = records.find((x) => x.bytes === r.bytes && x.algorithm === NATIVE);
      out.push(
        `  ${(shapeOf(coll) === 'none' ? '-' : formatBytes(r.bytes)).padEnd(10)} ${r.algorithm.padEnd(20)} ${formatUs(r.median_us).padStart(11)} ${formatSpread(r).padStart(11)} ${formatUs(r.min_us).padStart(11)} ${formatUs(r.max_us).padStart(11)} ${speedupText(r, native).padStart(9)} ${String(r.iterations).padStart(10)}${report.options.check ? `  ${r.check}` : ''}`,
      );
    }
  }
  if (report.skipped.length) {
    out.push('', '# not measured (the algorithm cannot run here):');
    for (const s of report.skipped) out.push(`#   ${s.collective} ${s.algorithm}: ${s.why}`);
  }
  return out.join('\n');
}

/** The fastest record of a row (ties: native first, so "no gain" reads as such). */
function bestOf(row: readonly BenchRecord[]): BenchRecord | undefined {
  let best: BenchRecord | undefined;
  for (const r of row) {
    if (!best || r.median_us < best.median_us || (r.median_us === best.median_us && r.algorithm === NATIVE)) best = r;
  }
  return best;
}

const CSV_COLUMNS = [
  'collective', 'basis', 'bytes', 'algorithm', 'repetitions', 'iterations', 'median_us', 'spread_lo_us', 'spread_hi_us', 'spread_kind',
  'min_us', 'max_us', 'speedup_vs_native', 'vs_native', 'best', 'check',
] as const;

function csvField(v: string | number): string {
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * Every cell as one CSV row, full precision: the spread's bounds and kind (iqr, or range under 4
 * repetitions); vs_native: faster, slower or tie (within the noise); best: best, tie (within
 * the noise of the best) or empty (auto is never best: it runs one of the others).
 */
export function formatCsv(report: BenchReport): string {
  const lines = [CSV_COLUMNS.join(',')];
  for (const coll of collectivesOf(report)) {
    const records = report.records.filter((r) => r.collective === coll);
    for (const bytes of [...new Set(records.map((r) => r.bytes))]) {
      const row = records.filter((r) => r.bytes === bytes);
      const native = row.find((r) => r.algorithm === NATIVE);
      const v = verdictOf(row);
      for (const r of row) {
        const s = spreadOf(r.times_us);
        const vsNative = !native || r === native ? '' : isTie(r, native) ? 'tie' : r.median_us < native.median_us ? 'faster' : 'slower';
        const best = !v ? '' : v.tied.includes(r) || (r === v.best && v.tied.length > 0) ? 'tie' : r === v.best ? 'best' : '';
        const fields: Record<(typeof CSV_COLUMNS)[number], string | number> = {
          collective: r.collective, basis: r.basis, bytes: r.bytes, algorithm: r.algorithm, repetitions: r.repetitions, iterations: r.iterations,
          median_us: r.median_us, spread_lo_us: Number(s.lo.toPrecision(6)), spread_hi_us: Number(s.hi.toPrecision(6)), spread_kind: s.kind,
          min_us: r.min_us, max_us: r.max_us, speedup_vs_native: r.speedup_vs_native ?? '', vs_native: vsNative, best, check: r.check,
        };
        lines.push(CSV_COLUMNS.map((c) => csvField(fields[c])).join(','));
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

export function formatSkipped(report: BenchReport): string {
  if (!report.skipped.length) return '';
  return ['', '# not measured (the algorithm cannot run here):', ...report.skipped.map((s) => `#   ${s.collective} ${s.algorithm}: ${s.why}`)].join('\n');
}
