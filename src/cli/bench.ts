// `topocoll bench`: every algorithm of each collective against the system MPI's own (native),
// over a range of sizes; an OSU-style table, JSON and SVG plots. Runs under mpirun, or starts
// itself under it with --np. `--calibrate` measures the machine's levels instead (ping-pong).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { calibrate, topologyYaml } from '../bench/calibrate';
import { warnIfLoaded } from '../bench/machine';
import { measureByLaunches, nativeNeedsLaunches, wantsNativeAlgorithms } from '../bench/native-sweep';
import { launchSelfIfNeeded, selfLauncher, SWEEP_OPTIONS, SWEEP_USAGE, sweepOptions } from '../bench/options';
import { maybeProgress } from '../bench/progress';
import { readReport, reportErrors } from '../bench/report';
import { latencyChart, speedupChart } from '../bench/svg';
import { libraryName, runSweep, sweepSteps, type BenchReport } from '../bench/sweep';
import { formatCsv, formatLongTable, formatSkipped, formatSummaryTable } from '../bench/table';
import { getWorld } from '../mpi/comm';
import { init } from '../mpi/lifecycle';
import { envValue } from '../config/env';
import { parseOptions, UsageError, type ParsedOptions } from '../config/args';
import type { Command } from './main';

const DEFAULT_PLOT_DIR = 'topocoll-bench';

/** Writes the report's SVG plots into `dir`; returns their paths. */
function writePlots(report: BenchReport, dir: string, prefix = ''): string[] {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const coll of [...new Set(report.records.map((r) => r.collective))]) {
    for (const [kind, svg] of [
      ['latency', latencyChart(report, coll)],
      ['speedup', speedupChart(report, coll)],
    ] as const) {
      if (!svg) continue;
      const file = path.join(dir, `${prefix}${coll}-${kind}.svg`);
      writeFileSync(file, svg);
      written.push(file);
    }
  }
  return written;
}

