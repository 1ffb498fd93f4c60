#!/usr/bin/env node
// Loop timing against window timing (`topocoll bench --timing loop|window`, docs/benchmarks.md):
// `npm run bench:timing [-- options]`.
//
// In a loop, calls overlap where an algorithm lets them: a binomial bcast's root returns from its
// eager send at once and runs ahead, so 8 B costs less per call than one message's latency. From
// a common start (window) a call lasts until the last rank has the message. This script measures
// both, alternating launches (this VM's latencies shift between regimes from one launch to the
// next, and one launch of each could compare two regimes instead of two timings), and prints per
// cell the median over launches of each timing and their ratio. It used to be a test; a loaded
// machine reorders the two, so it is a measurement now, and its findings go to the docs.
//
// Options: --mpi openmpi|mpich (default: the first installed) --np 2 --launches 3
//          --sizes 8,65536 --json FILE (the medians and every launch's report)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { installedFlavours } from '../scripts/mpi.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: o } = parseArgs({
  options: {
    mpi: { type: 'string', default: installedFlavours()[0] },
    np: { type: 'string', default: '2' },
    launches: { type: 'string', default: '3' },
    sizes: { type: 'string', default: '8,65536' },
    json: { type: 'string' },
  },
});
const launches = Number(o.launches);
if (!(Number.isInteger(launches) && launches >= 1)) throw new Error(`bench/timing.mjs: --launches ${o.launches} must be a positive integer`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-timing-'));
const reports = { loop: [], window: [] };
for (let launch = 0; launch < launches; launch++) {
  for (const timing of ['window', 'loop']) {
    const json = path.join(tmp, `${timing}-${launch}.json`);
    const args = [path.join(root, 'bin/topocoll.js'), 'bench', '--np', o.np, '--test-machine', '--mpi', o.mpi, '--collectives', 'bcast,barrier',
      '--algorithms', 'binomial,shm_hierarchical', '--sizes', o.sizes, '--repetitions', '5', '--quiet', '--no-svg', '--timing', timing, '--json', json];
    const r = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) throw new Error(`bench/timing.mjs: topocoll bench --timing ${timing} exited ${r.status ?? r.signal}`);
    reports[timing].push(JSON.parse(readFileSync(json, 'utf8')));
    process.stderr.write(`launch ${launch + 1}/${launches}: ${timing} done\n`);
  }
}
rmSync(tmp, { recursive: true, force: true });

const cells = new Map();
for (const [timing, list] of Object.entries(reports)) {
  for (const report of list) {
    for (const r of report.records) {
      const key = `${r.collective} ${r.algorithm} ${r.bytes}`;
      if (!cells.has(key)) cells.set(key, { collective: r.collective, algorithm: r.algorithm, bytes: r.bytes, loop: [], window: [] });
      cells.get(key)[timing].push(r.median_us);
    }
  }
}
const rows = [...cells.values()].map((c) => {
  const loop = c.loop.length ? median(c.loop) : NaN;
  const window = c.window.length ? median(c.window) : NaN;
  return { ...c, loop_us: loop, window_us: window, window_over_loop: window / loop };
});
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(3) : '-');
console.log(`# ${o.mpi}, ${o.np} ranks, ${launches} alternating launches per timing: median over launches of each launch's median (us)`);
console.log('collective  algorithm         bytes     loop    window  window/loop');
for (const r of rows) {
  console.log(`${r.collective.padEnd(11)} ${r.algorithm.padEnd(16)} ${String(r.bytes).padStart(6)} ${fmt(r.loop_us).padStart(8)} ${fmt(r.window_us).padStart(9)} ${fmt(r.window_over_loop).padStart(12)}`);
}
const at = (algorithm, bytes) => rows.find((r) => r.collective === 'bcast' && r.algorithm === algorithm && r.bytes === bytes);
const b8 = at('binomial', 8);
if (b8) console.log(`binomial bcast 8 B: ${b8.window_us > b8.loop_us ? 'the window is longer than the loop, as expected (the loop lets the root run ahead)' : 'the window is NOT longer than the loop here (a loaded machine? rerun with more --launches)'}`);
if (o.json) writeFileSync(o.json, `${JSON.stringify({ mpi: o.mpi, np: Number(o.np), launches, rows, reports }, null, 1)}\n`);
