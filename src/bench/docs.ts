// `npm run bench:docs`: regenerates the measured parts of docs/benchmarks.md and its plots in
// docs/img/. Every table sits between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` markers;
// the prose around them is written by hand and kept. Each experiment is one `topocoll bench`
// job whose JSON is kept next to the plots (docs/img/NAME.json), so a table can be re-rendered
// without measuring again (--render-only).
//
//   node dist/bench/docs.js [--only NAME[,NAME]] [--render-only] [--quick]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../mpi/native';
import { formatBytes, formatUs } from './stats';
import { latencyChart, speedupChart } from './svg';
import type { BenchRecord, BenchReport } from './sweep';

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
}

const FULL_SIZES = '1..4M';

export const EXPERIMENTS: Experiment[] = [
  { name: 'local-openmpi-2', title: 'this machine, 2 ranks, Open MPI', args: ['--sizes', FULL_SIZES], launch: { np: 2, mpi: 'openmpi' }, plots: true },
  { name: 'local-mpich-2', title: 'this machine, 2 ranks, MPICH', args: ['--sizes', FULL_SIZES], launch: { np: 2, mpi: 'mpich' }, plots: true },
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
    title: 'seed 004: Bruck and recursive doubling against their remapped versions, emulated cluster 4 hosts x 2 ranks, ranks dealt round-robin (--map-by node)',
    args: ['--collectives', 'allgather', '--algorithms', 'bruck,recursive_doubling,bruck_exch,bruck_reorder,recursive_doubling_exch,recursive_doubling_reorder', '--sizes', '8,1K,8K,64K', '--repetitions', '5'],
    launch: { cluster: true, np: 8, mapBy: 'node' },
    env: { TOPOCOLL_TOPOLOGY: path.join(packageRoot, 'examples', 'topology', 'two-level.yaml') },
    plots: true,
  },
  {
    name: 'cluster-openmpi-8',
    title: 'emulated cluster, 4 hosts x 2 ranks (--map-by slot), 1 Gbit/s links, Open MPI',
    args: ['--collectives', 'allgather,bcast,alltoall,barrier', '--sizes', '8,1K,8K,64K,512K'],
    launch: { cluster: true, np: 8, mapBy: 'slot' },
    plots: true,
  },
];

function measure(e: Experiment, quick: boolean): BenchReport {
  const json = path.join(IMG, `${e.name}.json`);
  const args = [...e.args, '--json', json, '--no-svg', '--quiet', ...(quick ? ['--quick'] : [])];
  let cmd: string;
  let cmdArgs: string[];
  if ('cluster' in e.launch) {
    cmd = process.execPath;
    cmdArgs = [CLI, 'cluster', 'run', '--np', String(e.launch.np), '--map-by', e.launch.mapBy, '--timeout', '1500', CLI, 'bench', ...args];
  } else {
    cmd = process.execPath;
    cmdArgs = [CLI, 'bench', '--np', String(e.launch.np), '--mpi', e.launch.mpi, ...args];
  }
  process.stderr.write(`bench:docs: ${e.name}: ${[cmd, ...cmdArgs].join(' ')}\n`);
  const r = spawnSync(cmd, cmdArgs, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...e.env }, cwd: packageRoot });
  if (r.status !== 0) throw new Error(`bench:docs: ${e.name} failed (exit ${r.status ?? r.signal})`);
  return JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
}

