#!/usr/bin/env node
// MPI_Barrier as an OSU user measures it, with and without the preload library:
// `npm run bench:barrier [-- options]`. bench/c/osu_barrier.c times the barrier as osu_barrier
// does (warm-up, then back-to-back calls, the mean per call averaged over the ranks); each launch
// is one line of it. Modes, interleaved launch by launch so that drift in the machine's load
// hits all alike:
//   mpi                the system MPI, launched as an OSU user does (the launcher's defaults)
//   topocoll           the same under LD_PRELOAD=libtopocoll.so: the default rules choose
//   <algorithm>        the same with TOPOCOLL_BARRIER_ALGORITHM=<algorithm> (--algorithms)
//   mpi/bind-none      Open MPI with --bind-to none (as `topocoll bench --np N` launches), and
//   topocoll/bind-none the same under the preload library
//   mpi/bench-launch   the system MPI launched as the test suites launch (and `topocoll bench
//   topocoll/bench-launch   --test-machine` did until 2026-11-26): Open MPI with --bind-to none and
//                      mpi_yield_when_idle 1 (MPICH: nothing added, so these modes are left out)
//   bench:<algorithm>  with --with-bench: `topocoll bench --np N --collectives barrier` (Node ranks,
//                      the C++ timing loop of native/addon/bench.cc) in the same alternation, per
//                      algorithm its median; Open MPI also bench:<algorithm>/yield, the same with
//                      mpi_yield_when_idle=1, as `topocoll bench --test-machine` launched until 2026-11-26
// The table shows, per mode, the median over --runs launches of the OSU average, and its ratio
// to `mpi` (the median of the per-launch ratios: < 1 is faster than the system MPI).
//
// Options: --mpi openmpi|mpich (default openmpi) --np 2 --runs 7 --iterations 1000 --skip 200
//          --algorithms shm_hierarchical,dissemination,native --with-bench
//          --json <file> (default results/barrier-bench-<mpi>.json)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { FLAVOURS, launcherPath, mpiWrapper } from '../scripts/mpi.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: o } = parseArgs({
  options: {
    mpi: { type: 'string', default: 'openmpi' },
    np: { type: 'string', default: '2' },
    runs: { type: 'string', default: '7' },
    iterations: { type: 'string', default: '1000' },
    skip: { type: 'string', default: '200' },
    algorithms: { type: 'string', default: 'shm_hierarchical,dissemination,native' },
    'with-bench': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const flavour = o.mpi;
if (!FLAVOURS[flavour]) {
  console.error(`bench:barrier: --mpi ${flavour} is not valid; valid choices: ${Object.keys(FLAVOURS).join(', ')}`);
  process.exit(2);
}
const json = o.json ?? path.join(root, 'results', `barrier-bench-${flavour}.json`);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const library = path.join(root, 'lib/native', flavour, 'libtopocoll.so');
if (!existsSync(library)) {
  console.error(`bench:barrier: ${path.relative(root, library)} is missing; build it first (node scripts/build-native.mjs)`);
  process.exit(1);
}
const source = path.join(root, 'bench/c/osu_barrier.c');
const binary = path.join(root, 'build-bench', flavour, 'osu_barrier');
if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs) {
  mkdirSync(path.dirname(binary), { recursive: true });
  execFileSync(mpiWrapper(flavour), ['-O2', '-o', binary, source], { stdio: 'inherit' });
}

const ompi = flavour === 'openmpi';
const setenv = (name, value) => (ompi ? ['-x', `${name}=${value}`] : ['-genv', name, value]);
const preload = setenv('LD_PRELOAD', library);
// What the test machine's launch adds for Open MPI (scripts/launcher.mjs), bench's until 2026-11-26.
const BENCH_LAUNCH = ['--bind-to', 'none', '--mca', 'mpi_yield_when_idle', '1'];
const modes = { mpi: [], topocoll: preload };
for (const a of o.algorithms.split(',').filter(Boolean)) modes[a] = [...preload, ...setenv('TOPOCOLL_BARRIER_ALGORITHM', a)];
// Which of the two matters: binding alone.
if (ompi) {
  Object.assign(modes, {
    'mpi/bind-none': ['--bind-to', 'none'],
    'topocoll/bind-none': ['--bind-to', 'none', ...preload],
    'mpi/bench-launch': BENCH_LAUNCH,
    'topocoll/bench-launch': [...BENCH_LAUNCH, ...preload],
  });
}

