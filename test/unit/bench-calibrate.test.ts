// `topocoll bench --calibrate`'s fits on synthetic data, and the topology file it writes: γ (the
// seconds per byte a reduce op combines) as reduce_bandwidth, read back by the topology reader.
import { describe, expect, it } from 'vitest';
import { fitGamma, levelFit, topologyYaml, type Calibration } from '../../src/bench/calibrate';
import { parseTopology } from '../../src/mpi/files';

const KiB = 1024;
const SIZES = [64 * KiB, 256 * KiB, 1024 * KiB, 4096 * KiB];

describe('fitGamma', () => {
  it('is the slope of the combine time over the bytes: a fixed cost per call does not move it', () => {
    // 1.5 us per call + 0.2 ns per byte.
    const points = SIZES.map((n) => [n, 1.5e-6 + n * 0.2e-9] as [number, number]);
    expect(fitGamma(points)).toBeCloseTo(0.2e-9, 18);
  });

  it('one size delayed (a loaded machine) does not move it', () => {
    const points = [...SIZES, 2048 * KiB].map((n) => [n, n * 0.15e-9] as [number, number]);
    points[1][1] *= 20;
    expect(fitGamma(points)).toBeCloseTo(0.15e-9, 18);
  });

  it('is NaN when the times do not grow with the bytes', () => {
    expect(fitGamma(SIZES.map((n) => [n, 1e-3] as [number, number]))).toBeNaN();
    expect(fitGamma(SIZES.map((n) => [n, 1 / n] as [number, number]))).toBeNaN();
  });
});

describe('levelFit', () => {
  const sizes = [8, 64, 4096, 65536, 262144, 1048576, 4194304];
  const exchange = [262144, 1048576, 4194304].map((n) => [n, 3 + n / 500] as [number, number]);

  it('fits a level whose times grow with the size, and its exchange bandwidth', () => {
    const fit = levelFit('node', 'system', [0, 1], sizes.map((n) => [n, 0.5 + n / 1000] as [number, number]), exchange);
    expect(fit.bandwidth / 1e9).toBeCloseTo(1, 6);
    expect(fit.exchangeBandwidth / 1e9).toBeCloseTo(0.5, 6);
  });

  it('refuses times that do not grow with the size (every one a time slice, beside CPU hogs), naming the level and the times', () => {
    const flat = sizes.map((n) => [n, 3968.73] as [number, number]);
    expect(() => levelFit('node', 'system', [0, 1], flat, exchange)).toThrow(/^--calibrate: the node level's times \(ranks 0 and 1\) did not grow with the size, so no bandwidth can be fitted \(bytes: us\): 8: 3968\.73, .*calibrate again when it is quieter$/);
  });

  it('leaves the exchange bandwidth unmeasured (NaN) when only the exchange is flat', () => {
    const fit = levelFit('node', 'system', [0, 1], sizes.map((n) => [n, 0.5 + n / 1000] as [number, number]), exchange.map(([n]) => [n, 10] as [number, number]));
    expect(fit.exchangeBandwidth).toBeNaN();
  });
});

describe('topologyYaml', () => {
  const calibration = (gamma: number): Calibration => ({
    timing: 'loop',
    levels: [{ name: 'node', scope: 'system', ranks: [0, 1], latency: 0.4e-6, bandwidth: 8e9, exchangeBandwidth: 8.5e9, points: [[8, 0.4]], exchangePoints: [[262144, 30]] }],
    roundOverhead: 0.025e-6,
    copyBandwidth: 25e9,
    gamma,
    combinePoints: SIZES.map((n) => [n, n * gamma] as [number, number]),
  });

  it('writes γ as reduce_bandwidth, which both topology readers take', () => {
    const text = topologyYaml(calibration(0.25e-9), 'Open MPI 4.1');
    expect(text).toMatch(/^reduce_bandwidth: 3815 MiB\/s$/m); // 1 / 0.25 ns = 4 GB/s
    const t = parseTopology(text, 'calibrated.yaml');
    expect(t.reduceBandwidth).toBe(3815 * 1048576);
    expect(t.levels).toHaveLength(1);
  });

  it('leaves reduce_bandwidth out (the model keeps its default) when the fit failed', () => {
    const text = topologyYaml(calibration(NaN), 'Open MPI 4.1');
    expect(text).toMatch(/^# reduce_bandwidth: not fitted/m);
    expect(parseTopology(text, 'calibrated.yaml').reduceBandwidth).toBeUndefined();
  });
});
