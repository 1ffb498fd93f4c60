// The SVG plots of `topocoll bench` (src/bench/svg.ts) on synthetic reports: one colour per
// algorithm in every plot and report, legends inside the picture whatever the names' length, at
// most 8 lines per panel (a crowded chart split by family), and auto drawn unlike native.
import { describe, expect, it } from 'vitest';
import type { BenchRecord, BenchReport } from '../../src/bench/sweep';
import { algorithmColour, latencyChart, speedupChart } from '../../src/bench/svg';
import { algorithmNames, type CollectiveName } from '../../src/select/registry';

function cell(collective: CollectiveName, algorithm: string, bytes: number, median: number): BenchRecord {
  return {
    collective, algorithm, bytes, basis: collective === 'bcast' ? 'message' : 'block', ranks: 4, iterations: 10, repetitions: 1,
    times_us: [median], min_us: median, median_us: median, max_us: median, relative_spread: 0, speedup_vs_native: 10 / median, check: 'off', errors: 0,
  };
}

/** A report of `algorithms` of `coll` at 3 sizes, each algorithm's times its own. */
function report(coll: CollectiveName, algorithms: string[]): BenchReport {
  const records = algorithms.flatMap((a, i) => [8, 1024, 65536].map((b) => cell(coll, a, b, (i + 1) * Math.log2(b))));
  return {
    format: 'topocoll-bench', version: 1, created: '2026-11-26T06:00:00Z', generator: 'topocoll 0.1.0',
    machine: { hostname: 'box', cpuModel: 'cpu', cpus: 2, memoryBytes: 1, os: 'linux', node: 'v20', loadAverage: 0 },
    mpi: { flavour: 'openmpi', library: 'Open MPI v4.1.4' }, job: { ranks: 4, nodes: 1, ranksPerNode: [4] },
    options: { collectives: [coll], algorithms: [], sizes: [8, 1024, 65536], repetitions: 1, targetUs: 1000, rotateBytes: 0, check: false, root: 0 },
    records, skipped: [],
  };
}

/** Per legend entry: the name, its swatch's colour and dash, and the text's position. */
function legend(svg: string): { name: string; colour: string; dash: string | null; x: number; y: number }[] {
  return [...svg.matchAll(/<line x1="[\d.]+" y1="[\d.]+" x2="[\d.]+" y2="[\d.]+" stroke="([^"]+)" stroke-width="2"( stroke-dasharray="([^"]+)")?\/>\n<text x="([\d.]+)" y="([\d.]+)">([^<]+)<\/text>/g)].map(
    (m) => ({ colour: m[1], dash: m[3] ?? null, x: Number(m[4]), y: Number(m[5]), name: m[6] }),
  );
}

function viewBox(svg: string): { width: number; height: number } {
  const m = svg.match(/viewBox="0 0 ([\d.]+) ([\d.]+)"/);
  expect(m, 'the SVG has a viewBox').not.toBeNull();
  return { width: Number(m![1]), height: Number(m![2]) };
}

