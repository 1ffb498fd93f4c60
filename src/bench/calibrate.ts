// `topocoll bench --calibrate`: the Hockney parameters of each level of the job's machine, from
// two ranks that meet at that level: inside a node (shared memory) and, when the job spans
// nodes, across them; by ping-pong, or with `--timing window` one message timed as the window
// benchmark times calls. t(n) = alpha + n / beta: alpha is the time of a small message, beta the
// inverse slope over large ones (where alpha no longer matters), taken as a repeated median so
// that a delayed size on a shared machine does not skew it. Also the engine's work per schedule
// round and the copy bandwidth, which machine profiles take, and γ, the seconds per byte a reduce
// op combines (the slope of the engine's float SUM over 64 KiB-4 MiB), which both take. The
// result is a topology file (TOPOCOLL_TOPOLOGY) for the models and the topology-aware selection.
import { UNDEFINED, type Comm } from '../mpi/comm';
import type { BenchOptions } from '../mpi/addon';
import { addon } from '../mpi/native';
import type { CollectiveName } from '../select/registry';
import { setAlgorithm } from './override';
import { machineInfo } from './machine';
import { median } from './stats';
import { hostsOf, type Timing } from './sweep';

export interface LevelFit {
  name: string;
  scope: 'system' | 'host';
  /** The two ranks measured. */
  ranks: [number, number];
  /** Seconds. */
  latency: number;
  /** Bytes per second. */
  bandwidth: number;
  /** Bytes per second per direction while the two ranks send to each other at once. */
  exchangeBandwidth: number;
  /** The measured points: bytes and half round-trip in microseconds. */
  points: Array<[number, number]>;
  /** Bytes each way and microseconds of an exchange. */
  exchangePoints: Array<[number, number]>;
}

const CALIBRATION_SIZES = [8, 64, 512, 4096, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152, 4194304];
const BANDWIDTH_FROM = 65536;

function iterationsFor(bytes: number, quick: boolean): number {
  const n = Math.max(5, Math.min(500, Math.floor((quick ? 4 : 16) * 1048576 / Math.max(bytes, 16384))));
  return quick ? Math.max(5, Math.floor(n / 4)) : n;
}

/** Siegel's repeated-median slope of y over x: robust to a delayed point or two. */
function robustSlope(points: ReadonlyArray<[number, number]>): number {
  const perPoint = points.map(([x0, y0]) => median(points.filter(([x]) => x !== x0).map(([x, y]) => (y - y0) / (x - x0))));
  return perPoint.length > 1 ? median(perPoint) : NaN;
}

/** alpha (s) and beta (B/s) from (bytes, microseconds) points. */
export function fitHockney(points: ReadonlyArray<[number, number]>): { latency: number; bandwidth: number } {
  const small = Math.min(...points.filter((p) => p[0] <= 64).map((p) => p[1]));
  const large = points.filter((p) => p[0] >= BANDWIDTH_FROM);
  const s = robustSlope(large.length >= 2 ? large : points); // microseconds per byte
  return { latency: (Number.isFinite(small) ? small : Math.min(...points.map((p) => p[1]))) * 1e-6, bandwidth: s > 0 ? 1e6 / s : NaN };
}

function measure(comm: Comm, a: number, b: number, quick: boolean, repetitions: number): Array<[number, number]> {
  const native = addon();
  return CALIBRATION_SIZES.map((bytes) => {
    let best = Infinity;
    // The fastest round trip (pingPong's) of the fastest repetition: on a shared machine noise
    // only ever makes one slower.
    for (let r = 0; r < repetitions; r++) best = Math.min(best, native.pingPong(comm.handle, a, b, bytes, iterationsFor(bytes, quick)));
    return [bytes, best] as [number, number];
  });
}

/** Tries per size before --timing window gives up on a pair whose every timed message started late. */
const WINDOW_ATTEMPTS = 20;

/**
 * One message from a to b as `topocoll bench --timing window` times calls: from a common start
 * until b holds it, buffers rotated as the benchmark rotates them (a bcast on the pair, which
 * binomial sends as one message). Ping-pong keeps one buffer hot and both ranks spinning, and
 * measures less than an isolated collective's messages cost.
 */
