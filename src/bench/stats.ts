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

/** Microseconds with 3 significant digits at least, as OSU prints them (2 decimals). */
export function formatUs(us: number): string {
  if (!Number.isFinite(us)) return '-';
  return us >= 100000 ? us.toFixed(0) : us.toFixed(2);
}
