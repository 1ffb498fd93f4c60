// From sweeps to a rules file: per job shape (MPI, nodes, ranks), collective and size, the
// fastest algorithm, unless another (the built-in default first, then the previous size's
// choice) is within the noise of it; neighbouring sizes with one choice merge into one size
// range. Several shapes give ranges of nodes and ranks with breakpoints between the measured
// ones, as Open MPI's dynamic rules key communicator sizes: a measured value's rules hold from it
// up to the next measured value, the largest's for itself only. Pure functions: the CLI measures
// or reads the reports (src/cli/tune.ts).
import { DEFAULT_RULES, NATIVE, AUTO, MPI_FLAVOUR_TITLES, shapeOf as payloadOf, totalBytes, type CollectiveName, type MpiFlavour, type SizeBasis } from '../select/registry';
import { matchesCall, NATIVE_PREFIX, RULES_VERSION, type FileRule, type RulesFile } from '../select/rules';
import { mergeReports } from './report';
import { formatBytes, median } from './stats';
import type { BenchRecord, BenchReport } from './sweep';

export interface TuneOptions {
  /** Differences below this fraction of the best median are noise (default 0.03). */
  noiseFloor: number;
  /** Algorithms that may not be chosen (for experiments). */
  exclude?: readonly string[];
}

/** Where a sweep ran: its MPI and the ranks and nodes of its job. */
export interface JobShapeKey {
  mpi: MpiFlavour;
  ranks: number;
  nodes: number;
}

/** One size's decision, for the report of what changed. */
export interface SizeDecision {
  shape: JobShapeKey;
  collective: CollectiveName;
  bytes: number;
  chosen: string;
  chosenUs: number;
  best: string;
  bestUs: number;
  /** What the built-in defaults pick for this size and job. */
  defaultAlgorithm: string;
  defaultUs: number | undefined;
  tolerance: number;
  /** The noise the chosen algorithm was judged within: max(tolerance, its own relative spread). */
  noise: number;
}

export interface TuneResult {
  file: RulesFile;
  decisions: SizeDecision[];
}

/** The rules' size basis: a block collective's by block, any other's by message (= total). */
function tuneBasis(coll: CollectiveName): SizeBasis {
  return payloadOf(coll) === 'block' ? 'block' : 'total';
}

/** The first built-in default rule matching a call, among algorithms that exist here (TS mirror of select.cc). */
export function defaultChoice(coll: CollectiveName, p: number, blockBytes: number, available: readonly string[], nodes = 1, mpi?: MpiFlavour): string {
  const call = { collective: coll, ranks: p, blockBytes, totalBytes: totalBytes(coll, p, blockBytes), nodes, mpi };
  for (const r of DEFAULT_RULES) {
    if (!matchesCall(r, call)) continue;
    if (r.algorithm === NATIVE || available.includes(r.algorithm)) return r.algorithm;
  }
  return NATIVE;
}

/** Noise of a size: the best cell's relative spread, at least the floor. */
function toleranceOf(best: BenchRecord, floor: number): number {
  return Math.max(floor, best.relative_spread);
}

export function shapeOf(report: BenchReport): JobShapeKey {
  return { mpi: report.mpi.flavour, ranks: report.job.ranks, nodes: report.job.nodes };
}

/** "4 ranks on 2 nodes, Open MPI". */
export function shapeTitle(s: JobShapeKey): string {
  return `${s.ranks} rank${s.ranks === 1 ? '' : 's'} on ${s.nodes} node${s.nodes === 1 ? '' : 's'}, ${MPI_FLAVOUR_TITLES[s.mpi]}`;
}

