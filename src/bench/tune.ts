// From a sweep to a rules file: per collective and size, the fastest algorithm, unless another
// (the built-in default first, then the previous size's choice) is within the noise of it; then
// neighbouring sizes with one choice merge into one size range. Pure functions: the CLI runs the
// sweep (src/cli/tune.ts).
import { DEFAULT_RULES, NATIVE, AUTO, type CollectiveName, type MpiFlavour, type Rule, type SizeBasis } from '../select/registry';
import { RULES_VERSION, type FileRule, type RulesFile } from '../select/rules';
import { formatBytes, median } from './stats';
import type { BenchRecord, BenchReport } from './sweep';

export interface TuneOptions {
  /** Differences below this fraction of the best median are noise (default 0.03). */
  noiseFloor: number;
  /** Algorithms that may not be chosen (for experiments). */
  exclude?: readonly string[];
}

/** One size's decision, for the report of what changed. */
export interface SizeDecision {
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

/** The rules' size basis per collective: allgather and alltoall by block, bcast by message (= total). */
const TUNE_BASIS: Record<CollectiveName, SizeBasis> = {
  allgather: 'block',
  alltoall: 'block',
  bcast: 'total',
  barrier: 'total',
  allreduce: 'total',
  reduce: 'total',
  reduce_scatter_block: 'block',
  reduce_scatter: 'total',
};

function isPowerOfTwo(p: number): boolean {
  return p > 0 && (p & (p - 1)) === 0;
}

/** The first built-in default rule matching a call, among algorithms that exist here (TS mirror of select.cc). */
export function defaultChoice(coll: CollectiveName, p: number, blockBytes: number, available: readonly string[], nodes = 1, mpi?: MpiFlavour): string {
  const total = coll === 'allgather' || coll === 'alltoall' ? blockBytes * p : blockBytes;
  const multiNode = nodes > 1 && nodes < p;
  for (const r of DEFAULT_RULES) {
    if (r.collective !== coll || !ruleMatches(r, p, blockBytes, total)) continue;
    if (r.multiNode !== undefined && r.multiNode !== multiNode) continue;
    if (r.mpi !== undefined && r.mpi !== mpi) continue;
    if (r.algorithm === NATIVE || available.includes(r.algorithm)) return r.algorithm;
  }
  return NATIVE;
}

export function ruleMatches(r: Pick<Rule, 'basis' | 'minBytes' | 'maxBytes' | 'minRanks' | 'maxRanks' | 'powerOfTwo'>, p: number, block: number, total: number): boolean {
  const bytes = r.basis === 'block' ? block : total;
  if (r.minBytes !== undefined && bytes < r.minBytes) return false;
  if (r.maxBytes !== undefined && bytes >= r.maxBytes) return false;
  if (r.minRanks !== undefined && p < r.minRanks) return false;
  if (r.maxRanks !== undefined && p > r.maxRanks) return false;
  if (r.powerOfTwo !== undefined && isPowerOfTwo(p) !== r.powerOfTwo) return false;
  return true;
}

/** Noise of a size: the best cell's relative spread, at least the floor. */
function toleranceOf(best: BenchRecord, floor: number): number {
  return Math.max(floor, best.relative_spread);
}

/** Decides every size of every collective of `report`. */
export function decide(report: BenchReport, opts: TuneOptions): SizeDecision[] {
  const decisions: SizeDecision[] = [];
  const exclude = new Set([AUTO, ...(opts.exclude ?? [])]);
  const p = report.job.ranks;
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
      const fallbackDefault = defaultChoice(coll, p, bytes, available, report.job.nodes, report.mpi.flavour);
      // Within the noise: keep the default (no change for nothing), else the previous size's
      // choice (fewer ranges), else the fastest.
      const chosen = within(fallbackDefault) ? fallbackDefault : within(previous) ? previous! : best.algorithm;
      previous = chosen;
      const chosenRecord = row.find((r) => r.algorithm === chosen)!;
      decisions.push({
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

/**
 * Rules from decisions: neighbouring sizes with one choice form a range; a range starts at its
 * first measured size and ends where the next range starts (the first range from 0, the last
 * unbounded), limited to the measured job's number of ranks.
 */
export function rulesFromDecisions(decisions: readonly SizeDecision[], ranks: number): FileRule[] {
  const rules: FileRule[] = [];
  for (const coll of [...new Set(decisions.map((d) => d.collective))]) {
    const ds = decisions.filter((d) => d.collective === coll);
    let start = 0;
    for (let i = 0; i < ds.length; i++) {
      if (i + 1 < ds.length && ds[i + 1].chosen === ds[i].chosen) continue;
      const range = ds.slice(start, i + 1);
      const rule: FileRule = { collective: coll, algorithm: ds[i].chosen };
      if (coll !== 'barrier') {
        rule.basis = TUNE_BASIS[coll];
        if (start > 0) rule.minBytes = range[0].bytes;
        if (i + 1 < ds.length) rule.maxBytes = ds[i + 1].bytes;
      }
      rule.minRanks = ranks;
      rule.maxRanks = ranks;
      rule.why = whyOf(range);
      rules.push(rule);
      start = i + 1;
    }
  }
  return rules;
}

function whyOf(range: readonly SizeDecision[]): string {
  const sizes = range[0].collective === 'barrier' ? '' : range.length === 1 ? `${formatBytes(range[0].bytes)}: ` : `${formatBytes(range[0].bytes)}..${formatBytes(range[range.length - 1].bytes)}: `;
  const chosen = range[0].chosen;
  const gains = range.filter((d) => d.defaultUs !== undefined && d.defaultAlgorithm !== chosen).map((d) => d.defaultUs! / d.chosenUs);
  if (gains.length === 0) return `tune: ${sizes}the default (${chosen}) is fastest within the noise`;
  return `tune: ${sizes}${chosen}, median ${median(gains).toFixed(2)}x the default's speed`;
}

/** The rules file for a sweep. */
export function tune(report: BenchReport, opts: TuneOptions): TuneResult {
  const decisions = decide(report, opts);
  const file: RulesFile = {
    version: RULES_VERSION,
    generator: report.generator,
    created: report.created,
    machine: { ...report.machine },
    mpi: { ...report.mpi },
    job: { ...report.job },
    notes: `measured by topocoll tune: median of ${report.options.repetitions} repetitions; differences within max(${(opts.noiseFloor * 100).toFixed(0)}%, the interquartile spread of either cell) are noise`,
    rules: rulesFromDecisions(decisions, report.job.ranks),
  };
  return { file, decisions };
}

/** What the tuned rules change against the built-in defaults, one line per run of neighbouring sizes with one change. */
export function describeChanges(decisions: readonly SizeDecision[]): string[] {
  const lines: string[] = [];
  for (const coll of [...new Set(decisions.map((d) => d.collective))]) {
    const ds = decisions.filter((d) => d.collective === coll);
    let i = 0;
    while (i < ds.length) {
      if (ds[i].chosen === ds[i].defaultAlgorithm) {
        i++;
        continue;
      }
      let j = i;
      while (j + 1 < ds.length && ds[j + 1].chosen === ds[i].chosen && ds[j + 1].defaultAlgorithm === ds[i].defaultAlgorithm) j++;
      const run = ds.slice(i, j + 1);
      const gains = run.filter((d) => d.defaultUs !== undefined).map((d) => d.defaultUs! / d.chosenUs);
      const sizes = coll === 'barrier' ? '' : i === j ? ` ${formatBytes(ds[i].bytes)}` : ` ${formatBytes(ds[i].bytes)}..${formatBytes(ds[j].bytes)}`;
      lines.push(`${coll}${sizes}: ${ds[i].defaultAlgorithm} -> ${ds[i].chosen}${gains.length ? ` (${median(gains).toFixed(2)}x faster)` : ''}`);
      i = j + 1;
    }
  }
  return lines;
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
  const kept = (d: SizeDecision) => d.chosen === d.defaultAlgorithm && d.best !== d.chosen;
  const lines: string[] = [];
  for (const coll of [...new Set(decisions.map((d) => d.collective))]) {
    const ds = decisions.filter((d) => d.collective === coll);
    let i = 0;
    while (i < ds.length) {
      if (!kept(ds[i])) {
        i++;
        continue;
      }
      let j = i;
      while (j + 1 < ds.length && kept(ds[j + 1]) && ds[j + 1].defaultAlgorithm === ds[i].defaultAlgorithm) j++;
      const run = ds.slice(i, j + 1);
      const sizes = coll === 'barrier' ? '' : i === j ? ` ${formatBytes(ds[i].bytes)}` : ` ${formatBytes(ds[i].bytes)}..${formatBytes(ds[j].bytes)}`;
      const slower = run.map((d) => d.chosenUs / d.bestUs - 1);
      const fastest = [...new Set(run.map((d) => d.best))].join(', ');
      lines.push(`${coll}${sizes}: kept the default (${ds[i].defaultAlgorithm}): difference within noise (it took ${percentRange(slower)} longer than ${fastest}; noise ${percentRange(run.map((d) => d.noise))})`);
      i = j + 1;
    }
  }
  return lines;
}
