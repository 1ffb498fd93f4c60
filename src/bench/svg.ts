// SVG line charts written by hand (no plotting dependency): latency against size on log-log
// axes, one line per algorithm, and the speedup against native on a log size axis.
import type { CollectiveName } from '../select/registry';
import { NATIVE, shapeOf, sizeBasisOf } from '../select/registry';
import { shortBytes } from './stats';
import type { BenchReport } from './sweep';

export interface Series {
  name: string;
  points: Array<[number, number]>;
  dashed?: boolean;
}

export interface Chart {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  logY: boolean;
  /** A horizontal reference line (speedup 1 = native). */
  referenceY?: number;
  formatX?: (x: number) => string;
}

// Colour-blind-safe palette (Okabe-Ito), then greys.
const COLOURS = ['#000000', '#E69F00', '#56B4E9', '#009E73', '#D55E00', '#0072B2', '#CC79A7', '#F0E442', '#777777', '#AAAAAA'];

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function niceLinearTicks(lo: number, hi: number, count = 6): number[] {
  const span = hi - lo || 1;
  const raw = span / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => span / s <= count) ?? 10 * mag;
  const ticks: number[] = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) ticks.push(Number(t.toPrecision(6)));
  return ticks;
}

function formatNumber(v: number): string {
  if (v >= 1000) return v >= 1e6 ? `${v / 1e6}M` : `${v / 1000}k`;
  return String(Number(v.toPrecision(3)));
}

/** The chart as an SVG document. X is always logarithmic (sizes are powers of two). */
function lineChart(chart: Chart): string {
  const width = 760;
  const height = 440;
  const m = { left: 70, right: 190, top: chart.subtitle ? 52 : 38, bottom: 50 };
  const pw = width - m.left - m.right;
  const ph = height - m.top - m.bottom;
  const points = chart.series.flatMap((s) => s.points).filter(([x, y]) => x > 0 && Number.isFinite(y) && (!chart.logY || y > 0));
  const xs = points.map((p) => p[0]);
  const ys = points.map((p) => p[1]);
  if (chart.referenceY !== undefined) ys.push(chart.referenceY);
  const xLo = Math.log2(Math.min(...xs, 1));
  const xHi = Math.max(Math.log2(Math.max(...xs, 2)), xLo + 1);
  let yLo: number;
  let yHi: number;
  if (chart.logY) {
    yLo = Math.floor(Math.log10(Math.min(...ys)));
    yHi = Math.ceil(Math.log10(Math.max(...ys)));
    if (yHi === yLo) yHi++;
  } else {
    yLo = Math.min(0, ...ys);
    yHi = Math.max(...ys) * 1.05 || 1;
  }
  const sx = (x: number) => m.left + ((Math.log2(x) - xLo) / (xHi - xLo)) * pw;
  const sy = (y: number) => m.top + ph - (((chart.logY ? Math.log10(y) : y) - yLo) / (yHi - yLo)) * ph;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  out.push(`<text x="${m.left}" y="20" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`);
  if (chart.subtitle) out.push(`<text x="${m.left}" y="38" fill="#555">${escapeXml(chart.subtitle)}</text>`);
  // Grid and ticks.
  const formatX = chart.formatX ?? shortBytes;
  const xStep = xHi - xLo > 12 ? 2 : 1;
  for (let e = Math.ceil(xLo); e <= xHi; e += xStep) {
    const x = sx(2 ** e);
    out.push(`<line x1="${x.toFixed(1)}" y1="${m.top}" x2="${x.toFixed(1)}" y2="${m.top + ph}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${x.toFixed(1)}" y="${m.top + ph + 16}" text-anchor="middle">${escapeXml(formatX(2 ** e))}</text>`);
  }
  const yTicks = chart.logY ? Array.from({ length: yHi - yLo + 1 }, (_, i) => 10 ** (yLo + i)) : niceLinearTicks(yLo, yHi);
  for (const t of yTicks) {
    const y = sy(t);
    out.push(`<line x1="${m.left}" y1="${y.toFixed(1)}" x2="${m.left + pw}" y2="${y.toFixed(1)}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${m.left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${formatNumber(t)}</text>`);
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  if (chart.referenceY !== undefined) {
    const y = sy(chart.referenceY);
    out.push(`<line x1="${m.left}" y1="${y.toFixed(1)}" x2="${m.left + pw}" y2="${y.toFixed(1)}" stroke="#000" stroke-dasharray="2 3"/>`);
  }
  out.push(`<text x="${m.left + pw / 2}" y="${height - 12}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`);
  out.push(`<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`);
  // Lines and legend.
  chart.series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const pts = s.points.filter(([x, y]) => x > 0 && Number.isFinite(y) && (!chart.logY || y > 0));
    if (pts.length) {
      const d = pts.map(([x, y], k) => `${k ? 'L' : 'M'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="1.8"${s.dashed ? ' stroke-dasharray="6 3"' : ''}/>`);
      for (const [x, y] of pts) out.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.2" fill="${colour}"/>`);
    }
    const ly = m.top + 10 + i * 18;
    out.push(`<line x1="${m.left + pw + 14}" y1="${ly}" x2="${m.left + pw + 40}" y2="${ly}" stroke="${colour}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 3"' : ''}/>`);
    out.push(`<text x="${m.left + pw + 46}" y="${ly + 4}">${escapeXml(s.name)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function subtitle(report: BenchReport): string {
  const j = report.job;
  return `${report.mpi.library.split(',')[0]}, ${j.ranks} ranks on ${j.nodes} node${j.nodes === 1 ? '' : 's'}, ${report.machine.hostname}; median of ${report.options.repetitions}`;
}

const X_LABEL = { block: 'bytes per rank (block)', message: 'message bytes', none: '' };

/** Latency against size, one line per algorithm (log-log). Null for barrier (no sizes). */
export function latencyChart(report: BenchReport, coll: CollectiveName): string | null {
  if (shapeOf(coll) === 'none') return null;
  const records = report.records.filter((r) => r.collective === coll);
  const algorithms = [...new Set(records.map((r) => r.algorithm))];
  return lineChart({
    title: `${coll}: latency`,
    subtitle: subtitle(report),
    xLabel: X_LABEL[sizeBasisOf(coll)],
    yLabel: 'median latency (us)',
    logY: true,
    series: algorithms.map((a) => ({
      name: a,
      dashed: a === NATIVE,
      points: records.filter((r) => r.algorithm === a).map((r) => [r.bytes, r.median_us] as [number, number]),
    })),
  });
}

/** Speedup against native per algorithm (native's median over the algorithm's; 1 = native). */
export function speedupChart(report: BenchReport, coll: CollectiveName): string | null {
  if (shapeOf(coll) === 'none') return null;
  const records = report.records.filter((r) => r.collective === coll && r.algorithm !== NATIVE);
  const algorithms = [...new Set(records.map((r) => r.algorithm))];
  return lineChart({
    title: `${coll}: speedup over native (higher is better)`,
    subtitle: subtitle(report),
    xLabel: X_LABEL[sizeBasisOf(coll)],
    yLabel: 'native median / algorithm median (log)',
    logY: true,
    referenceY: 1,
    series: algorithms.map((a) => ({
      name: a,
      points: records.filter((r) => r.algorithm === a && r.speedup_vs_native !== null).map((r) => [r.bytes, r.speedup_vs_native!] as [number, number]),
    })),
  });
}