const env = { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' };
function launch(args) {
  const all = [...(ompi ? ['--oversubscribe'] : []), '-np', o.np, ...args, binary, o.iterations, o.skip];
  const r = spawnSync(launcherPath(flavour), all, { encoding: 'utf8', timeout: 300_000, env });
  if (r.status !== 0) throw new Error(`${launcherPath(flavour)} ${all.join(' ')} failed (${r.status ?? r.signal}):\n${r.stderr}`);
  const values = r.stdout.split('\n').find((l) => /^\s*[\d.]+\s+[\d.]+\s+[\d.]+\s+\d+\s*$/.test(l));
  if (!values) throw new Error(`osu_barrier printed no result:\n${r.stdout}${r.stderr}`);
  return Number(values.trim().split(/\s+/)[0]);
}

// `topocoll bench` of the barrier: per algorithm, its median per call (us) in one launch.
const BENCHED = ['native', 'auto', ...o.algorithms.split(',').filter((a) => a && a !== 'native')];
function benchLaunch(yieldWhenIdle) {
  const out = path.join(mkdtempSync(path.join(tmpdir(), 'barrier-bench-')), 'report.json');
  const args = [path.join(root, 'bin/topocoll.js'), 'bench', '--np', o.np, '--mpi', flavour, '--collectives', 'barrier',
    '--algorithms', BENCHED.filter((a) => a !== 'native').join(','), '--repetitions', '5', '--json', out, '--no-svg', '--quiet'];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 300_000, env: { ...env, ...(yieldWhenIdle ? { OMPI_MCA_mpi_yield_when_idle: '1' } : {}) } });
  if (r.status !== 0) throw new Error(`topocoll ${args.slice(1).join(' ')} failed (${r.status ?? r.signal}):\n${r.stderr}`);
  const report = JSON.parse(readFileSync(out, 'utf8'));
  rmSync(path.dirname(out), { recursive: true, force: true });
  return Object.fromEntries(report.records.map((c) => [c.algorithm, c.median_us]));
}

const launches = Object.fromEntries(Object.keys(modes).map((m) => [m, []]));
const benchModes = o['with-bench'] ? (ompi ? [false, true] : [false]) : [];
const benchMode = (a, yieldWhenIdle) => `bench:${a}${yieldWhenIdle ? '/yield' : ''}`;
for (const y of benchModes) for (const a of BENCHED) launches[benchMode(a, y)] = [];
for (let run = 0; run < Number(o.runs); run++) {
  for (const [mode, args] of Object.entries(modes)) launches[mode].push(launch(args));
  for (const y of benchModes) {
    const cells = benchLaunch(y);
    for (const a of BENCHED) launches[benchMode(a, y)].push(cells[a]);
  }
  process.stderr.write(`run ${run + 1}/${o.runs}\r`);
}

const title = ompi ? 'Open MPI' : 'MPICH';
console.log(`${title}, ${o.np} ranks, MPI_Barrier as osu_barrier times it (${o.iterations} calls after ${o.skip}): median of ${o.runs} launches`);
console.log(`${'mode'.padEnd(38)}${'avg latency (us)'.padStart(18)}${'min..max (us)'.padStart(16)}${'vs mpi'.padStart(9)}`);
const table = {};
for (const mode of Object.keys(launches)) {
  const us = median(launches[mode]);
  const ratio = median(launches[mode].map((v, i) => v / launches.mpi[i]));
  table[mode] = { us, ratioToMpi: ratio, launches: launches[mode] };
  const range = `${Math.min(...launches[mode]).toFixed(2)}..${Math.max(...launches[mode]).toFixed(2)}`;
  console.log(`${mode.padEnd(38)}${us.toFixed(3).padStart(18)}${range.padStart(16)}${`x${ratio.toFixed(2)}`.padStart(9)}`);
}
mkdirSync(path.dirname(json), { recursive: true });
writeFileSync(json, JSON.stringify({ mpi: flavour, np: Number(o.np), runs: Number(o.runs), iterations: Number(o.iterations), skip: Number(o.skip), table }, null, 2));
console.log(`raw numbers: ${path.relative(root, json)}`);