function measureWindowed(comm: Comm, a: number, b: number, quick: boolean, rotateBytes: number): Array<[number, number]> {
  const times = onPair(comm, a, b, CALIBRATION_SIZES.length, (pair, times) => {
    CALIBRATION_SIZES.forEach((bytes, i) => {
      // On a loaded machine every call of a repetition can have a rank start late; try again
      // (both ranks see the same slowest-rank results, so they agree on when to stop).
      const valid: number[] = [];
      for (let attempt = 0; attempt < WINDOW_ATTEMPTS && valid.length === 0; attempt++) {
        const timesUs = benchForced(pair, 'bcast', 'binomial', bytes, { window: true, rotateBytes, targetUs: quick ? 2000 : 10000, repetitions: quick ? 3 : 5 });
        valid.push(...timesUs.filter((t): t is number => t !== null));
      }
      times[i] = valid.length > 0 ? median(valid) : NaN;
    });
  });
  if (times.some(Number.isNaN)) {
    throw new Error(`--calibrate --timing window: ranks ${a} and ${b} started every timed message late in ${WINDOW_ATTEMPTS} attempts (more ranks than CPUs?); calibrate without --timing window`);
  }
  return CALIBRATION_SIZES.map((bytes, i) => [bytes, times[i]] as [number, number]);
}

/**
 * `measure` on a communicator of ranks a and b alone (a is its rank 0) while the others wait;
 * every rank returns the `length` values a's measure wrote (collective over comm).
 */
function onPair(comm: Comm, a: number, b: number, length: number, measure: (pair: Comm, values: Float64Array) => void): Float64Array {
  const member = comm.rank === a || comm.rank === b;
  const pair = comm.split(member ? 0 : UNDEFINED, comm.rank === a ? 0 : 1);
  const values = new Float64Array(length);
  if (pair) {
    measure(pair, values);
    pair.free();
  }
  return comm.bcast(values, a);
}

const EXCHANGE_SIZES = CALIBRATION_SIZES.filter((n) => n >= 262144);

/**
 * Both ways at once: a and b each send n bytes to the other (MPI_Sendrecv) from a common start;
 * an exchange ends when both ranks have the other's bytes. The fastest repetition, per size, as
 * for ping-pong: noise only ever makes one slower, and under load the median of 5 came out flat
 * or falling with the size (no bandwidth to fit).
 */
function measureExchange(comm: Comm, a: number, b: number, quick: boolean): Array<[number, number]> {
  const times = onPair(comm, a, b, EXCHANGE_SIZES.length, (pair, times) => {
    const peer = 1 - pair.rank;
    const mine = new Float64Array(1);
    EXCHANGE_SIZES.forEach((bytes, i) => {
      const out = Buffer.alloc(bytes, 1);
      const back = Buffer.alloc(bytes);
      const each: number[] = [];
      for (let r = 0; r < (quick ? 5 : 11); r++) {
        pair.barrier();
        const t0 = process.hrtime.bigint();
        pair.sendrecv(out, peer, back, peer);
        mine[0] = Number(process.hrtime.bigint() - t0) / 1e3;
        each.push(pair.allreduce(mine, new Float64Array(1), 'MAX')[0]);
      }
      times[i] = Math.min(...each);
    });
  });
  return EXCHANGE_SIZES.map((bytes, i) => [bytes, times[i]] as [number, number]);
}

/** Bytes per second of a local copy of `bytes` from a source rotated over `rotateBytes` (as the benchmark's buffers are), on this rank. */
function measureCopyBandwidth(bytes: number, rotateBytes: number): number {
  const slots = Math.max(1, Math.floor(rotateBytes / bytes));
  const pool = Buffer.alloc(slots * bytes, 1);
  const target = Buffer.alloc(bytes);
  let best = Infinity;
  for (let rep = 0; rep < 5; rep++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < slots; i++) pool.copy(target, 0, i * bytes, (i + 1) * bytes);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9 / slots);
  }
  return bytes / best;
}

/** Sizes of the combines timed for γ: large enough that a call's fixed cost is lost in the slope. */
const COMBINE_SIZES = [65536, 262144, 1048576, 4194304];

/** γ, seconds per byte combined, from (bytes, seconds) points: their repeated-median slope; NaN when not positive. */
export function fitGamma(points: ReadonlyArray<[number, number]>): number {
  const slope = robustSlope(points);
  return slope > 0 && Number.isFinite(slope) ? slope : NaN;
}

/** (bytes, seconds) of the engine's reduce op on float SUM, operands rotated over `rotateBytes` (as the benchmark's buffers), on this rank. */
function measureCombine(rotateBytes: number, quick: boolean): Array<[number, number]> {
  return COMBINE_SIZES.map((bytes) => [bytes, addon().combineTime(bytes, Math.max(rotateBytes, 2 * bytes), quick ? 3 : 5)] as [number, number]);
}

