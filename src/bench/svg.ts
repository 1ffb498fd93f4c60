// SVG line charts written by hand (no plotting dependency): latency against size on log-log
// axes, one line per algorithm, and the speedup against native on a log size axis. Every
// algorithm has one colour in every plot (algorithmColour); a chart with more lines than can be
// told apart is split into panels by family, each with native and auto.
import { nativeAlgorithms } from '../select/native-algorithms';
import type { CollectiveName } from '../select/registry';
import { AUTO, COLLECTIVES, collectiveInfo, MPI_FLAVOUR_TITLES, NATIVE, shapeOf, sizeBasisOf, type MpiFlavour } from '../select/registry';
import { NATIVE_PREFIX } from '../select/rules';
import { shortBytes } from './stats';
import type { BenchReport } from './sweep';

export interface Series {
  name: string;
  points: Array<[number, number]>;
}

/** One plot of a chart; a chart's panels share its axes, so they compare at a glance. */
export interface Panel {
  /** What the panel's algorithms have in common (absent when the chart has one panel). */
  family?: string;
  series: Series[];
}

export interface Chart {
  title: string;
  subtitle?: string;
  xLabel: string;
  yLabel: string;
  panels: Panel[];
  logY: boolean;
  /** A horizontal reference line (speedup 1 = native). */
  referenceY?: number;
  formatX?: (x: number) => string;
}

/** Series a panel holds at most: more lines than this cannot be told apart. */
const MAX_SERIES_PER_PANEL = 8;

// native and auto first (black and vermillion), then colour-blind-aware categorical colours;
// past those, hues a golden angle apart.
const NATIVE_COLOUR = '#000000';
const AUTO_COLOUR = '#D55E00';
const PALETTE = [
  '#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#8C564B', '#7F3C8D', '#F0C808', '#3969AC', '#11A579', '#E73F74', '#80BA5A',
  '#008695', '#CF1C90', '#4B4B8F', '#A5AA99', '#B15928', '#666666', '#6A3D9A', '#FB9A99', '#1B9E77', '#E68310', '#B2DF8A', '#A6761D',
];

/**
 * Every algorithm name a plot can show, in registry order: ours collective by collective, then
 * the system MPIs' own (Open MPI's, then MPICH's). `native:<name>` takes the colour of <name>.
 */
function colouredNames(): string[] {
  const names = COLLECTIVES.flatMap((c) => c.algorithms.map((a) => a.name));
  for (const mpi of Object.keys(MPI_FLAVOUR_TITLES) as MpiFlavour[]) for (const c of COLLECTIVES) names.push(...nativeAlgorithms(mpi, c.name).map((a) => a.name));
  return [...new Set(names)];
}

let colourIndex: Map<string, number> | undefined;

/** The colour of an algorithm in every plot of every report: keyed by its name, from the registry's order. */
export function algorithmColour(name: string): string {
  if (name === NATIVE) return NATIVE_COLOUR;
  if (name === AUTO) return AUTO_COLOUR;
  colourIndex ??= new Map(colouredNames().map((n, i) => [n, i]));
  const base = name.startsWith(NATIVE_PREFIX) ? name.slice(NATIVE_PREFIX.length) : name;
  // A name the registry does not know (a report of another version): a fixed hue from its letters.
  const i = colourIndex.get(base) ?? colourIndex.size + [...base].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) % 997, 7);
  if (i < PALETTE.length) return PALETTE[i];
  return `hsl(${Math.round(((i - PALETTE.length) * 137.508) % 360)}, 65%, 42%)`;
}

/** auto dashed, the MPI's own algorithms (native:<name>) dotted, native and ours solid. */
function dashOf(name: string): string {
  if (name === AUTO) return ' stroke-dasharray="7 4"';
  if (name.startsWith(NATIVE_PREFIX)) return ' stroke-dasharray="2 3"';
  return '';
}

// Text width in pixels at font-size 12, wide enough for sans-serif lowercase, digits and '_'.
const CHAR_WIDTH = 7.2;
const LEGEND_ROW = 18;

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

