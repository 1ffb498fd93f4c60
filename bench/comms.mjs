#!/usr/bin/env node
// Communicator creation cost: `npm run bench:comms [-- options]`. test/c/comm_churn.c creates
// a communicator (MPI_Comm_dup, MPI_Comm_split), runs one barrier, bcast and allgather on it
// and frees it, N times; launched under the preload library and without it, alternately in
// one run (so that drift in the machine's load hits both alike), through `topocoll mpirun`'s
// launcher. Prints per mode the median seconds over --runs launches, the ratio preload /
// system MPI, and what the preloaded job's rank 0 saw: VmRSS, the topocoll names in /dev/shm
// and the segments it maps, before the loop, at its middle and after it (all should stay flat).
//
// Options: --mpi openmpi|mpich (default openmpi) --np 2 --iterations 10000 --runs 3
//          --modes dup,split --bytes 4096 --json <file> (default results/comms-bench.json)
// TOPOCOLL_* variables of this environment reach the preloaded ranks (e.g. TOPOCOLL_BARRIER_ALGORITHM).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { buildPrograms } from '../test/c/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { planMpirun } = createRequire(import.meta.url)(path.join(root, 'dist/cli/mpirun.js'));

const { values: o } = parseArgs({
  options: {
    mpi: { type: 'string', default: 'openmpi' },
    np: { type: 'string', default: '2' },
    iterations: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '3' },
    modes: { type: 'string', default: 'dup,split' },
    bytes: { type: 'string', default: '4096' },
    json: { type: 'string', default: path.join(root, 'results', 'comms-bench.json') },
  },
});

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const LINE =
  /comm_churn: ok on \d+ ranks iterations \d+ mode \S+ seconds (\S+) rss_kib (\d+) (\d+) (\d+) shm_entries (\d+) (\d+) (\d+) shm_mapped (\d+) (\d+) (\d+)/;

async function launch(program, mode, preload) {
  const plan = await planMpirun(['--mpi', o.mpi, '--test-machine', preload ? '--preload' : '--no-preload', '-np', o.np, '--', program, o.iterations, mode, o.bytes]);
  const r = spawnSync(plan.command, plan.args, { cwd: root, encoding: 'utf8', env: { ...process.env, ...plan.env }, timeout: 3600_000 });
  const m = r.stdout?.match(LINE);
  if (r.status !== 0 || !m) throw new Error(`comm_churn (${preload ? 'preload' : 'system MPI'}, ${mode}) failed:\n${r.stdout}\n${r.stderr}`);
  const n = m.slice(1).map(Number);
  return { seconds: n[0], rss: n.slice(1, 4), entries: n.slice(4, 7), mapped: n.slice(7, 10) };
}

const program = path.join(await buildPrograms(o.mpi), 'comm_churn');
const results = [];
console.log(`comm_churn: ${o.iterations} x (create, barrier + bcast + allgather of ${o.bytes} B, free), ${o.np} ranks, ${o.mpi}, ${o.runs} launches each`);
console.log('mode   system MPI s  preload s  ratio   preload rank 0: VmRSS KiB (before/middle/after), /dev/shm names, segments mapped');
for (const mode of o.modes.split(',')) {
  const native = [];
  const preload = [];
  for (let i = 0; i < Number(o.runs); i++) {
    native.push(await launch(program, mode, false));
    preload.push(await launch(program, mode, true));
  }
  const a = median(native.map((r) => r.seconds));
  const b = median(preload.map((r) => r.seconds));
  const last = preload[preload.length - 1];
  results.push({ mode, native, preload, nativeMedian: a, preloadMedian: b, ratio: b / a });
  console.log(
    `${mode.padEnd(6)} ${a.toFixed(4).padStart(11)}  ${b.toFixed(4).padStart(9)}  ${(b / a).toFixed(2).padStart(5)}   ` +
      `${last.rss.join('/')}, ${last.entries.join('/')}, ${last.mapped.join('/')}`,
  );
}
mkdirSync(path.dirname(o.json), { recursive: true });
writeFileSync(o.json, JSON.stringify({ options: o, created: new Date().toISOString(), results }, null, 2));
console.log(`wrote ${path.relative(root, o.json)}`);
