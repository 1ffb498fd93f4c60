// `npm run bench:docs`: regenerates the measured parts of docs/benchmarks.md and its plots in
// docs/img/. Every table sits between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` markers;
// the prose around them is written by hand and kept. Each experiment is one `topocoll bench`
// job whose JSON is kept next to the plots (docs/img/NAME.json), so a table can be re-rendered
// without measuring again (--render-only).
//
//   node dist/bench/docs.js [--only NAME[,NAME]] [--render-only] [--quick]
// NAME: an experiment below, `calibration` (this machine) or `calibration-cluster`.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../mpi/native';
import { shapeOf, totalBytes } from '../select/registry';
import type { RulesFile } from '../select/rules';
import { formatBytes, formatUs, median, quantile } from './stats';
import { bestText, formatSpread, speedupText, verdictOf } from './table';
import { matchesCall } from '../select/rules';
import { latencyChart, speedupChart } from './svg';
import type { BenchReport } from './sweep';

const DOC = path.join(packageRoot, 'docs', 'benchmarks.md');
const IMG = path.join(packageRoot, 'docs', 'img');
const CLI = path.join(packageRoot, 'bin', 'topocoll.js');

interface Experiment {
  name: string;
  title: string;
  /** `topocoll bench` arguments (after the launch). */
  args: string[];
  /** How the job is started: self-launch with --np/--mpi, or the emulated cluster. */
  launch: { np: number; mpi: 'openmpi' | 'mpich' } | { cluster: true; np: number; mapBy: 'slot' | 'node' };
  env?: Record<string, string>;
  plots: boolean;
  /** Run `topocoll tune` with the same arguments first and measure under its rules (TOPOCOLL_RULES). */
  tuneFirst?: boolean;
}

const FULL_SIZES = '1..4M';
/** The emulated cluster the cluster experiments bring up (and down) for themselves. */
const CLUSTER = 'tcbench';

function clusterCli(args: string[]): number {
  const r = spawnSync(process.execPath, [CLI, 'cluster', ...args, '--name', CLUSTER], { stdio: ['ignore', 'inherit', 'inherit'], cwd: packageRoot });
  return r.status ?? 1;
}

const EXPERIMENTS: Experiment[] = [
  { name: 'local-openmpi-2', title: 'this machine, 2 ranks, Open MPI', args: ['--sizes', FULL_SIZES], launch: { np: 2, mpi: 'openmpi' }, plots: true },
  { name: 'local-mpich-2', title: 'this machine, 2 ranks, MPICH', args: ['--sizes', FULL_SIZES], launch: { np: 2, mpi: 'mpich' }, plots: true },
  {
    name: 'tuned-openmpi-2',
    title: 'this machine, 2 ranks, Open MPI, under the rules `topocoll tune` wrote just before',
    args: ['--collectives', 'allgather,bcast,alltoall', '--sizes', '8..1M', '--repetitions', '7'],
    launch: { np: 2, mpi: 'openmpi' },
    plots: false,
    tuneFirst: true,
  },
  {
    name: 'seed000-openmpi-8',
    title: 'seed 000: the four allgathers, 8 ranks (oversubscribed), Open MPI',
    args: ['--collectives', 'allgather', '--algorithms', 'ring,recursive_doubling,bruck,neighbor_exchange', '--sizes', '8,8K,120K'],
    launch: { np: 8, mpi: 'openmpi' },
    plots: false,
  },
  {
    name: 'seed001-openmpi-8',
    title: 'seed 001: shared-memory barrier, bcast and alltoall, 8 ranks (oversubscribed), Open MPI',
    args: ['--collectives', 'barrier,bcast,alltoall', '--sizes', '8,1K,64K,1M'],
    launch: { np: 8, mpi: 'openmpi' },
    plots: false,
  },
  {
    name: 'seed004-cluster-8',
    title: 'seed 004: Bruck and recursive doubling against their remapped versions, emulated cluster 4 hosts x 2 ranks, ranks placed contiguously (--map-by slot)',
    args: ['--collectives', 'allgather', '--algorithms', 'bruck,recursive_doubling,bruck_exch,bruck_reorder,recursive_doubling_exch,recursive_doubling_reorder', '--sizes', '8,1K,8K,64K', '--repetitions', '5'],
    launch: { cluster: true, np: 8, mapBy: 'slot' },
    env: { TOPOCOLL_TOPOLOGY: path.join(packageRoot, 'examples', 'topology', 'two-level.yaml') },
    plots: true,
  },
  {
    name: 'seed004-cluster-8-node',
    title: 'seed 004 as above, ranks dealt round-robin over the hosts (--map-by node)',
    args: ['--collectives', 'allgather', '--algorithms', 'bruck,recursive_doubling,bruck_exch,bruck_reorder,recursive_doubling_exch,recursive_doubling_reorder', '--sizes', '8,1K,8K,64K', '--repetitions', '5'],
    launch: { cluster: true, np: 8, mapBy: 'node' },
    env: { TOPOCOLL_TOPOLOGY: path.join(packageRoot, 'examples', 'topology', 'two-level.yaml') },
    plots: false,
  },
  {
    name: 'cluster-openmpi-8',
    title: 'emulated cluster, 4 hosts x 2 ranks (--map-by slot), 1 Gbit/s links, Open MPI',
    args: ['--collectives', 'allgather,bcast,alltoall,barrier', '--sizes', '8,1K,8K,64K,512K'],
    launch: { cluster: true, np: 8, mapBy: 'slot' },
    plots: true,
  },
];

