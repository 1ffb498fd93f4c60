// The measurement sweep: collectives x algorithms x sizes, run by every rank of a job. Timing
// loops run in C++ (native/addon/bench.cc); this file decides what to run and in what order.
//
// Order matters on a shared machine: for each (collective, size) the algorithms take turns
// repetition by repetition, so a burst of load from elsewhere hits all of them alike and the
// ratios stay fair even when the absolute times wander.
import type { Comm } from '../mpi/comm';
import { addon, loadedFlavour } from '../mpi/native';
import { AUTO, NATIVE, shapeOf, sizeBasisOf, type CollectiveName, type SizeBasisName } from '../select/registry';
import { jobShape, machineInfo, type JobShape, type MachineInfo, type MpiInfo } from './machine';
import { setAlgorithm, takeFallback } from './override';
import { formatBytes, median, quantile, relativeSpread } from './stats';
import type { Progress } from './progress';

const BENCH_FORMAT = 'topocoll-bench';
const BENCH_VERSION = 1;

/**
 * `loop`: the slowest rank's mean time per call over back-to-back calls (OSU, IMB): throughput,
 * with calls overlapping where the algorithm lets them. `window`: one call from a common start
 * on a synchronised clock until the last rank finishes (ReproMPI): latency, what the simulator
 * predicts.
 */
export type Timing = 'loop' | 'window';

export interface SweepOptions {
  collectives: CollectiveName[];
  /** Algorithms to run (names, `native`, `auto`); empty = every registered one, native and auto. */
  algorithms: string[];
  sizes: number[];
  repetitions: number;
  /** Time one repetition of a cell aims at, in microseconds (iterations adapt to it). */
  targetUs: number;
  /** How a repetition times the calls (absent in reports of earlier versions: loop). */
  timing?: Timing;
  /** Bytes of the rotated buffer pools (0: one buffer, reused). */
  rotateBytes: number;
  check: boolean;
  root: number;
}

export interface BenchRecord {
  collective: CollectiveName;
  algorithm: string;
  bytes: number;
  /** What `bytes` counts: one rank's block (allgather, alltoall), the message (bcast), nothing (barrier). */
  basis: SizeBasisName;
  ranks: number;
  iterations: number;
  repetitions: number;
  /** Each repetition: the slowest rank's mean time per call. */
  times_us: number[];
  min_us: number;
  median_us: number;
  max_us: number;
  /** Interquartile range over the median: the cell's noise. */
  relative_spread: number;
  /** native's median over this one's (> 1: faster than native), measured in the same run. */
  speedup_vs_native: number | null;
  check: 'ok' | 'failed' | 'off';
  errors: number;
  /** Window timing: the window between call starts, and the calls left out because a rank started late. */
  window_us?: number;
  late_calls?: number;
  /** A native sweep's cells (`native:<name>`): the launch that measured it, the MPI set to run <name> (0: the main launch). */
  launch?: number;
}

export interface SkippedAlgorithm {
  collective: CollectiveName;
  algorithm: string;
  why: string;
}

export interface BenchReport {
  format: typeof BENCH_FORMAT;
  version: typeof BENCH_VERSION;
  created: string;
  generator: string;
  machine: MachineInfo;
  mpi: MpiInfo;
  job: JobShape;
  options: SweepOptions;
  records: BenchRecord[];
  skipped: SkippedAlgorithm[];
}

/** Every algorithm `bench` runs for a collective by default: ours with a builder, then native and auto. */
function defaultAlgorithms(coll: CollectiveName): string[] {
  const registered: string[] = addon().registeredAlgorithms()[coll];
  return [NATIVE, ...registered, AUTO];
}

function algorithmsFor(coll: CollectiveName, wanted: readonly string[]): string[] {
  const all = defaultAlgorithms(coll);
  if (wanted.length === 0) return all;
  // native is always measured: every speedup is against it.
  return all.filter((a) => a === NATIVE || wanted.includes(a));
}

function sizesFor(coll: CollectiveName, sizes: readonly number[]): number[] {
  return shapeOf(coll) === 'none' ? [0] : [...sizes];
}

/** The number of (cell, repetition) steps a sweep takes, for the progress bar. */
export function sweepSteps(opts: SweepOptions): number {
  return opts.collectives.reduce((n, c) => n + sizesFor(c, opts.sizes).length * algorithmsFor(c, opts.algorithms).length * opts.repetitions, 0);
}

interface Cell {
  algorithm: string;
  iterations: number;
  windowUs: number;
  times: number[];
  lateCalls: number;
  errors: number;
  skipped?: string;
}

/** The hosts of every rank of `comm`, in rank order (collective). */
export function hostsOf(comm: Comm): string[] {
  return addon().hierarchy(comm.handle).ranks.map((r) => r.host);
}

