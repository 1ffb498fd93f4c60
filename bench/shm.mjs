#!/usr/bin/env node
// The multi-core collectives of seed 001 against their point-to-point counterparts and the
// system MPI: `npm run bench:shm [-- options]`.
//
//   barrier    shm_hierarchical      vs dissemination, recursive_doubling   vs native
//   bcast      shm_numa, hierarchical vs binomial, scatter_allgather       vs native
//   allgather  hierarchical          vs ring, recursive_doubling, bruck    vs native
//   alltoall   tiled                 vs pairwise, isend_irecv              vs native
//
// One mpirun job per launch; inside it, for every (collective, size) every algorithm runs in
// turn (interleaved, so that drift in the machine's load hits all alike) through the engine's
// C++ timing loop (benchCollective: the slowest rank's mean per call, OSU style), after one
// checked call whose bytes are verified. A launch gives the median of --reps repetitions; the
// table gives the median over --runs launches, and each shm algorithm's ratio to the best of
// its point-to-point counterparts and to native (< 1: the shm algorithm is faster).
//
// Options: --mpi openmpi|mpich (default openmpi) --np 2 --runs 3 --reps 7 --target-us 20000
//          --vnodes <TOPOCOLL_VIRTUAL_NODES> (e.g. block:2, to time the multi-node paths)
//          --only barrier,bcast,... --json <file> (default results/shm-bench.json)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** [collective, sizes (bytes: per rank's block for allgather/alltoall, the message for bcast), shm algorithms, counterparts]. */
const CASES = [
  ['barrier', [0], ['shm_hierarchical'], ['dissemination', 'recursive_doubling']],
  ['bcast', [8, 1024, 16384, 131072, 1048576, 4194304], ['shm_numa', 'hierarchical'], ['binomial', 'scatter_allgather']],
  ['allgather', [8, 1024, 65536, 1048576], ['hierarchical'], ['ring', 'recursive_doubling', 'bruck']],
  ['alltoall', [1024, 65536, 1048576], ['tiled'], ['pairwise', 'isend_irecv']],
];

const { values: o } = parseArgs({
  options: {
    worker: { type: 'boolean', default: false },
    mpi: { type: 'string', default: 'openmpi' },
    np: { type: 'string', default: '2' },
    runs: { type: 'string', default: '3' },
    reps: { type: 'string', default: '7' },
    'target-us': { type: 'string', default: '20000' },
    vnodes: { type: 'string', default: '' },
    only: { type: 'string', default: '' },
    json: { type: 'string', default: path.join(root, 'results', 'shm-bench.json') },
  },
});
const only = o.only ? o.only.split(',') : null;
const cases = CASES.filter(([coll]) => !only || only.includes(coll));

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// --- one launch: every case, every algorithm, through the engine's timing loop ---
function worker() {
  const require = createRequire(import.meta.url);
  const { world } = require(path.join(root, 'dist', 'index.js'));
  const { addon } = require(path.join(root, 'dist', 'mpi', 'native.js'));
  const native = addon();
  const results = [];
  for (const [coll, sizes, shm, p2p] of cases) {
    for (const bytes of sizes) {
      for (const algorithm of [...shm, ...p2p, 'native']) {
        native.setAlgorithm(coll, algorithm);
        const r = native.benchCollective(world.handle, coll, bytes, {
          repetitions: Number(o.reps),
          targetUs: Number(o['target-us']),
          check: true,
          rotateBytes: 0,
        });
        const fallback = native.takeFallback(coll);
        results.push({ coll, bytes, algorithm, us: median(r.timesUs), errors: r.errors, fallback });
      }
      native.setAlgorithm(coll, null);
    }
  }
  if (world.rank === 0) console.log(JSON.stringify(results));
}