function rulesPath(e: Experiment): string {
  return path.join(IMG, `${e.name}.rules.json`);
}

function runTune(e: Experiment, quick: boolean): void {
  if ('cluster' in e.launch) throw new Error(`bench:docs: ${e.name}: tuneFirst is for local jobs`);
  const args = [CLI, 'tune', '--np', String(e.launch.np), '--mpi', e.launch.mpi, ...e.args, '--output', rulesPath(e), '--quiet', ...(quick ? ['--quick'] : [])];
  process.stderr.write(`bench:docs: ${e.name}: ${[process.execPath, ...args].join(' ')}\n`);
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], cwd: packageRoot });
  if (r.status !== 0) throw new Error(`bench:docs: ${e.name}: tune failed (exit ${r.status ?? r.signal})`);
}

/** How `auto` under tuned rules fares against the best forced algorithm and native, per cell. */
function autoSummary(report: BenchReport, name: string): string {
  const cells = [...new Set(report.records.map((r) => `${r.collective}/${r.bytes}`))];
  let withinBest = 0;
  let notSlowerThanNative = 0;
  const misses: string[] = [];
  for (const cell of cells) {
    const row = report.records.filter((r) => `${r.collective}/${r.bytes}` === cell);
    const auto = row.find((r) => r.algorithm === 'auto');
    const native = row.find((r) => r.algorithm === 'native');
    const forced = row.filter((r) => r.algorithm !== 'auto');
    if (!auto || !native || forced.length === 0) continue;
    const best = forced.reduce((a, b) => (b.median_us < a.median_us ? b : a));
    const noise = Math.max(0.05, best.relative_spread, auto.relative_spread);
    if (auto.median_us <= best.median_us * (1 + noise)) withinBest++;
    else misses.push(`${auto.collective} ${formatBytes(auto.bytes)}: auto ${formatUs(auto.median_us)} µs, best ${best.algorithm} ${formatUs(best.median_us)} µs`);
    if (auto.median_us <= native.median_us * (1 + Math.max(0.05, native.relative_spread, auto.relative_spread))) notSlowerThanNative++;
  }
  // auto runs the algorithm its rule names, which the sweep also measured forced: the ratio of the
  // two is 1 up to the selection's cost, so its spread is this run's noise, measured.
  const rulesFile = path.join(IMG, `${name}.rules.json`);
  const rules = existsSync(rulesFile) ? (JSON.parse(readFileSync(rulesFile, 'utf8')) as RulesFile).rules : [];
  const sameAlgorithm: number[] = [];
  for (const cell of cells) {
    const auto = report.records.find((r) => `${r.collective}/${r.bytes}` === cell && r.algorithm === 'auto');
    if (!auto) continue;
    const call = { collective: auto.collective, ranks: auto.ranks, blockBytes: auto.bytes, totalBytes: totalBytes(auto.collective, auto.ranks, auto.bytes), nodes: report.job.nodes, mpi: report.mpi.flavour };
    const rule = rules.find((r) => matchesCall(r, call));
    const forced = rule && report.records.find((r) => r.collective === auto.collective && r.bytes === auto.bytes && r.algorithm === rule.algorithm);
    if (forced) sameAlgorithm.push(auto.median_us / forced.median_us);
  }
  const lines = [
    `\`auto\` under the tuned rules (\`docs/img/${name}.rules.json\`): within max(5 %, the cells' interquartile spread) of the best forced algorithm in ${withinBest} of ${cells.length} cells; ` +
      `not slower than native by more than that in ${notSlowerThanNative} of ${cells.length}.`,
  ];
  if (sameAlgorithm.length) {
    lines.push(
      '',
      `The noise of this run, measured: in ${sameAlgorithm.length} cells \`auto\` ran the very algorithm its rule names, which the sweep also timed forced; ` +
        `the ratio of the two medians, 1 on a quiet machine, had median ${median(sameAlgorithm).toFixed(2)}, quartiles ${quantile(sameAlgorithm, 0.25).toFixed(2)}–${quantile(sameAlgorithm, 0.75).toFixed(2)}, ` +
        `extremes ${quantile(sameAlgorithm, 0).toFixed(2)}–${quantile(sameAlgorithm, 1).toFixed(2)}.`,
    );
  }
  if (misses.length) lines.push('', `Cells where it was not: ${misses.join('; ')}.`);
  return lines.join('\n');
}

