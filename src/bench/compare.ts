// Predictions against measurements: the cells of `topocoll bench` reports next to the simulator's
// predictions for the same communicator, and whether the model orders the algorithms as the
// measurements do (issue 5: wherever two algorithms' measured times differ by more than 20%).
import { median } from './stats';
import type { BenchReport, Timing } from './sweep';
import type { CollectiveName } from '../select/registry';

/** One measured cell across launches: the median of the launches' medians, and their range. */
export interface MeasuredCell {
  readonly collective: CollectiveName;
  readonly bytes: number;
  readonly algorithm: string;
  readonly measured_us: number;
  readonly lowest_us: number;
  readonly highest_us: number;
  readonly launches: number;
}

export interface ComparedCell extends MeasuredCell {
  readonly predicted_us: number;
}

export type PairVerdict = 'same' | 'reversed' | 'tied';

/** How a report timed its calls (reports written before window timing existed: loop). */
export function timingOf(report: BenchReport): Timing {
  return report.options?.timing ?? 'loop';
}

/** Two algorithms of one cell whose measured times differ by more than the threshold. */
export interface ComparedPair {
  readonly collective: CollectiveName;
  readonly bytes: number;
  /** Measured faster. */
  readonly faster: string;
  readonly slower: string;
  /** Measured slower / faster (> threshold). */
  readonly measured_ratio: number;
  /** Predicted time of the measured-slower over that of the measured-faster (> 1: same order). */
  readonly predicted_ratio: number;
  readonly verdict: PairVerdict;
  /** The faster one was faster in every launch: its slowest launch beat the other's fastest. */
  readonly every_launch: boolean;
}

export interface VerdictCounts {
  readonly same: number;
  readonly reversed: number;
  readonly tied: number;
}

export interface RankAgreement extends VerdictCounts {
  readonly threshold: number;
  /** The same counts over the pairs ordered alike in every launch (a gap the noise did not make). */
  readonly everyLaunch: VerdictCounts & { readonly pairs: number };
  readonly pairs: readonly ComparedPair[];
}

/** Predictions this close (relative) are the same prediction: identical schedules. */
const TIE = 1e-9;

/**
 * The measured cells of one or more launches of the same sweep, algorithms of ours only (native
 * and auto have no schedule to predict). Reports must come from jobs of one shape.
 */
export function measuredCells(reports: readonly BenchReport[], skip: readonly string[] = ['native', 'auto']): MeasuredCell[] {
  if (reports.length === 0) throw new Error('no bench report to compare with');
  const shape = JSON.stringify(reports[0].job);
  const timing = timingOf(reports[0]);
  for (const r of reports) {
    if (JSON.stringify(r.job) !== shape) throw new Error(`bench reports of different jobs: ${shape} and ${JSON.stringify(r.job)}`);
    if (timingOf(r) !== timing) throw new Error(`bench reports of different timings: ${timing} and ${timingOf(r)}`);
  }
  const byCell = new Map<string, { collective: CollectiveName; bytes: number; algorithm: string; medians: number[] }>();
  for (const report of reports) {
    for (const rec of report.records) {
      if (skip.includes(rec.algorithm)) continue;
      const key = `${rec.collective}\0${rec.bytes}\0${rec.algorithm}`;
      let cell = byCell.get(key);
      if (!cell) byCell.set(key, (cell = { collective: rec.collective, bytes: rec.bytes, algorithm: rec.algorithm, medians: [] }));
      cell.medians.push(rec.median_us);
    }
  }
  return [...byCell.values()].map((c) => ({
    collective: c.collective,
    bytes: c.bytes,
    algorithm: c.algorithm,
    measured_us: median(c.medians),
    lowest_us: Math.min(...c.medians),
    highest_us: Math.max(...c.medians),
    launches: c.medians.length,
  }));
}

/** Every pair of algorithms of a cell whose measured times differ by more than `threshold`. */
export function rankAgreement(cells: readonly ComparedCell[], threshold = 1.2): RankAgreement {
  const groups = new Map<string, ComparedCell[]>();
  for (const c of cells) {
    const key = `${c.collective}\0${c.bytes}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  const pairs: ComparedPair[] = [];
  for (const group of groups.values()) {
    for (let i = 0; i < group.length; i++) {
      for (let j = i + 1; j < group.length; j++) {
        const [fast, slow] = group[i].measured_us <= group[j].measured_us ? [group[i], group[j]] : [group[j], group[i]];
        const measured_ratio = slow.measured_us / fast.measured_us;
        if (!(measured_ratio > threshold)) continue;
        const predicted_ratio = slow.predicted_us / fast.predicted_us;
        const verdict: PairVerdict = Math.abs(predicted_ratio - 1) <= TIE ? 'tied' : predicted_ratio > 1 ? 'same' : 'reversed';
        const every_launch = fast.highest_us < slow.lowest_us;
        pairs.push({ collective: fast.collective, bytes: fast.bytes, faster: fast.algorithm, slower: slow.algorithm, measured_ratio, predicted_ratio, verdict, every_launch });
      }
    }
  }
  const counts = (of: readonly ComparedPair[]): VerdictCounts => {
    const count = (v: PairVerdict) => of.filter((p) => p.verdict === v).length;
    return { same: count('same'), reversed: count('reversed'), tied: count('tied') };
  };
  const robust = pairs.filter((p) => p.every_launch);
  return { threshold, ...counts(pairs), everyLaunch: { pairs: robust.length, ...counts(robust) }, pairs };
}
