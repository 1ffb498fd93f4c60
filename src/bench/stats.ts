// Order statistics of repeated timings. Medians, not means: a loaded machine adds rare long
// delays that would move a mean far more than the collective's own cost.

function sorted(xs: readonly number[]): number[] {
  return [...xs].sort((a, b) => a - b);
}

/** The q-quantile (0..1) by linear interpolation between order statistics. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = sorted(xs);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

export function median(xs: readonly number[]): number {
  return quantile(xs, 0.5);
}

/** Relative spread of a cell: interquartile range over the median (0 for one sample). */
export function relativeSpread(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = median(xs);
  return m > 0 ? (quantile(xs, 0.75) - quantile(xs, 0.25)) / m : 0;
}

/** Sizes as people write them, in the largest unit that holds them whole: 512 B, 8 KiB, 4 MiB, 1 GiB. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && n % 1024 === 0 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n} ${units[i]}`;
}

/** Compact size for table columns: 512, 8K, 4M. */
export function shortBytes(n: number): string {
  if (n >= 1 << 20 && n % (1 << 20) === 0) return `${n / (1 << 20)}M`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024}K`;
  return String(n);
}

/** A number to `digits` significant digits, never in exponent form: 0.0123, 1.20, 12.3, 123, 1230. */
export function formatSig(x: number, digits = 3): string {
  if (!Number.isFinite(x)) return '-';
  // toPrecision keeps the zeros that are significant (10.0) but writes 1230 as 1.23e+3.
  return Math.abs(x) >= 10 ** digits ? String(Number(x.toPrecision(digits))) : x.toPrecision(digits);
}

/** Microseconds in tables: 3 significant digits (the repetitions rarely agree on a fourth). */
export function formatUs(us: number): string {
  return formatSig(us);
}

/**
 * The spread of a cell's repetitions: the interquartile range (q1..q3), or min..max when there
 * are fewer than 4 (quartiles of 3 samples are interpolated, not measured).
 */
export interface Spread {
  lo: number;
  hi: number;
  kind: 'iqr' | 'range';
}

export function spreadOf(xs: readonly number[]): Spread {
  if (xs.length < 4) return { lo: quantile(xs, 0), hi: quantile(xs, 1), kind: 'range' };
  return { lo: quantile(xs, 0.25), hi: quantile(xs, 0.75), kind: 'iqr' };
}