/** The times of `benchCollective` on `comm` with `algorithm` forced for `coll` (collective over comm). */
function benchForced(comm: Comm, coll: CollectiveName, algorithm: string, bytes: number, options: BenchOptions): (number | null)[] {
  setAlgorithm(coll, algorithm);
  try {
    return addon().benchCollective(comm.handle, coll, bytes, options).timesUs;
  } finally {
    setAlgorithm(coll, null);
  }
}

/**
 * The engine's own work per round of a schedule, in seconds, on a one-rank communicator: a
 * one-round collective (allgather: a copy of 8 B) against a zero-round one (bcast), back to back.
 */
function roundOverheadOn(self: Comm, quick: boolean): number {
  const perCall = (coll: CollectiveName, algorithm: string) =>
    median(benchForced(self, coll, algorithm, 8, { targetUs: quick ? 2000 : 10000, repetitions: quick ? 3 : 7 }) as number[]);
  return Math.max(0, perCall('allgather', 'ring') - perCall('bcast', 'binomial')) * 1e-6;
}

export interface Calibration {
  /** How the levels were timed: ping-pong (`loop`) or one message from a common start (`window`). */
  readonly timing: Timing;
  readonly levels: LevelFit[];
  /** Seconds of the engine's own work per schedule round. */
  readonly roundOverhead: number;
  /** Bytes per second of a 1 MiB local copy whose source rotates as the benchmark's buffers do. */
  readonly copyBandwidth: number;
  /** γ: seconds per byte a reduce op combines (NaN when the fit failed). */
  readonly gamma: number;
  /** The combines timed for γ: bytes and seconds. */
  readonly combinePoints: Array<[number, number]>;
}

const COPY_BYTES = 1 << 20;

/**
 * Measures every level the job spans and the engine's per-round work (collective over comm);
 * every rank returns the same. `window`: one message timed as `bench --timing window` times
 * calls, buffers rotated over `rotateBytes`; `loop`: ping-pong.
 */
export function calibrate(comm: Comm, quick: boolean, timing: Timing, rotateBytes: number): Calibration {
  const levels = calibrateLevels(comm, quick, timing === 'window' ? { rotateBytes } : undefined);
  // The engine's round overhead, the copy bandwidth and the combine times: on rank 0 alone, the others wait.
  const self = comm.split(comm.rank === 0 ? 0 : UNDEFINED);
  const engine = new Float64Array(2 + COMBINE_SIZES.length);
  if (self) {
    engine[0] = roundOverheadOn(self, quick);
    engine[1] = measureCopyBandwidth(COPY_BYTES, Math.max(rotateBytes, COPY_BYTES));
    measureCombine(rotateBytes, quick).forEach(([, seconds], i) => (engine[2 + i] = seconds));
    self.free();
  }
  comm.bcast(engine, 0);
  const combinePoints = COMBINE_SIZES.map((bytes, i) => [bytes, engine[2 + i]] as [number, number]);
  return { timing, levels, roundOverhead: engine[0], copyBandwidth: engine[1], gamma: fitGamma(combinePoints), combinePoints };
}

function calibrateLevels(comm: Comm, quick: boolean, window?: { rotateBytes: number }): LevelFit[] {
  const hosts = hostsOf(comm);
  const fits: LevelFit[] = [];
  const repetitions = quick ? 2 : 3;
  const interPeer = hosts.findIndex((h) => h !== hosts[0]);
  let intra: [number, number] | undefined;
  for (let r = 0; r < hosts.length && !intra; r++) {
    const peer = hosts.findIndex((h, i) => i > r && h === hosts[r]);
    if (peer > 0) intra = [r, peer];
  }
  const level = (name: string, scope: LevelFit['scope'], ranks: [number, number]): LevelFit => {
    const points = window ? measureWindowed(comm, ...ranks, quick, window.rotateBytes) : measure(comm, ...ranks, quick, repetitions);
    return levelFit(name, scope, ranks, points, measureExchange(comm, ...ranks, quick));
  };
  if (interPeer > 0) fits.push(level('network', 'system', [0, interPeer]));
  if (intra) fits.push(level('node', interPeer > 0 ? 'host' : 'system', intra));
  return fits;
}

/**
 * A level's fit from its one-way times and its exchange times (bytes, µs). A one-way time that does
 * not grow with the size has no bandwidth, which the topology file requires: an error, as one rank
 * after another started late on a loaded machine (the exchange bandwidth is optional: left out).
 */
