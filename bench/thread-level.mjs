#!/usr/bin/env node
// What initializing MPICH at MPI_THREAD_MULTIPLE costs a program that never uses a nonblocking
// collective: `npm run bench:thread-level [-- options]`. Under MPICH the preload library does so
// whatever level the program asks for, so that its progress thread may call MPI
// (docs/preload.md). bench/c/thread_level_bench.c (ping-pong of 8 B, MPI_Allreduce and MPI_Bcast
// of one double; 2 ranks: latency; --np 1: the same calls on MPI_COMM_SELF in CPU time, what the
// calls themselves cost, which a loaded machine leaves alone) runs in three modes, interleaved
// launch by launch so that drift in the machine's load hits all alike:
//   single    MPICH alone, the program calls MPI_Init (single)
//   multiple  MPICH alone, the program asks for MPI_THREAD_MULTIPLE: what the raise changes
//   preload   MPI_Init under LD_PRELOAD=libtopocoll.so (MPICH raised to multiple, the program told single)
// A launch gives the median over --reps repetitions of --iterations calls; the table shows, per
// mode, the median over --runs launches, and each mode's ratio to `single` (the median of the
// per-launch ratios). Raw numbers go to --json.
//
// Options: --np 2 --runs 9 --reps 9 --iterations 20000 --json <file> (default results/thread-level-bench.json)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launcherPath, mpiWrapper } from '../scripts/mpi.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: o } = parseArgs({
  options: {
    np: { type: 'string', default: '2' },
    runs: { type: 'string', default: '9' },
    reps: { type: 'string', default: '9' },
    iterations: { type: 'string', default: '20000' },
    json: { type: 'string', default: path.join(root, 'results', 'thread-level-bench.json') },
  },
});

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const library = path.join(root, 'lib/native/mpich/libtopocoll.so');
if (!existsSync(library)) {
  console.error(`bench:thread-level: ${path.relative(root, library)} is missing; build it first (node scripts/build-native.mjs)`);
  process.exit(1);
}
const source = path.join(root, 'bench/c/thread_level_bench.c');
const binary = path.join(root, 'build-bench/mpich/thread_level_bench');
if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs) {
  mkdirSync(path.dirname(binary), { recursive: true });
  execFileSync(mpiWrapper('mpich'), ['-O2', '-o', binary, source], { stdio: 'inherit' });
}

const MODES = {
  single: { level: 'init', preload: false },
  multiple: { level: 'multiple', preload: false },
  preload: { level: 'init', preload: true },
};
const CASES = ['pingpong', 'allreduce', 'bcast'];

function launch({ level, preload }) {
  const args = ['-np', o.np, ...(preload ? ['-genv', 'LD_PRELOAD', library] : []), binary, level, o.iterations, o.reps];
  const r = spawnSync(launcherPath('mpich'), args, { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${launcherPath('mpich')} ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stderr}`);
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  return JSON.parse(line);
}

const launches = Object.fromEntries(Object.keys(MODES).map((m) => [m, []]));
for (let run = 0; run < Number(o.runs); run++) {
  for (const [mode, spec] of Object.entries(MODES)) launches[mode].push(launch(spec));
  process.stderr.write(`run ${run + 1}/${o.runs}\r`);
}

// Per launch: the median over its repetitions.
const perLaunch = (mode, c) => launches[mode].map((l) => median(l[c]));
const clock = launches.single[0].clock === 'cpu' ? "ns of the thread's CPU time" : 'µs';
const unit = clock === 'µs' ? 1 : 1000;
console.log(`MPICH, ${o.np} rank(s), median of ${o.runs} launches (each the median of ${o.reps} x ${o.iterations} calls), ${clock} per call`);
console.log(`${'mode'.padEnd(10)}${CASES.map((c) => c.padStart(22)).join('')}`);
const table = {};
for (const mode of Object.keys(MODES)) {
  const cells = CASES.map((c) => {
    const us = median(perLaunch(mode, c));
    const ratio = median(perLaunch(mode, c).map((v, i) => v / perLaunch('single', c)[i]));
    table[`${mode} ${c}`] = { us, ratioToSingle: ratio };
    return `${(us * unit).toPrecision(3)} (x${ratio.toFixed(2)})`.padStart(22);
  });
  console.log(`${mode.padEnd(10)}${cells.join('')}`);
}
console.log(`provided as the program sees it: ${Object.keys(MODES).map((m) => `${m} ${launches[m][0].provided}`).join(', ')}`);
mkdirSync(path.dirname(o.json), { recursive: true });
writeFileSync(o.json, JSON.stringify({ np: Number(o.np), runs: Number(o.runs), reps: Number(o.reps), iterations: Number(o.iterations), table, launches }, null, 2));
console.log(`raw numbers: ${path.relative(root, o.json)}`);
