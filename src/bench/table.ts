// Text output in the style of the OSU micro-benchmarks ("# Size  Avg Latency(us)"), which HPC
// users read at a glance: a header of '#' lines, then one row per message size.
import type { CollectiveName } from '../select/registry';
import { NATIVE } from '../select/registry';
import { formatBytes, formatUs, shortBytes } from './stats';
import type { BenchRecord, BenchReport } from './sweep';
import { SIZE_BASIS } from './sweep';

const BASIS_TEXT = { block: 'bytes of one rank\'s block', message: 'bytes of the message', none: 'no payload' };

function collectivesOf(report: BenchReport): CollectiveName[] {
  return [...new Set(report.records.map((r) => r.collective))];
}

function header(report: BenchReport): string[] {
  const j = report.job;
  const shape = `${j.ranks} ranks on ${j.nodes} node${j.nodes === 1 ? '' : 's'}`;
  return [
    `# topocoll bench ${report.generator.replace(/^topocoll /, '')}: ${report.mpi.library}`,
    `# ${report.machine.hostname}: ${report.machine.cpuModel}, ${report.machine.cpus} CPUs, load ${report.machine.loadAverage}; ${shape}`,
    `# times in microseconds: median of ${report.options.repetitions} repetitions, each the slowest rank's mean over the iterations`,
  ];
}

/**
 * One table per collective: the median of every algorithm per size, then the best algorithm and
 * its speedup against native (> 1: faster than the system MPI's own collective).
 */
export function formatSummaryTable(report: BenchReport): string {
  const out = header(report);
  for (const coll of collectivesOf(report)) {
    const records = report.records.filter((r) => r.collective === coll);
    const algorithms = [...new Set(records.map((r) => r.algorithm))];
    const sizes = [...new Set(records.map((r) => r.bytes))];
    const widths = algorithms.map((a) => Math.max(9, a.length));
    out.push('', `# ${coll} (size: ${BASIS_TEXT[SIZE_BASIS[coll]]})`);
    out.push(`# ${'Size'.padEnd(8)} ${algorithms.map((a, i) => a.padStart(widths[i])).join(' ')}  ${'best'.padEnd(20)} vs native`);
    for (const bytes of sizes) {
      const row = algorithms.map((a) => records.find((r) => r.algorithm === a && r.bytes === bytes));
      const best = bestOf(row.filter((r): r is BenchRecord => r !== undefined && r.algorithm !== 'auto'));
      const cells = row.map((r, i) => (r ? formatUs(r.median_us) : '-').padStart(widths[i]));
      const speedup = best?.speedup_vs_native ? `${best.speedup_vs_native.toFixed(2)}x` : '-';
      out.push(`  ${(coll === 'barrier' ? '-' : shortBytes(bytes)).padEnd(8)} ${cells.join(' ')}  ${(best?.algorithm ?? '-').padEnd(20)} ${speedup}`);
    }
  }
  return out.join('\n');
}

/** Per cell, OSU's columns: min, median and max over the repetitions, iterations, speedup. */
export function formatLongTable(report: BenchReport): string {
  const out = header(report);
  for (const coll of collectivesOf(report)) {
    out.push('', `# ${coll} (size: ${BASIS_TEXT[SIZE_BASIS[coll]]})`);
    out.push(`# ${'Size'.padEnd(10)} ${'Algorithm'.padEnd(20)} ${'Median(us)'.padStart(11)} ${'Min(us)'.padStart(11)} ${'Max(us)'.padStart(11)} ${'vs native'.padStart(9)} ${'Iterations'.padStart(10)}${report.options.check ? '  Check' : ''}`);
    for (const r of report.records.filter((x) => x.collective === coll)) {
      out.push(
        `  ${(coll === 'barrier' ? '-' : formatBytes(r.bytes)).padEnd(10)} ${r.algorithm.padEnd(20)} ${formatUs(r.median_us).padStart(11)} ${formatUs(r.min_us).padStart(11)} ${formatUs(r.max_us).padStart(11)} ${(r.speedup_vs_native ? `${r.speedup_vs_native.toFixed(2)}x` : '-').padStart(9)} ${String(r.iterations).padStart(10)}${report.options.check ? `  ${r.check}` : ''}`,
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

export function formatSkipped(report: BenchReport): string {
  if (!report.skipped.length) return '';
  return ['', '# not measured (the algorithm cannot run here):', ...report.skipped.map((s) => `#   ${s.collective} ${s.algorithm}: ${s.why}`)].join('\n');
}