const panels = (svg: string) => [...svg.matchAll(/<g class="panel"( data-family="([^"]+)")?>/g)].map((m) => m[2] ?? '');

describe('bench plots', () => {
  it('gives an algorithm the same colour in every report, whatever else the report holds and in what order', () => {
    const a = latencyChart(report('allgather', ['native', 'auto', 'ring', 'bruck']), 'allgather')!;
    const b = latencyChart(report('allgather', ['bruck', 'neighbor_exchange', 'native', 'recursive_doubling', 'ring']), 'allgather')!;
    const colourIn = (svg: string, name: string) => legend(svg).find((e) => e.name === name)?.colour;
    for (const name of ['ring', 'bruck', 'native']) {
      expect(colourIn(a, name), name).toBeDefined();
      expect(colourIn(a, name), name).toBe(colourIn(b, name));
    }
    expect(colourIn(a, 'ring')).toBe(algorithmColour('ring'));
    // The same name in another collective's plot, and in the speedup chart.
    expect(legend(latencyChart(report('alltoall', ['native', 'ring']), 'alltoall')!).find((e) => e.name === 'ring')?.colour).toBe(algorithmColour('ring'));
    expect(legend(speedupChart(report('allgather', ['native', 'bruck', 'ring']), 'allgather')!).find((e) => e.name === 'ring')?.colour).toBe(algorithmColour('ring'));
  });

  it('gives every algorithm of a collective its own colour, auto and native included', () => {
    for (const coll of ['allgather', 'bcast', 'barrier', 'alltoall', 'allreduce'] as const) {
      const names = ['native', 'auto', ...algorithmNames(coll)];
      expect(new Set(names.map(algorithmColour)).size, coll).toBe(names.length);
    }
  });

  it('draws auto unlike native: another colour, dashed against solid, in the lines and the legend', () => {
    const svg = latencyChart(report('bcast', ['native', 'auto', 'binomial']), 'bcast')!;
    const entries = legend(svg);
    const native = entries.find((e) => e.name === 'native')!;
    const auto = entries.find((e) => e.name === 'auto')!;
    expect(native.dash).toBeNull();
    expect(auto.dash).not.toBeNull();
    expect(auto.colour).not.toBe(native.colour);
    expect(svg).toMatch(new RegExp(`<path d="[^"]+" fill="none" stroke="${auto.colour}" stroke-width="[\\d.]+" stroke-dasharray=`));
    expect(svg).toMatch(new RegExp(`<path d="[^"]+" fill="none" stroke="${native.colour}" stroke-width="[\\d.]+"/>`));
  });

  it('keeps every legend inside the picture, however long the names', () => {
    const long = 'native:recursive_doubling_reorder_with_a_very_long_name_indeed';
    for (const names of [['native', 'ring'], ['native', 'auto', 'recursive_doubling_reorder', long]]) {
      const svg = latencyChart(report('allgather', names), 'allgather')!;
      const box = viewBox(svg);
      const entries = legend(svg);
      expect(entries.map((e) => e.name).sort()).toEqual([...names].sort());
      // 7.2 px a character is wider than sans-serif's at 12 px (about 6.7 for "w"-free lowercase).
      for (const e of entries) {
        expect(e.x + e.name.length * 7.2, e.name).toBeLessThanOrEqual(box.width);
        expect(e.y, e.name).toBeLessThanOrEqual(box.height);
      }
      for (const m of svg.matchAll(/<rect class="legend" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/g)) {
        expect(Number(m[1]) + Number(m[3])).toBeLessThanOrEqual(box.width);
        expect(Number(m[2]) + Number(m[4])).toBeLessThanOrEqual(box.height);
      }
    }
  });

  it('splits a chart of more than 8 lines into panels by family, each with native and auto and at most 8 lines', () => {
    const all = ['native', 'auto', ...algorithmNames('allgather')];
    expect(all.length).toBeGreaterThan(8);
    const svg = latencyChart(report('allgather', all), 'allgather')!;
    const families = panels(svg);
    expect(families.length).toBe(2);
    expect(families[0]).toBe('point to point');
    expect(families[1]).toBe('under a rank mapping (seed 004), node shared memory');
    const groups = svg.split('<g class="panel"').slice(1).map((g) => legend(g).map((e) => e.name));
    for (const g of groups) {
      expect(g.length).toBeLessThanOrEqual(8);
      expect(g.slice(0, 2)).toEqual(['native', 'auto']);
    }
    // Every algorithm is drawn once, and keeps its colour in whichever panel it lands.
    expect(groups.flat().filter((n) => n !== 'native' && n !== 'auto').sort()).toEqual(algorithmNames('allgather').sort());
    for (const e of legend(svg)) expect(e.colour, e.name).toBe(algorithmColour(e.name));
    // Up to 8 lines: one panel.
    expect(panels(latencyChart(report('allgather', all.slice(0, 8)), 'allgather')!)).toHaveLength(1);
  });

  it("puts the system MPI's own algorithms (native:<name>) in a panel of their own, dotted, when the chart is crowded", () => {
    const names = ['native', 'auto', 'ring', 'bruck', 'recursive_doubling', 'native:ring', 'native:bruck', 'native:linear', 'native:neighbor'];
    const svg = latencyChart(report('allgather', names), 'allgather')!;
    expect(panels(svg)).toEqual(['point to point', "the system MPI's own algorithms"]);
    const ring = legend(svg).find((e) => e.name === 'native:ring')!;
    expect(ring.dash).toBe('2 3');
    expect(ring.colour).toBe(algorithmColour('ring'));
  });
});