/** Decides every size of every collective of one job's sweep. */
export function decide(report: BenchReport, opts: TuneOptions): SizeDecision[] {
  const decisions: SizeDecision[] = [];
  const exclude = new Set([AUTO, ...(opts.exclude ?? [])]);
  const shape = shapeOf(report);
  for (const coll of [...new Set(report.records.map((r) => r.collective))]) {
    const records = report.records.filter((r) => r.collective === coll && !exclude.has(r.algorithm));
    const available = [...new Set(records.map((r) => r.algorithm))];
    let previous: string | undefined;
    for (const bytes of [...new Set(records.map((r) => r.bytes))].sort((a, b) => a - b)) {
      const row = records.filter((r) => r.bytes === bytes);
      const best = row.reduce((a, b) => (b.median_us < a.median_us ? b : a));
      const tolerance = toleranceOf(best, opts.noiseFloor);
      // Within the noise of either cell: a noisy default is kept unless something beats it by
      // more than its own spread (as the check of `auto` afterwards judges, src/bench/docs.ts).
      const noiseOf = (r: BenchRecord) => Math.max(tolerance, r.relative_spread);
      const within = (name: string | undefined) => {
        const r = row.find((x) => x.algorithm === name);
        return r !== undefined && r.median_us <= best.median_us * (1 + noiseOf(r));
      };
      const fallbackDefault = defaultChoice(coll, shape.ranks, bytes, available, shape.nodes, shape.mpi);
      // Within the noise: keep the default (no change for nothing), else the previous size's
      // choice (fewer ranges), else the fastest.
      const chosen = within(fallbackDefault) ? fallbackDefault : within(previous) ? previous! : best.algorithm;
      previous = chosen;
      const chosenRecord = row.find((r) => r.algorithm === chosen)!;
      decisions.push({
        shape,
        collective: coll,
        bytes,
        chosen,
        chosenUs: chosenRecord.median_us,
        best: best.algorithm,
        bestUs: best.median_us,
        defaultAlgorithm: fallbackDefault,
        defaultUs: row.find((r) => r.algorithm === fallbackDefault)?.median_us,
        tolerance,
        noise: noiseOf(chosenRecord),
      });
    }
  }
  return decisions;
}

/** The conditions a shape's rules carry besides sizes: the MPI, and ranges of nodes and ranks. */
export type ShapeConditions = Pick<FileRule, 'mpi' | 'minNodes' | 'maxNodes' | 'minRanks' | 'maxRanks'>;

/**
 * Rules from one shape's decisions: neighbouring sizes with one choice form a range; a range
 * starts at its first measured size and ends where the next range starts (the first range from
 * 0, the last unbounded). Every rule carries `conditions`; a choice of the MPI's own algorithm
 * (native:<name>) its MPI.
 */
export function rulesFromDecisions(decisions: readonly SizeDecision[], conditions: ShapeConditions): FileRule[] {
  const rules: FileRule[] = [];
  for (const coll of [...new Set(decisions.map((d) => d.collective))]) {
    const ds = decisions.filter((d) => d.collective === coll);
    let start = 0;
    for (let i = 0; i < ds.length; i++) {
      if (i + 1 < ds.length && ds[i + 1].chosen === ds[i].chosen) continue;
      const range = ds.slice(start, i + 1);
      const rule: FileRule = { collective: coll, algorithm: ds[i].chosen };
      if (payloadOf(coll) !== 'none') {
        rule.basis = tuneBasis(coll);
        if (start > 0) rule.minBytes = range[0].bytes;
        if (i + 1 < ds.length) rule.maxBytes = ds[i + 1].bytes;
      }
      Object.assign(rule, conditions);
      if (rule.algorithm.startsWith(NATIVE_PREFIX)) rule.mpi = ds[i].shape.mpi;
      rule.why = whyOf(range);
      rules.push(rule);
      start = i + 1;
    }
  }
  return rules;
}

