// Saved sweeps (`bench --json`): reading one back, checked against its schema, and joining
// several. Reports of one job shape join cell by cell (the repetitions of a cell measured twice
// pool); the launches of a native sweep join as `native:<name>` rows of the main launch's report.
import { readFileSync } from 'node:fs';
import { NATIVE } from '../select/registry';
import { schemaErrors } from '../config/schemas';
import { median, quantile, relativeSpread } from './stats';
import type { BenchRecord, BenchReport } from './sweep';

/** Errors of a report against schemas/bench.schema.json (empty when it is one). */
export function reportErrors(report: unknown): string[] {
  return schemaErrors('bench', JSON.parse(JSON.stringify(report)));
}

/** A saved report; `option` (--render, --from...) and the file name it in errors. */
export function readReport(file: string, option: string): BenchReport {
  let text: string;
  let report: unknown;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`${option}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    report = JSON.parse(text);
  } catch (e) {
    throw new Error(`${option} ${file} is not a bench report: not JSON (${(e as Error).message})`);
  }
  const doc = report as Record<string, unknown> | null;
  if (doc && typeof doc === 'object' && !Array.isArray(doc) && 'rules' in doc && !('records' in doc)) {
    throw new Error(`${option} ${file} is a rules file, not a bench report: give a report \`topocoll bench --json\` (or \`tune --json\`) wrote`);
  }
  const errors = schemaErrors('bench', report);
  if (errors.length) throw new Error(`${option} ${file} is not a bench report (schemas/bench.schema.json): ${errors.slice(0, 5).join('; ')}`);
  return report as BenchReport;
}

const cellKey = (r: Pick<BenchRecord, 'collective' | 'algorithm' | 'bytes'>) => `${r.collective}\0${r.algorithm}\0${r.bytes}`;

/** A record's statistics from its repetitions' times. */
function withTimes(r: BenchRecord, times: number[]): BenchRecord {
  return {
    ...r,
    repetitions: times.length,
    times_us: times,
    min_us: Number(quantile(times, 0).toPrecision(6)),
    median_us: Number(median(times).toPrecision(6)),
    max_us: Number(quantile(times, 1).toPrecision(6)),
    relative_spread: Number(relativeSpread(times).toFixed(4)),
  };
}

/** Every record's speedup against native's median in `records`, at its collective and size. */
function withSpeedups(records: BenchRecord[]): BenchRecord[] {
  const natives = new Map(records.filter((r) => r.algorithm === NATIVE).map((r) => [`${r.collective}\0${r.bytes}`, r.median_us]));
  return records.map((r) => {
    const n = natives.get(`${r.collective}\0${r.bytes}`);
    return { ...r, speedup_vs_native: n !== undefined && n > 0 && r.median_us > 0 ? Number((n / r.median_us).toFixed(4)) : null };
  });
}

/** Reports of one job shape as one: a cell measured in several pools its repetitions. */
export function mergeReports(reports: readonly BenchReport[]): BenchReport {
  if (reports.length === 1) return reports[0];
  const cells = new Map<string, BenchRecord>();
  for (const report of reports) {
    for (const r of report.records) {
      const key = cellKey(r);
      const seen = cells.get(key);
      if (!seen) {
        cells.set(key, r);
        continue;
      }
      const times = [...seen.times_us, ...r.times_us];
      const check = seen.check === 'failed' || r.check === 'failed' ? 'failed' : seen.check === 'ok' || r.check === 'ok' ? 'ok' : 'off';
      cells.set(key, { ...withTimes(seen, times), check, errors: seen.errors + r.errors });
    }
  }
  const measured = new Set([...cells.values()].map((r) => `${r.collective}\0${r.algorithm}`));
  const skipped = reports.flatMap((r) => r.skipped).filter((s, i, all) => !measured.has(`${s.collective}\0${s.algorithm}`) && all.findIndex((t) => t.collective === s.collective && t.algorithm === s.algorithm) === i);
  const [first] = reports;
  return {
    ...first,
    created: reports.map((r) => r.created).sort().at(-1)!,
    options: {
      ...first.options,
      collectives: [...new Set(reports.flatMap((r) => r.options.collectives))],
      algorithms: [...new Set(reports.flatMap((r) => r.options.algorithms))],
      sizes: [...new Set(reports.flatMap((r) => r.options.sizes))].sort((a, b) => a - b),
    },
    records: withSpeedups([...cells.values()]),
    skipped,
  };
}

/**
 * The main launch's report with the cells of a launch in which the MPI ran its own algorithm
 * `names[coll]` for each collective measured there: its `native` cells become `native:<name>`
 * rows, their speedups against the main launch's native.
 */
export function withNativeLaunch(main: BenchReport, launch: BenchReport, names: Partial<Record<string, string>>, index: number): BenchReport {
  const natives = main.records.filter((r) => r.algorithm === NATIVE);
  const rows = launch.records
    .filter((r) => r.algorithm === NATIVE && names[r.collective] !== undefined)
    .map((r) => {
      const n = natives.find((x) => x.collective === r.collective && x.bytes === r.bytes)?.median_us;
      const speedup = n !== undefined && n > 0 && r.median_us > 0 ? Number((n / r.median_us).toFixed(4)) : null;
      return { ...r, algorithm: `${NATIVE}:${names[r.collective]}`, speedup_vs_native: speedup, launch: index };
    });
  return { ...main, records: [...main.records, ...rows] };
}