function measure(e: Experiment, quick: boolean): BenchReport {
  if (e.tuneFirst) runTune(e, quick);
  const json = path.join(IMG, `${e.name}.json`);
  const args = [...e.args, '--json', json, '--no-svg', '--quiet', ...(quick ? ['--quick'] : [])];
  let cmd: string;
  let cmdArgs: string[];
  if ('cluster' in e.launch) {
    cmd = process.execPath;
    cmdArgs = [CLI, 'cluster', 'run', '--name', CLUSTER, '--np', String(e.launch.np), '--map-by', e.launch.mapBy, '--timeout', '1500', '--', CLI, 'bench', ...args];
  } else {
    cmd = process.execPath;
    cmdArgs = [CLI, 'bench', '--np', String(e.launch.np), '--mpi', e.launch.mpi, ...args];
  }
  process.stderr.write(`bench:docs: ${e.name}: ${[cmd, ...cmdArgs].join(' ')}\n`);
  const env = { ...process.env, ...e.env, ...(e.tuneFirst ? { TOPOCOLL_RULES: rulesPath(e) } : {}) };
  const r = spawnSync(cmd, cmdArgs, { stdio: ['ignore', 'inherit', 'inherit'], env, cwd: packageRoot });
  if (r.status !== 0) throw new Error(`bench:docs: ${e.name} failed (exit ${r.status ?? r.signal})`);
  return JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
}

/**
 * A markdown table per collective: median µs (spread) and speedup vs native in the same run, as
 * `topocoll bench` prints them (src/bench/table.ts): ties within the noise marked, the best bold
 * only when it is a clear winner.
 */
const PAYLOAD_WORDS = { block: "bytes per rank's block", vector: 'message bytes', none: 'no payload' };

function markdownTables(report: BenchReport): string {
  const out: string[] = [];
  const j = report.job;
  out.push(
    `Measured ${report.created.slice(0, 16).replace('T', ' ')} UTC on \`${report.machine.hostname}\` (${report.machine.cpuModel}, ${report.machine.cpus} CPUs, load average ${report.machine.loadAverage} at the end), ` +
      `${report.mpi.library.split(',')[0]}, ${j.ranks} ranks on ${j.nodes} node${j.nodes === 1 ? '' : 's'}; ` +
      `median of ${report.options.repetitions} repetitions of ~${report.options.targetUs / 1000} ms each, algorithms interleaved; ` +
      'cell = median µs (spread: interquartile range, max − min under 4 repetitions), speedup vs native; ≈ and "tie": within the larger spread.',
  );
  for (const coll of [...new Set(report.records.map((r) => r.collective))]) {
    const recs = report.records.filter((r) => r.collective === coll);
    const algorithms = [...new Set(recs.map((r) => r.algorithm))];
    const sizes = [...new Set(recs.map((r) => r.bytes))];
    out.push('', `**${coll}** (${PAYLOAD_WORDS[shapeOf(coll)]})`, '');
    out.push(`| size | ${algorithms.join(' | ')} | best |`);
    out.push(`|---:|${algorithms.map(() => '---:').join('|')}|---|`);
    for (const bytes of sizes) {
      const row = algorithms.map((a) => recs.find((r) => r.algorithm === a && r.bytes === bytes));
      const native = row.find((r) => r?.algorithm === 'native');
      const v = verdictOf(row);
      const cells = row.map((r) => {
        if (!r) return '–';
        const text = `${formatUs(r.median_us)} (${formatSpread(r)}), ${speedupText(r, native).replace(/x$/, '×')}`;
        return r === v?.best && v.tied.length === 0 ? `**${text}**` : text;
      });
      out.push(`| ${shapeOf(coll) === 'none' ? '–' : formatBytes(bytes)} | ${cells.join(' | ')} | ${bestText(v)} |`);
    }
  }
  if (report.skipped.length) {
    out.push('', `Not measured: ${report.skipped.map((s) => `${s.collective} ${s.algorithm} (${s.why})`).join('; ')}.`);
  }
  return out.join('\n');
}

function plotsMarkdown(report: BenchReport, name: string): string {
  const lines: string[] = [];
  for (const coll of [...new Set(report.records.map((r) => r.collective))]) {
    if (shapeOf(coll) === 'none') continue;
    const files: string[] = [];
    for (const [kind, svg] of [
      ['latency', latencyChart(report, coll)],
      ['speedup', speedupChart(report, coll)],
    ] as const) {
      if (!svg) continue;
      const file = `${name}-${coll}-${kind}.svg`;
      writeFileSync(path.join(IMG, file), svg);
      files.push(`![${coll} ${kind}, ${name}](img/${file})`);
    }
    lines.push(files.join(' '));
  }
  return lines.join('\n\n');
}