function whyOf(range: readonly SizeDecision[]): string {
  const sizes = payloadOf(range[0].collective) === 'none' ? '' : range.length === 1 ? `${formatBytes(range[0].bytes)}: ` : `${formatBytes(range[0].bytes)}..${formatBytes(range[range.length - 1].bytes)}: `;
  const chosen = range[0].chosen;
  const gains = range.filter((d) => d.defaultUs !== undefined && d.defaultAlgorithm !== chosen).map((d) => d.defaultUs! / d.chosenUs);
  if (gains.length === 0) return `tune: ${sizes}the default (${chosen}) is fastest within the noise`;
  return `tune: ${sizes}${chosen}, median ${median(gains).toFixed(2)}x the default's speed`;
}

/**
 * Ranges keyed on measured values, as Open MPI's dynamic rules key communicator sizes: each
 * value's range runs from it to just below the next; the largest's is itself alone.
 */
export function breakpointRanges(values: readonly number[]): Map<number, [number, number]> {
  const sorted = [...new Set(values)].sort((a, b) => a - b);
  return new Map(sorted.map((v, i) => [v, [v, i + 1 < sorted.length ? sorted[i + 1] - 1 : v]]));
}

const shapeKey = (s: JobShapeKey) => `${s.mpi}/${s.nodes}/${s.ranks}`;

/**
 * The rules file for sweeps of one or several job shapes (reports of one shape join first).
 * Rules hold for their MPI, nodes and ranks ranges (breakpointRanges: per MPI over the node
 * counts measured, per node count over the ranks measured).
 */
export function tuneReports(reports: readonly BenchReport[], opts: TuneOptions): TuneResult {
  if (reports.length === 0) throw new Error('tune: no reports');
  const byShape = new Map<string, BenchReport[]>();
  for (const r of reports) byShape.set(shapeKey(shapeOf(r)), [...(byShape.get(shapeKey(shapeOf(r))) ?? []), r]);
  const merged = [...byShape.values()].map(mergeReports);
  const shapes = merged.map(shapeOf).sort((a, b) => a.mpi.localeCompare(b.mpi) || a.nodes - b.nodes || a.ranks - b.ranks);
  const rules: FileRule[] = [];
  const decisions: SizeDecision[] = [];
  for (const mpi of [...new Set(shapes.map((s) => s.mpi))]) {
    const ofMpi = shapes.filter((s) => s.mpi === mpi);
    const nodeRanges = breakpointRanges(ofMpi.map((s) => s.nodes));
    for (const [nodes, [minNodes, maxNodes]] of nodeRanges) {
      const rankRanges = breakpointRanges(ofMpi.filter((s) => s.nodes === nodes).map((s) => s.ranks));
      for (const [ranks, [minRanks, maxRanks]] of rankRanges) {
        const report = merged.find((r) => shapeKey(shapeOf(r)) === shapeKey({ mpi, nodes, ranks }))!;
        const ds = decide(report, opts);
        decisions.push(...ds);
        rules.push(...rulesFromDecisions(ds, { mpi, minNodes, maxNodes, minRanks, maxRanks }));
      }
    }
  }
  const one = merged.length === 1 ? merged[0] : undefined;
  const hosts = [...new Set(merged.map((r) => r.machine.hostname))];
  const repetitions = [...new Set(merged.map((r) => r.options.repetitions))].join(' or ');
  const file: RulesFile = {
    version: RULES_VERSION,
    generator: merged[0].generator,
    created: merged.map((r) => r.created).sort().at(-1)!,
    machine: one ? { ...one.machine } : hosts.length === 1 ? { ...merged[0].machine } : { hostnames: hosts },
    mpi: one ? { ...one.mpi } : { libraries: [...new Set(merged.map((r) => r.mpi.library))] },
    job: one ? { ...one.job } : { shapes: shapes.map((s) => ({ ranks: s.ranks, nodes: s.nodes, mpi: s.mpi })) },
    notes:
      `measured by topocoll tune: median of ${repetitions} repetitions; differences within max(${(opts.noiseFloor * 100).toFixed(0)}%, the interquartile spread of either cell) are noise` +
      (one ? '' : `; ${merged.length} job shapes: each measured node count's rules hold up to the next one measured, each rank count's likewise within its node count`),
    rules,
  };
  return { file, decisions };
}