/**
 * The chart as an SVG document: its panels one below the other on shared axes, each with its
 * legend on the right, sized from the longest name so that no label is cut. X is always
 * logarithmic (sizes are powers of two).
 */
function lineChart(chart: Chart): string {
  const plotWidth = 500;
  const plotHeight = 300;
  const names = chart.panels.flatMap((p) => p.series.map((s) => s.name));
  const legendWidth = 14 + 26 + 6 + Math.ceil(Math.max(8, ...names.map((n) => n.length)) * CHAR_WIDTH) + 10;
  const m = { left: 70, right: legendWidth, top: chart.subtitle ? 52 : 38, bottom: 50 };
  const titleWidth = Math.max(chart.title.length * 9, (chart.subtitle?.length ?? 0) * CHAR_WIDTH);
  const width = Math.max(m.left + plotWidth + m.right, m.left + Math.ceil(titleWidth) + 10);
  const pw = width - m.left - m.right;
  const panelTitle = chart.panels.length > 1 ? 22 : 0;
  const rows = Math.max(...chart.panels.map((p) => p.series.length));
  const ph = Math.max(plotHeight, rows * LEGEND_ROW + 20);
  const panelHeight = panelTitle + ph + m.bottom;
  const height = m.top + chart.panels.length * panelHeight;
  const valid = ([x, y]: [number, number]) => x > 0 && Number.isFinite(y) && (!chart.logY || y > 0);
  const points = chart.panels.flatMap((p) => p.series.flatMap((s) => s.points)).filter(valid);
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
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${width}" height="${height}" fill="white"/>`);
  out.push(`<text x="${m.left}" y="20" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`);
  if (chart.subtitle) out.push(`<text x="${m.left}" y="38" fill="#555">${escapeXml(chart.subtitle)}</text>`);
  const formatX = chart.formatX ?? shortBytes;
  const xStep = xHi - xLo > 12 ? 2 : 1;
  const yTicks = chart.logY ? Array.from({ length: yHi - yLo + 1 }, (_, i) => 10 ** (yLo + i)) : niceLinearTicks(yLo, yHi);
  chart.panels.forEach((panel, k) => {
    const top = m.top + k * panelHeight + panelTitle;
    const sx = (x: number) => m.left + ((Math.log2(x) - xLo) / (xHi - xLo)) * pw;
    const sy = (y: number) => top + ph - (((chart.logY ? Math.log10(y) : y) - yLo) / (yHi - yLo)) * ph;
    out.push(`<g class="panel"${panel.family ? ` data-family="${escapeXml(panel.family)}"` : ''}>`);
    if (panelTitle) out.push(`<text x="${m.left}" y="${top - 7}" font-weight="bold">${escapeXml(panel.family ?? '')}</text>`);
    for (let e = Math.ceil(xLo); e <= xHi; e += xStep) {
      const x = sx(2 ** e);
      out.push(`<line x1="${x.toFixed(1)}" y1="${top}" x2="${x.toFixed(1)}" y2="${top + ph}" stroke="#e5e5e5"/>`);
      out.push(`<text x="${x.toFixed(1)}" y="${top + ph + 16}" text-anchor="middle">${escapeXml(formatX(2 ** e))}</text>`);
    }
    for (const t of yTicks) {
      const y = sy(t);
      out.push(`<line x1="${m.left}" y1="${y.toFixed(1)}" x2="${m.left + pw}" y2="${y.toFixed(1)}" stroke="#e5e5e5"/>`);
      out.push(`<text x="${m.left - 6}" y="${(y + 4).toFixed(1)}" text-anchor="end">${formatNumber(t)}</text>`);
    }
    out.push(`<rect x="${m.left}" y="${top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
    if (chart.referenceY !== undefined) {
      const y = sy(chart.referenceY);
      out.push(`<line x1="${m.left}" y1="${y.toFixed(1)}" x2="${m.left + pw}" y2="${y.toFixed(1)}" stroke="#000" stroke-dasharray="2 3"/>`);
    }
    out.push(`<text x="${m.left + pw / 2}" y="${top + ph + 38}" text-anchor="middle">${escapeXml(chart.xLabel)}</text>`);
    out.push(`<text transform="translate(16 ${top + ph / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yLabel)}</text>`);
    out.push(`<rect class="legend" x="${m.left + pw + 8}" y="${top}" width="${legendWidth - 12}" height="${panel.series.length * LEGEND_ROW + 8}" fill="none" stroke="#ccc"/>`);
    panel.series.forEach((s, i) => {
      const colour = algorithmColour(s.name);
      const dash = dashOf(s.name);
      const pts = s.points.filter(valid);
      if (pts.length) {
        const d = pts.map(([x, y], j) => `${j ? 'L' : 'M'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(' ');
        out.push(`<path d="${d}" fill="none" stroke="${colour}" stroke-width="${s.name === NATIVE ? 2.4 : 1.8}"${dash}/>`);
        // auto's markers hollow: it runs one of the others, whose line it often lies on.
        const fill = s.name === AUTO ? `fill="white" stroke="${colour}"` : `fill="${colour}"`;
        for (const [x, y] of pts) out.push(`<circle cx="${sx(x).toFixed(1)}" cy="${sy(y).toFixed(1)}" r="2.4" ${fill}/>`);
      }
      const ly = top + 14 + i * LEGEND_ROW;
      out.push(`<line x1="${m.left + pw + 14}" y1="${ly}" x2="${m.left + pw + 40}" y2="${ly}" stroke="${colour}" stroke-width="2"${dash}/>`);
      out.push(`<text x="${m.left + pw + 46}" y="${ly + 4}">${escapeXml(s.name)}</text>`);
    });
    out.push('</g>');
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** What an algorithm of `coll` has in common with others, for splitting a crowded chart into panels. */
function familyOf(coll: CollectiveName, name: string): string {
  if (name.startsWith(NATIVE_PREFIX)) return "the system MPI's own algorithms";
  const info = collectiveInfo(coll)?.algorithms.find((a) => a.name === name);
  if (info?.shm) return 'node shared memory';
  if (info?.remapped) return 'under a rank mapping (seed 004)';
  return 'point to point';
}

/**
 * The series as panels of at most MAX_SERIES_PER_PANEL: all in one where they fit; else one panel
 * per family (families that fit together share one), each with native and auto to compare against.
 */
function panelsOf(coll: CollectiveName, series: Series[]): Panel[] {
  if (series.length <= MAX_SERIES_PER_PANEL) return [{ series }];
  const references = series.filter((s) => s.name === NATIVE || s.name === AUTO);
  const room = MAX_SERIES_PER_PANEL - references.length;
  const families = new Map<string, Series[]>();
  for (const s of series) {
    if (s.name === NATIVE || s.name === AUTO) continue;
    const f = familyOf(coll, s.name);
    families.set(f, [...(families.get(f) ?? []), s]);
  }
  const panels: { names: string[]; series: Series[] }[] = [];
  for (const [family, members] of families) {
    for (let i = 0; i < members.length; i += room) {
      const part = members.slice(i, i + room);
      const name = members.length > room ? `${family} (${i / room + 1} of ${Math.ceil(members.length / room)})` : family;
      const last = panels.at(-1);
      if (last && last.series.length + part.length <= room && members.length <= room) {
        last.names.push(name);
        last.series.push(...part);
      } else {
        panels.push({ names: [name], series: [...part] });
      }
    }
  }
  return panels.map((p) => ({ family: p.names.join(', '), series: [...references, ...p.series] }));
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
    panels: panelsOf(
      coll,
      algorithms.map((a) => ({
        name: a,
        points: records.filter((r) => r.algorithm === a).map((r) => [r.bytes, r.median_us] as [number, number]),
      })),
    ),
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
    panels: panelsOf(
      coll,
      algorithms.map((a) => ({
        name: a,
        points: records.filter((r) => r.algorithm === a && r.speedup_vs_native !== null).map((r) => [r.bytes, r.speedup_vs_native!] as [number, number]),
      })),
    ),
  });
}