/** Replaces the text between the markers of `name` (adds them at the end when missing). */
function replaceSection(doc: string, name: string, body: string): string {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const start = doc.indexOf(open);
  const end = doc.indexOf(close);
  if (start < 0 || end < start) return `${doc.trimEnd()}\n\n${open}\n${body}\n${close}\n`;
  return `${doc.slice(0, start + open.length)}\n${body}\n${doc.slice(end)}`;
}

const LOCAL_CALIBRATION = path.join(IMG, 'calibrated-openmpi-2.yaml');
const CLUSTER_CALIBRATION = path.join(IMG, 'calibrated-cluster-8.yaml');

/** `node [prefix] bin/topocoll.js bench --calibrate [extra]`: prefix launches the cluster job. */
function runCalibration(prefix: string[], extra: string[], file: string): void {
  const args = [...prefix, CLI, 'bench', '--calibrate', ...extra, '--topology-out', file];
  process.stderr.write(`bench:docs: calibration: ${[process.execPath, ...args].join(' ')}\n`);
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], cwd: packageRoot });
  if (r.status !== 0) throw new Error(`bench:docs: calibration failed (exit ${r.status ?? r.signal})`);
}

/** The topology files `bench --calibrate` wrote (this machine; the emulated cluster), verbatim. */
function calibrationSection(): string {
  const parts: string[] = [];
  for (const [file, what] of [
    [LOCAL_CALIBRATION, 'This machine, 2 ranks, Open MPI'],
    [CLUSTER_CALIBRATION, 'The emulated cluster, 4 hosts × 2 ranks, 1 Gbit/s links, Open MPI'],
  ]) {
    if (existsSync(file)) parts.push(`${what} (\`docs/img/${path.basename(file)}\`):`, '', '```yaml', readFileSync(file, 'utf8').trimEnd(), '```', '');
  }
  return parts.join('\n').trimEnd();
}

function main(argv: string[]): number {
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1].split(',') : undefined;
  const renderOnly = argv.includes('--render-only');
  const quick = argv.includes('--quick');
  mkdirSync(IMG, { recursive: true });
  // Read again before every write: the prose around the tables may be edited while experiments run.
  const readDoc = () => (existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Benchmarks\n');
  let failed = 0;
  if (!only || only.includes('calibration')) {
    try {
      if (!renderOnly) runCalibration([], ['--np', '2', '--mpi', 'openmpi'], LOCAL_CALIBRATION);
      writeFileSync(DOC, replaceSection(readDoc(), 'calibration', calibrationSection()));
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      failed++;
    }
  }
  const selected = EXPERIMENTS.filter((e) => !only || only.includes(e.name));
  // The cluster's calibration comes with its experiments, or alone as `--only calibration-cluster`.
  const clusterCalibration = !only || only.includes('calibration-cluster');
  const needsCluster = !renderOnly && (clusterCalibration || selected.some((e) => 'cluster' in e.launch));
  let clusterUp = false;
  if (needsCluster) {
    clusterUp = clusterCli(['up', '--hosts', '4', '--slots', '2', '--rate', '1gbit']) === 0;
    if (!clusterUp) process.stderr.write('bench:docs: the emulated cluster did not come up (root, ip, tc needed; docs/cluster.md): its experiments are skipped\n');
    try {
      if (clusterUp && clusterCalibration) runCalibration([CLI, 'cluster', 'run', '--name', CLUSTER, '--np', '8', '--map-by', 'slot', '--timeout', '600', '--'], [], CLUSTER_CALIBRATION);
      writeFileSync(DOC, replaceSection(readDoc(), 'calibration', calibrationSection()));
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      failed++;
    }
  }
  for (const e of selected) {
    if ('cluster' in e.launch && !renderOnly && !clusterUp) {
      failed++;
      continue;
    }
    let report: BenchReport;
    try {
      report = renderOnly ? (JSON.parse(readFileSync(path.join(IMG, `${e.name}.json`), 'utf8')) as BenchReport) : measure(e, quick);
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      failed++;
      continue;
    }
    const parts = [e.tuneFirst ? autoSummary(report, e.name) : '', markdownTables(report), e.plots ? plotsMarkdown(report, e.name) : ''];
    const body = parts.filter((p) => p !== '').join('\n\n');
    writeFileSync(DOC, replaceSection(readDoc(), e.name, body));
  }
  if (clusterUp) clusterCli(['down']);
  return failed ? 1 : 0;
}

if (require.main === module) process.exit(main(process.argv.slice(2)));
