// `topocoll simulate`: what an algorithm will cost at a scale we cannot run. Every rank's real
// schedule (the C++ builders, through the addon) is replayed through a cost model on a machine
// profile (profiles/*.yaml) or topology file with the ranks placed ppn per node. No MPI launch.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readReport } from '../bench/report';
import { formatBytes } from '../bench/stats';
import type { BenchReport } from '../bench/sweep';
import { closest, suggestion } from '../config/closest';
import { isProfilePath, profileNames, profilePath } from '../model/machine';
import { loadTopology } from '../mpi/files';
import { formatSeconds, StatusLine } from '../bench/progress';
import {
  MODEL_NAMES,
  logLogPlotSvg,
  nativeCompiled,
  registeredAlgorithms,
  machineFromTopology,
  simulateCommand,
  type Machine,
  type SimulateProgress,
  type ModelName,
  type SimulateRow,
} from '../model';
import { measuredCells, rankAgreement, timingOf, type ComparedCell, type RankAgreement, type VerdictCounts } from '../bench/compare';
import { COLLECTIVES, collectiveInfo, shapeOf, type CollectiveName } from '../select/registry';
import type { Command } from './main';
import { parseBytes, parseOptions, UsageError } from '../config/args';

export interface SimulateOptions {
  coll: CollectiveName;
  /** One algorithm, several, or 'all'. */
  algorithm: string | string[];
  np: number;
  ppn: number;
  bytes: number;
  /** A shipped profile's name, a topology file, or a loaded machine. */
  machine: string | Machine;
  model: ModelName;
  rho?: number;
  root?: number;
  verify?: boolean;
  progress?: (at: SimulateProgress) => void;
}

/** One simulate run against the real builders. */
function simulateWithBuilders(o: SimulateOptions): SimulateRow[] {
  return simulateCommand({
    coll: o.coll,
    algorithm: o.algorithm,
    np: o.np,
    ppn: o.ppn,
    bytes: o.bytes,
    machine: o.machine,
    model: o.model,
    rho: o.rho,
    root: o.root,
    verify: o.verify,
    nativeBuilders: true,
    schedules: nativeCompiled,
    available: registeredAlgorithms(o.coll),
    progress: o.progress,
  });
}

function formatMicros(us: number): string {
  if (us >= 1e6) return `${(us / 1e6).toFixed(3)} s`;
  if (us >= 1e3) return `${(us / 1e3).toFixed(3)} ms`;
  return `${us.toFixed(2)} us`;
}