export function levelFit(name: string, scope: LevelFit['scope'], ranks: [number, number], points: Array<[number, number]>, exchangePoints: Array<[number, number]>): LevelFit {
  const fit = fitHockney(points);
  if (!(fit.bandwidth > 0)) {
    const times = points.map(([b, t]) => `${b}: ${t.toFixed(2)}`).join(', ');
    throw new Error(`--calibrate: the ${name} level's times (ranks ${ranks[0]} and ${ranks[1]}) did not grow with the size, so no bandwidth can be fitted (bytes: us): ${times}; the machine was too busy (other load, or more ranks than CPUs): calibrate again when it is quieter`);
  }
  const slope = robustSlope(exchangePoints); // microseconds per byte each way
  return { name, scope, ranks, ...fit, exchangeBandwidth: slope > 0 ? 1e6 / slope : NaN, points, exchangePoints };
}

function unitLatency(seconds: number): string {
  return `${Number((seconds * 1e6).toPrecision(4))} us`;
}

function unitBandwidth(bytesPerSecond: number): string {
  return `${Number((bytesPerSecond / 1048576).toPrecision(4))} MiB/s`;
}

/** The topology file (YAML) of a calibration, with how it was measured as comments. */
export function topologyYaml(c: Calibration, library: string): string {
  const m = machineInfo();
  const how =
    c.timing === 'window'
      ? 'One message between two ranks per level, from a common start until it is received (bench --timing window, buffers rotated)'
      : 'Ping-pong between two ranks per level (the fastest half round-trip)';
  const lines = [
    `# Calibrated by \`topocoll bench --calibrate\` on ${m.hostname} (${m.cpuModel}, ${m.cpus} CPUs), ${new Date().toISOString()}`,
    `# ${library}. ${how}: latency = the time of 8-64 B,`,
    `# bandwidth = inverse of the repeated-median slope of the time over ${BANDWIDTH_FROM / 1024} KiB..4 MiB (Hockney: t(n) = latency + n / bandwidth);`,
    `# exchange_bandwidth = the same slope, per direction, of both ranks sending to each other at once (MPI_Sendrecv, ${EXCHANGE_SIZES[0] / 1024} KiB..4 MiB).`,
    `# For machine profiles of \`topocoll simulate\` (docs/models.md): round_overhead: ${unitLatency(c.roundOverhead)} (the engine's work per`,
    `# schedule round: allgather against bcast on one rank); copy_bandwidth: ${unitBandwidth(c.copyBandwidth)} (1 MiB copies, source rotated).`,
    `name: calibrated-${m.hostname.replace(/[^A-Za-z0-9_.-]/g, '-')}`,
    `description: measured by topocoll bench --calibrate`,
  ];
  // γ is a key of the file (the engine's model charges it); NaN leaves the model's default.
  const combined = c.combinePoints.map(([b, t]) => `${b}: ${(t * 1e6).toFixed(2)}`).join(', ');
  if (Number.isFinite(c.gamma)) {
    lines.push(
      `# reduce_bandwidth = 1 / γ, the slope of the engine's reduce op (float SUM, operands rotated) over ${COMBINE_SIZES[0] / 1024} KiB..4 MiB on rank 0:`,
      `# ${Number((c.gamma * 1e9).toPrecision(3))} ns per byte combined (bytes: us): ${combined}`,
      `reduce_bandwidth: ${unitBandwidth(1 / c.gamma)}`,
    );
  } else {
    lines.push(`# reduce_bandwidth: not fitted (no positive slope; bytes: us): ${combined}; the model keeps its default γ`);
  }
  lines.push('levels:');
  for (const f of c.levels) {
    lines.push(`  - name: ${f.name}`, `    scope: ${f.scope}`, `    latency: ${unitLatency(f.latency)}`, `    bandwidth: ${unitBandwidth(f.bandwidth)}`);
    if (Number.isFinite(f.exchangeBandwidth)) lines.push(`    exchange_bandwidth: ${unitBandwidth(f.exchangeBandwidth)}`);
    lines.push(`    # ranks ${f.ranks[0]} and ${f.ranks[1]}; time (bytes: us): ${f.points.map(([b, t]) => `${b}: ${t.toFixed(2)}`).join(', ')}`);
    lines.push(`    # both ways at once (bytes each way: us): ${f.exchangePoints.map(([b, t]) => `${b}: ${t.toFixed(2)}`).join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}