/** The rules file for one sweep. */
export function tune(report: BenchReport, opts: TuneOptions): TuneResult {
  return tuneReports([report], opts);
}

/** Runs of neighbouring sizes (of one shape and collective) that `keep` holds for and `same` as the run's first. */
function runs(decisions: readonly SizeDecision[], keep: (d: SizeDecision) => boolean, same: (first: SizeDecision, d: SizeDecision) => boolean): SizeDecision[][] {
  const out: SizeDecision[][] = [];
  let run: SizeDecision[] = [];
  decisions.forEach((d, i) => {
    const prev = decisions[i - 1];
    const continues = run.length > 0 && keep(d) && prev.collective === d.collective && shapeKey(prev.shape) === shapeKey(d.shape) && same(run[0], d);
    if (!continues && run.length) {
      out.push(run);
      run = [];
    }
    if (keep(d)) run.push(d);
  });
  if (run.length) out.push(run);
  return out;
}

/** "allgather 1 KiB..4 KiB", with the shape when several were tuned. */
function runTitle(run: readonly SizeDecision[], shapes: number): string {
  const d = run[0];
  const sizes = payloadOf(d.collective) === 'none' ? '' : run.length === 1 ? ` ${formatBytes(d.bytes)}` : ` ${formatBytes(d.bytes)}..${formatBytes(run[run.length - 1].bytes)}`;
  return `${shapes > 1 ? `${shapeTitle(d.shape)}: ` : ''}${d.collective}${sizes}`;
}

const shapeCount = (decisions: readonly SizeDecision[]) => new Set(decisions.map((d) => shapeKey(d.shape))).size;

/** What the tuned rules change against the built-in defaults, one line per run of neighbouring sizes with one change. */
export function describeChanges(decisions: readonly SizeDecision[]): string[] {
  const shapes = shapeCount(decisions);
  return runs(decisions, (d) => d.chosen !== d.defaultAlgorithm, (a, b) => a.chosen === b.chosen && a.defaultAlgorithm === b.defaultAlgorithm).map((run) => {
    const gains = run.filter((d) => d.defaultUs !== undefined).map((d) => d.defaultUs! / d.chosenUs);
    const own = run[0].chosen.startsWith(NATIVE_PREFIX) ? ` (${MPI_FLAVOUR_TITLES[run[0].shape.mpi]}'s own: apply it with --export ${run[0].shape.mpi})` : '';
    return `${runTitle(run, shapes)}: ${run[0].defaultAlgorithm} -> ${run[0].chosen}${gains.length ? ` (${median(gains).toFixed(2)}x faster)` : ''}${own}`;
  });
}

function percent(x: number): string {
  return `${Number((x * 100).toPrecision(2))}%`;
}

function percentRange(xs: readonly number[]): string {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return percent(lo) === percent(hi) ? percent(lo) : `${percent(lo)}..${percent(hi)}`;
}

/**
 * Where the built-in default was kept although another algorithm measured faster, by less than
 * the noise: one line per run of neighbouring sizes, with how much longer the default took and
 * the noise it was judged within (max(--noise, the cell's interquartile spread)).
 */
export function describeKept(decisions: readonly SizeDecision[]): string[] {
  const shapes = shapeCount(decisions);
  const kept = (d: SizeDecision) => d.chosen === d.defaultAlgorithm && d.best !== d.chosen;
  return runs(decisions, kept, (a, b) => a.defaultAlgorithm === b.defaultAlgorithm).map((run) => {
    const slower = run.map((d) => d.chosenUs / d.bestUs - 1);
    const fastest = [...new Set(run.map((d) => d.best))].join(', ');
    return `${runTitle(run, shapes)}: kept the default (${run[0].defaultAlgorithm}): difference within noise (it took ${percentRange(slower)} longer than ${fastest}; noise ${percentRange(run.map((d) => d.noise))})`;
  });
}
