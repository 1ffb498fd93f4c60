// `topocoll bench --calibrate`: the Hockney parameters of each level of the job's machine, from
// ping-pong between two ranks that meet at that level: inside a node (shared memory) and, when
// the job spans nodes, across them. t(n) = alpha + n / beta: alpha is the half round-trip of a
// small message, beta the inverse slope over large ones (where alpha no longer matters), taken
// as a repeated median so that a delayed size on a shared machine does not skew it.
// The result is a topology file (TOPOCOLL_TOPOLOGY) for the models and the topology-aware
// selection.
import type { Comm } from '../mpi/comm';
import { addon } from '../mpi/native';
import { machineInfo } from './machine';
import { median } from './stats';
import { hostsOf } from './sweep';

export interface LevelFit {
  name: string;
  scope: 'system' | 'host';
  /** The two ranks measured. */
  ranks: [number, number];
  /** Seconds. */
  latency: number;
  /** Bytes per second. */
  bandwidth: number;
  /** The measured points: bytes and half round-trip in microseconds. */
  points: Array<[number, number]>;
}

export const CALIBRATION_SIZES = [8, 64, 512, 4096, 32768, 65536, 131072, 262144, 524288, 1048576, 2097152, 4194304];
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
    // The fastest repetition: ping-pong on a shared machine only ever gets slower by noise.
    for (let r = 0; r < repetitions; r++) best = Math.min(best, native.pingPong(comm.handle, a, b, bytes, iterationsFor(bytes, quick)) as number);
    return [bytes, best] as [number, number];
  });
}

/** Measures every level the job spans (collective over comm); every rank returns the same fits. */
export function calibrate(comm: Comm, quick: boolean): LevelFit[] {
  const hosts = hostsOf(comm);
  const fits: LevelFit[] = [];
  const repetitions = quick ? 2 : 3;
  const interPeer = hosts.findIndex((h) => h !== hosts[0]);
  let intra: [number, number] | undefined;
  for (let r = 0; r < hosts.length && !intra; r++) {
    const peer = hosts.findIndex((h, i) => i > r && h === hosts[r]);
    if (peer > 0) intra = [r, peer];
  }
  if (interPeer > 0) {
    const points = measure(comm, 0, interPeer, quick, repetitions);
    fits.push({ name: 'network', scope: 'system', ranks: [0, interPeer], ...fitHockney(points), points });
  }
  if (intra) {
    const points = measure(comm, intra[0], intra[1], quick, repetitions);
    fits.push({ name: 'node', scope: interPeer > 0 ? 'host' : 'system', ranks: intra, ...fitHockney(points), points });
  }
  return fits;
}

function unitLatency(seconds: number): string {
  return `${Number((seconds * 1e6).toPrecision(4))} us`;
}

function unitBandwidth(bytesPerSecond: number): string {
  return `${Number((bytesPerSecond / 1048576).toPrecision(4))} MiB/s`;
}

/** The topology file (YAML) of the fits, with how they were measured as comments. */
export function topologyYaml(fits: readonly LevelFit[], library: string): string {
  const m = machineInfo();
  const lines = [
    `# Calibrated by \`topocoll bench --calibrate\` on ${m.hostname} (${m.cpuModel}, ${m.cpus} CPUs), ${new Date().toISOString()}`,
    `# ${library}. Ping-pong between two ranks per level: latency = half round-trip of 8-64 B,`,
    `# bandwidth = inverse of the repeated-median slope of the half round-trip over ${BANDWIDTH_FROM / 1024} KiB..4 MiB (Hockney: t(n) = latency + n / bandwidth).`,
    `name: calibrated-${m.hostname.replace(/[^A-Za-z0-9_.-]/g, '-')}`,
    `description: measured by topocoll bench --calibrate`,
    'levels:',
  ];
  for (const f of fits) {
    lines.push(`  - name: ${f.name}`, `    scope: ${f.scope}`, `    latency: ${unitLatency(f.latency)}`, `    bandwidth: ${unitBandwidth(f.bandwidth)}`);
    lines.push(`    # ranks ${f.ranks[0]} and ${f.ranks[1]}; half round-trip (bytes: us): ${f.points.map(([b, t]) => `${b}: ${t.toFixed(2)}`).join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}