/** A markdown table per collective: median (us) and speedup vs native in the same run. */
export function markdownTables(report: BenchReport): string {
  const out: string[] = [];
  const j = report.job;
  out.push(
    `Measured ${report.created.slice(0, 16).replace('T', ' ')} UTC on \`${report.machine.hostname}\` (${report.machine.cpuModel}, ${report.machine.cpus} CPUs, load average ${report.machine.loadAverage} at the end), ` +
      `${report.mpi.library.split(',')[0]}, ${j.ranks} ranks on ${j.nodes} node${j.nodes === 1 ? '' : 's'}; ` +
      `median of ${report.options.repetitions} repetitions of ~${report.options.targetUs / 1000} ms each, algorithms interleaved; cell = median µs (speedup vs native).`,
  );
  for (const coll of [...new Set(report.records.map((r) => r.collective))]) {
    const recs = report.records.filter((r) => r.collective === coll);
    const algorithms = [...new Set(recs.map((r) => r.algorithm))];
    const sizes = [...new Set(recs.map((r) => r.bytes))];
    out.push('', `**${coll}** (${coll === 'bcast' ? 'message bytes' : coll === 'barrier' ? 'no payload' : 'bytes per rank\'s block'})`, '');
    out.push(`| size | ${algorithms.join(' | ')} | best |`);
    out.push(`|---:|${algorithms.map(() => '---:').join('|')}|---|`);
    for (const bytes of sizes) {
      const row = algorithms.map((a) => recs.find((r) => r.algorithm === a && r.bytes === bytes));
      const candidates = row.filter((r): r is BenchRecord => r !== undefined && r.algorithm !== 'auto');
      const best = candidates.reduce((a, b) => (b.median_us < a.median_us ? b : a));
      const cells = row.map((r) => {
        if (!r) return '–';
        const text = `${formatUs(r.median_us)} (${r.speedup_vs_native?.toFixed(2) ?? '–'}×)`;
        return r === best ? `**${text}**` : text;
      });
      out.push(`| ${coll === 'barrier' ? '–' : formatBytes(bytes)} | ${cells.join(' | ')} | ${best.algorithm} |`);
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
    if (coll === 'barrier') continue;
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
export function replaceSection(doc: string, name: string, body: string): string {
  const open = `<!-- bench:${name} -->`;
  const close = `<!-- /bench:${name} -->`;
  const start = doc.indexOf(open);
  const end = doc.indexOf(close);
  if (start < 0 || end < start) return `${doc.trimEnd()}\n\n${open}\n${body}\n${close}\n`;
  return `${doc.slice(0, start + open.length)}\n${body}\n${doc.slice(end)}`;
}

/** `bench --calibrate` on this machine (2 ranks, Open MPI): the topology file it writes, verbatim. */
function calibrationSection(renderOnly: boolean): string {
  const file = path.join(IMG, 'calibrated-openmpi-2.yaml');
  if (!renderOnly) {
    const args = [CLI, 'bench', '--calibrate', '--np', '2', '--mpi', 'openmpi', '--topology-out', file];
    process.stderr.write(`bench:docs: calibration: ${[process.execPath, ...args].join(' ')}\n`);
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], cwd: packageRoot });
    if (r.status !== 0) throw new Error(`bench:docs: calibration failed (exit ${r.status ?? r.signal})`);
  }
  return ['This machine, 2 ranks, Open MPI (`docs/img/calibrated-openmpi-2.yaml`):', '', '```yaml', readFileSync(file, 'utf8').trimEnd(), '```'].join('\n');
}

function main(argv: string[]): number {
  const only = argv.includes('--only') ? argv[argv.indexOf('--only') + 1].split(',') : undefined;
  const renderOnly = argv.includes('--render-only');
  const quick = argv.includes('--quick');
  mkdirSync(IMG, { recursive: true });
  let doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : '# Benchmarks\n';
  let failed = 0;
  if (!only || only.includes('calibration')) {
    try {
      doc = replaceSection(doc, 'calibration', calibrationSection(renderOnly));
      writeFileSync(DOC, doc);
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      failed++;
    }
  }
  for (const e of EXPERIMENTS) {
    if (only && !only.includes(e.name)) continue;
    let report: BenchReport;
    try {
      report = renderOnly ? (JSON.parse(readFileSync(path.join(IMG, `${e.name}.json`), 'utf8')) as BenchReport) : measure(e, quick);
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`);
      failed++;
      continue;
    }
    const body = [markdownTables(report), e.plots ? `\n${plotsMarkdown(report, e.name)}` : ''].join('\n');
    doc = replaceSection(doc, e.name, body);
    writeFileSync(DOC, doc);
  }
  return failed ? 1 : 0;
}

if (require.main === module) process.exit(main(process.argv.slice(2)));