async function driver() {
  const { FLAVOURS } = await import(path.join(root, 'scripts', 'mpi.mjs'));
  const { launchCommand } = await import(path.join(root, 'scripts', 'launcher.mjs'));
  const flavour = o.mpi;
  if (!FLAVOURS[flavour]) throw new Error(`--mpi ${flavour} is not valid; valid choices: ${Object.keys(FLAVOURS).join(', ')}`);
  for (const need of [path.join(root, 'dist', 'index.js'), path.join(root, 'lib', 'native', flavour, 'topocoll_native.node')]) {
    if (!existsSync(need)) throw new Error(`bench:shm: ${need} is missing; run \`npm run build\` first`);
  }
  const { formatBytes } = createRequire(import.meta.url)(path.join(root, 'dist', 'bench', 'stats.js'));
  const np = Number(o.np);
  const forward = ['--reps', o.reps, '--target-us', o['target-us'], ...(o.only ? ['--only', o.only] : [])];
  const runs = [];
  for (let run = 0; run < Number(o.runs); run++) {
    const [cmd, args, env] = launchCommand(flavour, ['-np', String(np), process.execPath, fileURLToPath(import.meta.url), '--worker', ...forward], { testMachine: true });
    const r = spawnSync(cmd, args, {
      encoding: 'utf8',
      env: { ...process.env, ...env, TOPOCOLL_FALLBACK: 'silent', ...(o.vnodes ? { TOPOCOLL_VIRTUAL_NODES: o.vnodes } : {}) },
      maxBuffer: 1 << 26,
    });
    const line = r.stdout.split('\n').find((l) => l.startsWith('['));
    if (r.status !== 0 || !line) throw new Error(`bench:shm: launch ${run + 1} failed (exit ${r.status})\n${r.stdout}\n${r.stderr}`);
    runs.push(JSON.parse(line));
    process.stderr.write(`launch ${run + 1}/${o.runs} done\n`);
  }

  const rows = [];
  for (const [coll, sizes, shm, p2p] of cases) {
    for (const bytes of sizes) {
      const cell = (algorithm) => {
        const hits = runs.map((rs) => rs.find((x) => x.coll === coll && x.bytes === bytes && x.algorithm === algorithm));
        return {
          us: median(hits.map((h) => h.us)),
          errors: hits.reduce((a, h) => a + h.errors, 0),
          fallback: hits.find((h) => h.fallback)?.fallback ?? null,
        };
      };
      const times = Object.fromEntries([...shm, ...p2p, 'native'].map((a) => [a, cell(a)]));
      const bestP2p = p2p.reduce((best, a) => (times[a].us < times[best].us ? a : best), p2p[0]);
      for (const a of shm) {
        rows.push({
          coll,
          bytes,
          algorithm: a,
          us: times[a].us,
          bestP2p,
          bestP2pUs: times[bestP2p].us,
          nativeUs: times.native.us,
          vsP2p: times[a].us / times[bestP2p].us,
          vsNative: times[a].us / times.native.us,
          errors: Object.values(times).reduce((s, t) => s + t.errors, 0),
          fallback: Object.entries(times).filter(([, t]) => t.fallback).map(([n, t]) => `${n}: ${t.fallback}`),
          all: Object.fromEntries(Object.entries(times).map(([n, t]) => [n, t.us])),
        });
      }
    }
  }

  const title = `${FLAVOURS[flavour].title}, ${np} ranks${o.vnodes ? `, TOPOCOLL_VIRTUAL_NODES=${o.vnodes}` : ''}; medians over ${o.runs} launches x ${o.reps} repetitions (µs per call, slowest rank)`;
  console.log(title);
  const header = ['collective', 'size', 'algorithm', 'µs', 'best p2p', 'µs', 'native µs', 'vs p2p', 'vs native'];
  const table = rows.map((r) => [
    r.coll,
    formatBytes(r.bytes),
    r.algorithm,
    r.us.toFixed(2),
    r.bestP2p,
    r.bestP2pUs.toFixed(2),
    r.nativeUs.toFixed(2),
    r.vsP2p.toFixed(2),
    r.vsNative.toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...table.map((t) => t[i].length)));
  for (const line of [header, ...table]) console.log(line.map((c, i) => (i < 3 || i === 4 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
  const wrong = rows.filter((r) => r.errors > 0);
  if (wrong.length) console.log(`WRONG BYTES in: ${wrong.map((r) => `${r.coll} ${r.bytes}`).join(', ')}`);
  const fell = rows.filter((r) => r.fallback.length);
  for (const r of fell) console.log(`fallback (${r.coll} ${formatBytes(r.bytes)}): ${r.fallback.join('; ')}`);
  mkdirSync(path.dirname(o.json), { recursive: true });
  writeFileSync(o.json, JSON.stringify({ title, flavour, np, vnodes: o.vnodes || null, runs: Number(o.runs), reps: Number(o.reps), rows }, null, 2));
  console.log(`(written to ${path.relative(process.cwd(), o.json)})`);
  return wrong.length ? 1 : 0;
}

if (o.worker) worker();
else process.exit(await driver());
