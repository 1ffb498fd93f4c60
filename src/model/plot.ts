// A log-log line plot as a standalone SVG: one series per algorithm, for `topocoll simulate
// --sweep` (and anything else that plots time over size). No dependencies: the file opens in
// any browser.

export interface PlotSeries {
  readonly name: string;
  readonly points: readonly { x: number; y: number }[];
}

export interface PlotOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly formatX?: (x: number) => string;
  readonly formatY?: (y: number) => string;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Powers of ten (and of two for x when the span is small) between lo and hi, for ticks. */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    const v = 10 ** e;
    if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(v);
  }
  if (ticks.length >= 2) return ticks;
  const out: number[] = [];
  for (let e = Math.floor(Math.log2(lo)); e <= Math.ceil(Math.log2(hi)); e++) {
    const v = 2 ** e;
    if (v >= lo * 0.999 && v <= hi * 1.001) out.push(v);
  }
  return out;
}

export function logLogPlotSvg(series: readonly PlotSeries[], options: PlotOptions): string {
  const width = 760;
  const height = 460;
  const left = 80;
  const right = 200;
  const top = 40;
  const bottom = 60;
  const pts = series.flatMap((s) => s.points).filter((p) => p.x > 0 && p.y > 0);
  const xs = pts.map((p) => p.x);
  const ys = pts.map((p) => p.y);
  const xLo = Math.min(...xs, Infinity);
  const xHi = Math.max(...xs, -Infinity);
  const yLo = Math.min(...ys, Infinity);
  const yHi = Math.max(...ys, -Infinity);
  const fx = options.formatX ?? String;
  const fy = options.formatY ?? ((y: number) => y.toPrecision(3));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${left}" y="24" font-size="15">${escapeXml(options.title)}</text>`,
  ];
  if (pts.length === 0) {
    out.push(`<text x="${left}" y="${top + 40}">no data</text>`, '</svg>');
    return out.join('\n');
  }
  // Pad a degenerate range so a single point still lands inside the frame.
  const lx0 = Math.log(xLo === xHi ? xLo / 2 : xLo);
  const lx1 = Math.log(xLo === xHi ? xHi * 2 : xHi);
  const ly0 = Math.log(yLo === yHi ? yLo / 2 : yLo);
  const ly1 = Math.log(yLo === yHi ? yHi * 2 : yHi);
  const px = (x: number) => left + ((Math.log(x) - lx0) / (lx1 - lx0)) * (width - left - right);
  const py = (y: number) => height - bottom - ((Math.log(y) - ly0) / (ly1 - ly0)) * (height - top - bottom);

  out.push(`<rect x="${left}" y="${top}" width="${width - left - right}" height="${height - top - bottom}" fill="none" stroke="#444"/>`);
  for (const t of logTicks(Math.exp(lx0), Math.exp(lx1))) {
    const x = px(t).toFixed(1);
    out.push(`<line x1="${x}" y1="${top}" x2="${x}" y2="${height - bottom}" stroke="#ddd"/>`);
    out.push(`<text x="${x}" y="${height - bottom + 16}" text-anchor="middle">${escapeXml(fx(t))}</text>`);
  }
  for (const t of logTicks(Math.exp(ly0), Math.exp(ly1))) {
    const y = py(t).toFixed(1);
    out.push(`<line x1="${left}" y1="${y}" x2="${width - right}" y2="${y}" stroke="#ddd"/>`);
    out.push(`<text x="${left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(fy(t))}</text>`);
  }
  out.push(`<text x="${(left + width - right) / 2}" y="${height - 18}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`);
  out.push(`<text transform="translate(18 ${(top + height - bottom) / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`);

  series.forEach((s, i) => {
    const color = COLORS[i % COLORS.length];
    const points = s.points.filter((p) => p.x > 0 && p.y > 0);
    if (points.length > 1) {
      const d = points.map((p, k) => `${k === 0 ? 'M' : 'L'}${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ');
      out.push(`<path d="${d}" fill="none" stroke="${color}" stroke-width="2"/>`);
    }
    for (const p of points) out.push(`<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${color}"/>`);
    const ly = top + 14 + 18 * i;
    out.push(`<line x1="${width - right + 14}" y1="${ly}" x2="${width - right + 34}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    out.push(`<text x="${width - right + 40}" y="${ly}" dominant-baseline="middle">${escapeXml(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}