function formatTable(rows: readonly SimulateRow[]): string {
  const header = ['algorithm', 'predicted', 'rounds', 'bytes', 'messages', 'ALCD', 'note'];
  // The first of the fastest gets the star.
  const best = rows.reduce((b, r, i) => (r.predicted_us < rows[b].predicted_us ? i : b), 0);
  const lines = rows.map((r, i) => [
    r.algorithm + (i === best && rows.length > 1 ? ' *' : ''),
    formatMicros(r.predicted_us),
    String(r.rounds),
    formatBytes(r.bytes),
    String(r.messages),
    r.alcd.toFixed(3),
    r.note,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  return [header, ...lines].map((l) => l.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

function list<T>(text: string, parse: (item: string) => T): T[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map(parse);
}

function parseRanks(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--np=${text} must be a positive integer (a comma-separated list with --sweep)`);
  return n;
}

/** The machine of --machine, and what it was given as. */
interface MachineChoice {
  machine: Machine;
  /** As given: a profile's name or a file. */
  given: string;
  /** A profile says the node's shape (`node`); a topology file without it takes --ppn. */
  kind: 'profile' | 'topology';
  /** What the file says that the models' levels cannot (a group level). */
  leftOut: string[];
}

/**
 * --machine: a shipped profile's name or a topology file (docs/topology.md); a file without
 * `node` takes its node's shape from `ranksPerNode` (--ppn). A name that is neither a shipped
 * profile nor a file is a usage error (exit 2); a file that cannot be read or is not valid is a
 * failure (exit 1), as in `topology FILE`.
 */
function machineOption(given: string, ranksPerNode: number | undefined): MachineChoice {
  if (!isProfilePath(given) && !existsSync(profilePath(given))) {
    throw new UsageError(`--machine=${given} is neither a machine profile nor a file (a path with / or .yaml/.json)${suggestion(given, profileNames(), 'profiles')}`);
  }
  const topology = loadTopology(isProfilePath(given) ? given : profilePath(given));
  if (!topology.node && ranksPerNode === undefined) {
    throw new UsageError(`--machine=${given} is a topology file without \`node\`, which does not say how many ranks a node holds: give --ppn`);
  }
  return { given, kind: topology.node ? 'profile' : 'topology', ...machineFromTopology(topology, ranksPerNode) };
}

/** The machine as --json describes it. */
function machineJson(m: MachineChoice) {
  return { name: m.machine.name, given: m.given, kind: m.kind, description: m.machine.description, ...(m.leftOut.length && { left_out: m.leftOut }) };
}

/** --algorithm: `all`, or names of the collective's algorithms, comma-separated. */
function algorithmOption(text: string, coll: CollectiveName): string | string[] {
  const known = collectiveInfo(coll)!.algorithms.map((a) => a.name);
  const names = list(text, (s) => s);
  if (names.length === 1 && names[0] === 'all') return 'all';
  if (names.length === 0) throw new UsageError(`--algorithm needs a name; valid choices: ${known.join(', ')}, all`);
  for (const name of names) {
    if (name === 'all') throw new UsageError(`--algorithm=${text}: all stands alone, not in a list`);
    if (!known.includes(name)) {
      const near = closest(name, known);
      throw new UsageError(`--algorithm: ${name} names no ${coll} algorithm${near ? `; did you mean ${near}?` : ''}; valid choices: ${known.join(', ')}, all`);
    }
  }
  return [...new Set(names)];
}

/** Progress of a simulation on stderr (--quiet: none): what runs, how far its build and replay are. */
function simulateProgress(quiet: boolean): { progress?: (at: SimulateProgress, run: string) => void; end(): void } {
  if (quiet) return { end() {} };
  const tty = Boolean(process.stderr.isTTY);
  const status = new StatusLine(tty);
  const started = Date.now();
  let shown = '';
  const phaseText = (at: SimulateProgress) =>
    at.phase === 'build' ? `building schedules, ${at.done}/${at.total} ranks`
    : at.phase === 'replay' ? `replaying, ${Math.round((100 * at.done) / Math.max(1, at.total))}% of ${at.total} rounds`
    : at.phase === 'verify' ? 'checking the schedules (symbolic replay)'
    : 'timing';
  return {
    progress(at, run) {
      const algorithm = `${run}: ${at.algorithm} (${at.index + 1}/${at.algorithms})`;
      // The first report, then one every few seconds; on a terminal also each algorithm's start.
      status.update(() => `simulate: ${algorithm}, ${phaseText(at)}, ${formatSeconds((Date.now() - started) / 1000)} elapsed`, shown === '' || (tty && algorithm !== shown));
      shown = algorithm;
    },
    end() {
      status.end(`simulate: done in ${formatSeconds((Date.now() - started) / 1000)}`);
    },
  };
}

export interface SweepPoint extends SimulateRow {
  np: number;
  ppn: number;
  bytes_per_rank: number;
}

/**
 * Every measured cell of the reports next to its prediction for the same communicator (ranks
 * placed in rank order, `ppn` per node: `--map-by slot`), and the pairs the model orders.
 */
export function compareWithBench(
  reports: readonly BenchReport[],
  o: { machine: Machine; ppn?: number; threshold?: number; model?: ModelName },
): { np: number; ppn: number; cells: ComparedCell[]; agreement: RankAgreement } {
  const cells = measuredCells(reports);
  const job = reports[0].job;
  const ppn = o.ppn ?? job.ranksPerNode[0];
  if (o.ppn === undefined && job.ranksPerNode.some((n) => n !== ppn)) {
    throw new UsageError(`--compare: the job had uneven nodes (${job.ranksPerNode.join(', ')} ranks); give --ppn`);
  }
  // One simulation per measured (collective, size); cells of algorithms this build lacks drop out.
  const sizeKey = (coll: string, bytes: number) => `${coll}\0${bytes}`;
  const predicted = new Map<string, Map<string, number>>();
  for (const c of cells) {
    const key = sizeKey(c.collective, c.bytes);
    if (predicted.has(key)) continue;
    const rows = simulateWithBuilders({ coll: c.collective, algorithm: 'all', np: job.ranks, ppn, bytes: c.bytes, machine: o.machine, model: o.model ?? 'hockney' });
    predicted.set(key, new Map(rows.map((r) => [r.algorithm, r.predicted_us])));
  }
  const compared: ComparedCell[] = [];
  for (const c of cells) {
    const predicted_us = predicted.get(sizeKey(c.collective, c.bytes))!.get(c.algorithm);
    if (predicted_us !== undefined) compared.push({ ...c, predicted_us });
  }
  return { np: job.ranks, ppn, cells: compared, agreement: rankAgreement(compared, o.threshold) };
}

function formatComparison(cells: readonly ComparedCell[], agreement: RankAgreement): string {
  const header = ['collective', 'size', 'algorithm', 'predicted', 'measured', 'launches (lowest-highest)'];
  const lines = cells.map((c) => [
    c.collective,
    shapeOf(c.collective) === 'none' ? '-' : formatBytes(c.bytes),
    c.algorithm,
    formatMicros(c.predicted_us),
    formatMicros(c.measured_us),
    `${c.launches} (${formatMicros(c.lowest_us)}-${formatMicros(c.highest_us)})`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const table = [header, ...lines].map((l) => l.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()).join('\n');
  const gap = Math.round((agreement.threshold - 1) * 100);
  const reversed = agreement.pairs
    .filter((p) => p.verdict !== 'same')
    .map(
      (p) =>
        `  ${p.verdict}: ${p.collective} ${shapeOf(p.collective) === 'none' ? '' : `${formatBytes(p.bytes)} `}${p.faster} measured ${p.measured_ratio.toFixed(2)}x faster than ${p.slower}` +
        `${p.every_launch ? ' (in every launch)' : ''}, predicted ${p.predicted_ratio.toFixed(2)}x`,
    );
  const orders = (c: VerdictCounts) => `the model orders ${c.same} the same way, ${c.reversed} the other way, and ties ${c.tied}`;
  return [
    table,
    '',
    `pairs measured more than ${gap}% apart: ${agreement.pairs.length}; ${orders(agreement)}`,
    `of them apart in the same order in every launch: ${agreement.everyLaunch.pairs}; ${orders(agreement.everyLaunch)}`,
    ...reversed,
  ].join('\n');
}

export const simulate: Command = {
  summary: 'predict the time of collective algorithms on a machine profile or topology file at any scale (no MPI launch)',
  usage:
    'topocoll simulate --coll <collective> --np <ranks> [--ppn <ranks per node>] [--bytes <size>] [--algorithm <name>[,<name>...]|all] ' +
    '[--machine <profile name or topology file>] [--model hockney|loggp|contention] [--rho <load>] [--root <rank>] [--no-verify] [--json] [--quiet] ' +
    '[--sweep --out <dir>]   (with --sweep, --np and --bytes take comma-separated lists; a topology file needs --ppn; progress on stderr unless --quiet)\n' +
    '       topocoll simulate --compare <bench.json>[,<bench.json>...] [--machine <profile or topology file>] [--ppn <ranks per node>] [--model hockney|loggp] [--json]' +
    '   (predictions next to `topocoll bench --json` reports: the median of their medians; pairs of algorithms more than 20% apart, ordered as measured?)',
  async run(args) {
    const { options } = parseOptions(args, {
      coll: { type: 'string', choices: COLLECTIVES.map((c) => c.name) },
      algorithm: { type: 'string' },
      np: { type: 'string' },
      ppn: { type: 'int', min: 1 },
      bytes: { type: 'string' },
      machine: { type: 'string' },
      model: { type: 'string', choices: MODEL_NAMES },
      rho: { type: 'string' },
      root: { type: 'int', min: 0 },
      'no-verify': { type: 'flag' },
      quiet: { type: 'flag' },
      json: { type: 'flag' },
      sweep: { type: 'flag' },
      out: { type: 'string' },
      compare: { type: 'string' },
    });
    if (options.compare !== undefined) {
      const reports = list(String(options.compare), (f) => readReport(f, '--compare'));
      if (reports.length === 0) throw new UsageError('--compare needs at least one bench report');
      const machineName = (options.machine as string | undefined) ?? 'dev-vm';
      const { machine } = machineOption(machineName, (options.ppn as number | undefined) ?? reports[0].job.ranksPerNode[0]);
      const model = (options.model as ModelName | undefined) ?? 'hockney';
      if (model === 'contention') throw new UsageError('--compare takes --model hockney or loggp (the contention model needs a load, see docs/models.md)');
      const { np, ppn, cells, agreement } = compareWithBench(reports, { machine, ppn: options.ppn as number | undefined, model });
      const timing = timingOf(reports[0]);
      if (options.json) {
        console.log(JSON.stringify({ machine: machineName, model, timing, np, ppn, cells, agreement }, null, 2));
        return 0;
      }
      console.log(
        `${reports.length} bench report${reports.length === 1 ? '' : 's'} (${timing} timing) of ${np} ranks, ${ppn} per node, against predictions on ${machineName} (${model} model)` +
          `${timing === 'loop' ? '\nthe model predicts one call from a common start; loop timing lets back-to-back calls overlap (--timing window measures one call)' : ''}\n`,
      );
      console.log(formatComparison(cells, agreement));
      return 0;
    }
    if (!options.coll || !options.np) throw new UsageError(`--coll and --np are required\nusage: ${this.usage}`);
    const coll = options.coll as CollectiveName;
    const algorithm = algorithmOption((options.algorithm as string | undefined) ?? 'all', coll);
    const model = (options.model as ModelName | undefined) ?? 'hockney';
    let rho: number | undefined;
    if (options.rho !== undefined) {
      rho = Number(options.rho);
      if (!(rho >= 0 && rho < 1)) throw new UsageError(`--rho=${options.rho} must be a number in [0, 1)`);
    }
    if (model === 'contention' && rho === undefined) throw new UsageError('--model contention needs --rho <load in [0, 1)> (see docs/models.md for how to obtain it)');
    const sweep = Boolean(options.sweep);
    const nps = sweep ? list(String(options.np), parseRanks) : [parseRanks(String(options.np))];
    const sizes = sweep
      ? list(String(options.bytes ?? '8,1K,64K,1M'), (s) => parseBytes(s, '--bytes'))
      : [parseBytes(String(options.bytes ?? '8'), '--bytes')];
    if (nps.length === 0 || sizes.length === 0) throw new UsageError('--np and --bytes need at least one value');
    const machineName = (options.machine as string | undefined) ?? 'bxj';
    const chosen = machineOption(machineName, options.ppn as number | undefined);
    const machine = chosen.machine;
    // Default: as many ranks per node as the machine's nodes have cores.
    const coresPerNode = machine.node.sockets * machine.node.coresPerSocket;
    const ppnFor = (np: number) => (options.ppn as number | undefined) ?? Math.min(np, coresPerNode);
    const root = options.root as number | undefined;
    for (const np of nps) if (root !== undefined && root >= np) throw new UsageError(`--root=${root} must be below --np=${np}`);

    const reporter = simulateProgress(Boolean(options.quiet));
    const runOne = (np: number, bytes: number) =>
      simulateWithBuilders({
        coll,
        algorithm,
        np,
        ppn: ppnFor(np),
        bytes,
        machine,
        model,
        rho,
        root,
        verify: options['no-verify'] ? false : undefined,
        progress: reporter.progress && ((at) => reporter.progress!(at, `${coll} on ${np} ranks${shapeOf(coll) === 'none' ? '' : `, ${formatBytes(bytes)}`}`)),
      });

    if (!sweep) {
      const [np, bytes] = [nps[0], sizes[0]];
      const rows = runOne(np, bytes);
      reporter.end();
      const ppn = ppnFor(np);
      if (options.json) {
        const described = { collective: coll, ranks: np, ppn, nodes: Math.ceil(np / ppn), bytes, machine: machineJson(chosen), model, ...(rho !== undefined && { rho }), rows };
        console.log(JSON.stringify(described, null, 2));
        return 0;
      }
      const what = { block: 'per rank block', vector: 'message', none: '' }[shapeOf(coll)];
      const from = chosen.kind === 'topology' ? ` (topology file ${machineName})` : '';
      console.log(
        `${coll} on ${np} ranks, ${ppn} per node${what ? `, ${formatBytes(bytes)} ${what}` : ''}; machine ${machine.name}${from}, ${model} model${rho !== undefined ? ` (rho ${rho})` : ''}\n`,
      );
      console.log(formatTable(rows));
      for (const l of chosen.leftOut) console.log(`not modelled: ${l}`);
      return 0;
    }

    const points: SweepPoint[] = [];
    for (const np of nps) {
      for (const bytes of sizes) {
        for (const row of runOne(np, bytes)) points.push({ ...row, np, ppn: ppnFor(np), bytes_per_rank: bytes });
      }
    }
    reporter.end();
    const outDir = path.resolve((options.out as string | undefined) ?? path.join('results', `simulate-${coll}`));
    mkdirSync(outDir, { recursive: true });
    const jsonPath = path.join(outDir, `simulate-${coll}.json`);
    const svgPath = path.join(outDir, `simulate-${coll}.svg`);
    // `coll` and `machine` (the name given) as before; `collective` and `machine_description` as simulate --json has them.
    const doc = { coll, collective: coll, machine: machineName, machine_description: machineJson(chosen), model, rho, points };
    writeFileSync(jsonPath, `${JSON.stringify(doc, null, 2)}\n`);
    // x: the size when several sizes were asked for, else the communicator size.
    const bySize = sizes.length > 1 || nps.length === 1;
    const algorithms = [...new Set(points.map((p) => p.algorithm))];
    const keys = bySize ? nps : sizes;
    const series = keys.flatMap((key) =>
      algorithms.map((a) => ({
        name: keys.length > 1 ? `${a} (${bySize ? `np ${key}` : formatBytes(key)})` : a,
        points: points
          .filter((p) => p.algorithm === a && (bySize ? p.np === key : p.bytes_per_rank === key))
          .map((p) => ({ x: bySize ? p.bytes_per_rank : p.np, y: p.predicted_us })),
      })),
    );
    writeFileSync(
      svgPath,
      logLogPlotSvg(series, {
        title: `${coll}: predicted time (${machineName}, ${model})`,
        xLabel: bySize ? (shapeOf(coll) === 'vector' ? 'message bytes' : 'bytes per rank block') : 'ranks',
        yLabel: 'predicted time (us)',
        formatX: bySize ? formatBytes : String,
      }),
    );
    if (options.json) console.log(JSON.stringify(doc, null, 2));
    else console.log(`${points.length} predictions; wrote ${jsonPath} and ${svgPath}`);
    return 0;
  },
};