/** Writes the report as JSON after checking it against its published schema. */
export function writeReportJson(report: BenchReport, file: string): void {
  const errors = reportErrors(report);
  if (errors.length) throw new Error(`topocoll bench: the report does not match schemas/bench.schema.json: ${errors.slice(0, 5).join('; ')}`);
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 1)}\n`);
}

/** The table (or CSV) on stdout and the files asked for; shared by a sweep and --render. */
function output(report: BenchReport, o: ParsedOptions, rendered: boolean): void {
  const csv = o.csv as string | undefined;
  if (csv === '-') process.stdout.write(formatCsv(report));
  else console.log(o.long ? formatLongTable(report) : `${formatSummaryTable(report)}${formatSkipped(report)}`);
  const wrote: string[] = [];
  if (csv && csv !== '-') {
    mkdirSync(path.dirname(path.resolve(csv)), { recursive: true });
    writeFileSync(csv, formatCsv(report));
    wrote.push(`wrote ${csv}`);
  }
  if (o.json) {
    writeReportJson(report, o.json as string);
    wrote.push(`wrote ${o.json}`);
  }
  // A sweep plots by default; a saved report (like --json) only with --svg.
  const plotDir = (o.svg as string | undefined) ?? (rendered || o.json || o['no-svg'] ? undefined : DEFAULT_PLOT_DIR);
  if (plotDir && !o['no-svg']) wrote.push(`wrote ${writePlots(report, plotDir).length} plots in ${plotDir}/`);
  // With the CSV on stdout, the rest goes to stderr.
  if (wrote.length) (csv === '-' ? console.error : console.log)(['', ...wrote].join('\n'));
}

/** What --render cannot take: every option that measures. */
const MEASURING = [...Object.keys(SWEEP_OPTIONS).filter((k) => k !== 'quiet'), 'json', 'calibrate', 'topology-out'];

export const bench: Command = {
  summary: 'measure every algorithm against the system MPI (native): table, JSON, SVG plots; --calibrate for the topology',
  usage: [
    'topocoll bench [options]   (under mpirun, or with --np N to launch itself)',
    '',
    SWEEP_USAGE,
    '  --json FILE          write every cell (schemas/bench.schema.json)',
    `  --svg DIR            write latency and speedup plots per collective (default ./${DEFAULT_PLOT_DIR}/ unless --json or --no-svg)`,
    '  --no-svg             write no plots',
    '  --long               OSU-style rows per cell: median, spread, min, max, speedup, iterations',
    '  --csv FILE           write every cell as CSV: median, spread, min, max, speedup, ties (--csv -: on stdout, no table)',
    '  --render FILE        re-render a saved report (--json FILE): tables, --long, --csv, --svg DIR; measures nothing',
    '  --calibrate          measure latency, bandwidth and exchange bandwidth per level and γ (reduce ops), write a topology file',
    '  --topology-out FILE  where --calibrate writes (default topology.calibrated.yaml)',
  ].join('\n'),
  async run(args: string[]): Promise<number> {
    const spec = {
      ...SWEEP_OPTIONS,
      json: { type: 'string' as const },
      svg: { type: 'string' as const },
      'no-svg': { type: 'flag' as const },
      long: { type: 'flag' as const },
      csv: { type: 'string' as const },
      render: { type: 'string' as const },
      calibrate: { type: 'flag' as const },
      'topology-out': { type: 'string' as const },
    };
    const { options: o } = parseOptions(args, spec);
    if (o.render !== undefined) {
      const measuring = MEASURING.find((k) => o[k] !== undefined);
      if (measuring) throw new UsageError(`--render re-renders a saved report and measures nothing: --${measuring} does not go with it`);
      output(readReport(o.render as string, 'topocoll bench: --render'), o, true);
      return 0;
    }
    const sweep = sweepOptions(o); // bad options fail here, before any launch
    if (wantsNativeAlgorithms(sweep) && !o.calibrate) {
      const launcher = await selfLauncher(o);
      if (!launcher) throw new UsageError(nativeNeedsLaunches('bench'));
      const report = await measureByLaunches('bench', launcher, sweep, o.quiet === true);
      if (typeof report === 'number') return report;
      output(report, o, false);
      return failedChecks(report);
    }
    const launched = await launchSelfIfNeeded('bench', args, o);
    if (launched !== null) return launched;

    // The sweep notices an algorithm that cannot run here itself (and reports it as not
    // measured); TOPOCOLL_FALLBACK=error would end the job instead.
    process.env.TOPOCOLL_FALLBACK = 'silent';
    init();
    const world = getWorld();
    const rank = world.rank;
    // A launch of a sweep in launches: the report goes to the file, the launcher speaks.
    const reportTo = envValue('TOPOCOLL_BENCH_REPORT');
    if (rank === 0 && !reportTo) warnIfLoaded('bench');
    if (o.calibrate) {
      if (world.size < 2) throw new UsageError('--calibrate needs at least 2 ranks');
      const c = calibrate(world, o.quick === true, sweep.timing ?? 'loop', sweep.rotateBytes);
      if (rank === 0) {
        const file = (o['topology-out'] as string | undefined) ?? 'topology.calibrated.yaml';
        writeFileSync(file, topologyYaml(c, libraryName()));
        for (const f of c.levels) {
          console.log(`${f.name} (${f.scope}, ranks ${f.ranks.join(' and ')}): latency ${(f.latency * 1e6).toFixed(2)} us, bandwidth ${(f.bandwidth / 1048576).toFixed(0)} MiB/s, both ways at once ${Number.isFinite(f.exchangeBandwidth) ? `${(f.exchangeBandwidth / 1048576).toFixed(0)} MiB/s each` : 'not measured (the times did not grow with the size: too noisy a machine; the file leaves exchange_bandwidth out)'}`);
        }
        console.log(`round overhead (the engine's work per schedule round): ${(c.roundOverhead * 1e6).toFixed(3)} us; copy bandwidth ${(c.copyBandwidth / 1048576).toFixed(0)} MiB/s`);
        console.log(`reduce ops (float SUM, ${c.combinePoints[0][0] / 1024} KiB-4 MiB): gamma ${(c.gamma * 1e9).toFixed(3)} ns per byte combined, ${(1 / c.gamma / 1048576).toFixed(0)} MiB/s`);
        console.log(`wrote ${file} (use it with TOPOCOLL_TOPOLOGY=${file})`);
      }
      return 0;
    }
    if (sweep.root >= world.size) throw new UsageError(`--root=${sweep.root} is not a rank of a ${world.size}-rank job`);

    const progress = maybeProgress(rank, o.quiet === true, sweepSteps(sweep));
    const report = runSweep(world, sweep, progress);
    if (rank !== 0) return 0;
    if (reportTo) {
      writeReportJson(report, reportTo);
      return 0;
    }
    output(report, o, false);
    return failedChecks(report);
  },
};

/** 1, with the cells named on stderr, when --check found wrong data; else 0. */
function failedChecks(report: BenchReport): number {
  const failed = report.records.filter((r) => r.check === 'failed');
  if (failed.length === 0) return 0;
  console.error(`topocoll bench: --check found wrong data in ${failed.length} cells: ${failed.map((r) => `${r.collective}/${r.algorithm}/${r.bytes} B`).join(', ')}`);
  return 1;
}