// Whether any rank saw the overridden algorithm fall back to native (collective; MPI_MAX
// through allreduce, which the engine does not override).
function agreedFallback(comm: Comm, coll: CollectiveName): string | null {
  const mine = takeFallback(coll);
  const any = comm.allreduce(new Int32Array([mine ? 1 : 0]), new Int32Array(1), 'MAX')[0];
  return any ? (mine ?? 'another rank could not run it') : null;
}

/** Runs the sweep on every rank of `comm`; every rank returns the same report. */
export function runSweep(comm: Comm, opts: SweepOptions, progress?: Progress): BenchReport {
  // The nodes as the engine counts them (virtual ones included): what rules on placement match.
  const nodes = addon().hierarchy(comm.handle).ranks.map((r) => String(r.node));
  const records: BenchRecord[] = [];
  const skipped: SkippedAlgorithm[] = [];
  const native = addon();
  for (const coll of opts.collectives) {
    const algorithms = algorithmsFor(coll, opts.algorithms);
    for (const bytes of sizesFor(coll, opts.sizes)) {
      const cells: Cell[] = algorithms.map((algorithm) => ({ algorithm, iterations: 0, windowUs: 0, times: [], lateCalls: 0, errors: 0 }));
      for (let rep = 0; rep < opts.repetitions; rep++) {
        for (const cell of cells) {
          progress?.step(`${coll} ${shapeOf(coll) === 'none' ? '' : `${formatBytes(bytes)} `}${cell.algorithm}`);
          if (cell.skipped) continue;
          setAlgorithm(coll, cell.algorithm === AUTO ? null : cell.algorithm);
          const first = rep === 0;
          const r = native.benchCollective(comm.handle, coll, bytes, {
            iterations: first ? 0 : cell.iterations,
            warmup: first ? 0 : Math.max(1, Math.min(50, Math.floor(cell.iterations / 10))),
            repetitions: 1,
            targetUs: opts.targetUs,
            rotateBytes: opts.rotateBytes,
            check: first && opts.check,
            root: opts.root,
            window: opts.timing === 'window',
            windowUs: cell.windowUs,
          });
          if (first && cell.algorithm !== NATIVE && cell.algorithm !== AUTO) {
            const why = agreedFallback(comm, coll);
            if (why) {
              cell.skipped = why;
              skipped.push({ collective: coll, algorithm: cell.algorithm, why });
              continue;
            }
          }
          cell.iterations = r.iterations;
          cell.windowUs = r.windowUs;
          cell.lateCalls += r.invalid;
          cell.errors += r.errors;
          // null: every window of the repetition had a rank start late (an overloaded machine).
          if (r.timesUs[0] !== null) cell.times.push(r.timesUs[0]);
        }
      }
      setAlgorithm(coll, null);
      for (const cell of cells) {
        if (!cell.skipped && cell.times.length === 0) {
          cell.skipped = `every timing window had a rank start late (${cell.lateCalls} calls): the machine is overloaded`;
          skipped.push({ collective: coll, algorithm: cell.algorithm, why: cell.skipped });
        }
      }
      const nativeCell = cells.find((c) => c.algorithm === NATIVE)!;
      const nativeMedian = nativeCell.skipped ? NaN : median(nativeCell.times);
      for (const cell of cells) {
        if (cell.skipped) continue;
        const m = median(cell.times);
        records.push({
          collective: coll,
          algorithm: cell.algorithm,
          bytes,
          basis: sizeBasisOf(coll),
          ranks: comm.size,
          iterations: cell.iterations,
          repetitions: cell.times.length,
          times_us: cell.times.map((t) => Number(t.toPrecision(6))),
          min_us: Number(quantile(cell.times, 0).toPrecision(6)),
          median_us: Number(m.toPrecision(6)),
          max_us: Number(quantile(cell.times, 1).toPrecision(6)),
          relative_spread: Number(relativeSpread(cell.times).toFixed(4)),
          speedup_vs_native: m > 0 && nativeMedian > 0 ? Number((nativeMedian / m).toFixed(4)) : null,
          check: opts.check ? (cell.errors === 0 ? 'ok' : 'failed') : 'off',
          errors: cell.errors,
          ...(opts.timing === 'window' ? { window_us: Number(cell.windowUs.toPrecision(6)), late_calls: cell.lateCalls } : {}),
        });
      }
    }
  }
  progress?.done();
  return {
    format: BENCH_FORMAT,
    version: BENCH_VERSION,
    created: new Date().toISOString(),
    generator: `topocoll ${packageVersion()}`,
    machine: machineInfo(),
    mpi: { flavour: loadedFlavour(), library: libraryName() },
    job: jobShape(nodes),
    options: opts,
    records,
    skipped,
  };
}

/** MPI_Get_library_version's first line (without the NUL some libraries leave in it). */
export function libraryName(): string {
  return addon().buildInfo().libraryVersion.replace(/\0/g, '').trim().split('\n')[0].trim();
}

function packageVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  return (require('../../package.json') as { version: string }).version;
}
