#!/usr/bin/env node
// What the Node binding costs per call: `npm run bench:binding [-- options]`.
//
// Runs the same timing loops (barrier; bcast and allgather of 8 B and of 1 MiB per rank) in
//   node      this package (dist/ + the addon, collectives through the topocoll engine)
//   c+engine  bench/c/binding_bench.c under LD_PRELOAD=libtopocoll.so (the same engine, from C)
//   c         the same C program on the system MPI alone
//   mpi4py    the same loops in Python (when /usr/bin/python3 has mpi4py built for this MPI)
// and reports node against c+engine, and mpi4py against c: the difference per call at 8 B (µs)
// and the ratio at 1 MiB. Each program is launched --runs times (interleaved, so that drift in
// the machine's load hits all alike); a launch gives the median over --reps repetitions of
// --small (8 B) or --large (1 MiB) calls; the tables show the median over launches and the
// least-disturbed launch. Raw numbers go to --json.
//
// Options: --mpi openmpi|mpich (default openmpi) --np 2 --runs 7 --reps 11 --small 4000 --large 40
//          --large-bytes 1048576 --json <file> (default results/binding-bench.json)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CASES = [
  ['barrier', 0],
  ['bcast', 8],
  ['allgather', 8],
  ['bcast', 'large'],
  ['allgather', 'large'],
];

const { values: o } = parseArgs({
  options: {
    worker: { type: 'boolean', default: false },
    mpi: { type: 'string', default: 'openmpi' },
    np: { type: 'string', default: '2' },
    runs: { type: 'string', default: '7' },
    reps: { type: 'string', default: '11' },
    small: { type: 'string', default: '4000' },
    large: { type: 'string', default: '40' },
    'large-bytes': { type: 'string', default: String(1 << 20) },
    json: { type: 'string', default: path.join(root, 'results', 'binding-bench.json') },
  },
});
const small = Number(o.small);
const large = Number(o.large);
const reps = Number(o.reps);
const largeBytes = Number(o['large-bytes']);

// --- the Node worker: the C program's loops, line for line ---
async function nodeWorker() {
  const { world, wtime } = createRequire(import.meta.url)(path.join(root, 'dist', 'index.js'));
  const results = [];
  for (const [op, b] of CASES) {
    const bytes = b === 'large' ? largeBytes : b;
    const iterations = b === 'large' ? large : small;
    const send = new Uint8Array(bytes).fill(world.rank + 1);
    const recv = new Uint8Array(bytes * world.size);
    const us = [];
    const warmup = Math.max(10, Math.floor(iterations / 10));
    for (let r = -1; r < reps; r++) {
      const n = r < 0 ? warmup : iterations;
      world.barrier();
      const t0 = wtime();
      if (op === 'barrier') for (let i = 0; i < n; i++) world.barrier();
      else if (op === 'bcast') for (let i = 0; i < n; i++) world.bcast(send, 0);
      else for (let i = 0; i < n; i++) world.allgather(send, recv);
      if (r >= 0) us.push(((wtime() - t0) / n) * 1e6);
    }
    results.push({ op, bytes, us });
  }
  if (world.rank === 0) console.log(JSON.stringify({ program: 'node', results }));
}

// The same loops in mpi4py (buffers: bytearrays, MPI.BYTE).
const MPI4PY = `
import json, sys
from mpi4py import MPI
small, large, reps, large_bytes = map(int, sys.argv[1:5])
comm = MPI.COMM_WORLD
results = []
for op, b in [("barrier", 0), ("bcast", 8), ("allgather", 8), ("bcast", large_bytes), ("allgather", large_bytes)]:
    iterations = large if b == large_bytes and b != 8 else small
    send = bytearray([comm.rank + 1]) * b
    recv = bytearray(b * comm.size)
    sbuf, rbuf = [send, MPI.BYTE], [recv, MPI.BYTE]
    us = []
    warmup = max(10, iterations // 10)
    for r in range(-1, reps):
        n = warmup if r < 0 else iterations
        comm.Barrier()
        t0 = MPI.Wtime()
        if op == "barrier":
            for i in range(n): comm.Barrier()
        elif op == "bcast":
            for i in range(n): comm.Bcast(sbuf, 0)
        else:
            for i in range(n): comm.Allgather(sbuf, rbuf)
        if r >= 0: us.append((MPI.Wtime() - t0) / n * 1e6)
    results.append({"op": op, "bytes": b, "us": us})
if comm.rank == 0: print(json.dumps({"program": "mpi4py", "results": results}))
`;

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function driver() {
  const { FLAVOURS, mpiWrapper } = await import(path.join(root, 'scripts', 'mpi.mjs'));
  const { launchCommand } = await import(path.join(root, 'scripts', 'launcher.mjs'));
  const flavour = o.mpi;
  if (!FLAVOURS[flavour]) throw new Error(`--mpi ${flavour} is not valid; valid choices: ${Object.keys(FLAVOURS).join(', ')}`);
  const preload = path.join(root, 'lib', 'native', flavour, 'libtopocoll.so');
  for (const need of [preload, path.join(root, 'dist', 'index.js')]) {
    if (!existsSync(need)) throw new Error(`bench:binding: ${need} is missing; run \`npm run build\` first`);
  }
  // The C program, rebuilt when its source is newer.
  const source = path.join(root, 'bench', 'c', 'binding_bench.c');
  // Its own folder: build/ holds the CMake builds.
  const binary = path.join(root, 'build-bench', flavour, 'binding_bench');
  if (!existsSync(binary) || statSync(binary).mtimeMs < statSync(source).mtimeMs) {
    mkdirSync(path.dirname(binary), { recursive: true });
    execFileSync(mpiWrapper(flavour), ['-O2', '-o', binary, source], { stdio: 'inherit' });
  }
  const args = [String(small), String(large), String(reps), String(largeBytes)];
  const preloadArgs = flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${preload}`] : ['-genv', 'LD_PRELOAD', preload];
  const programs = {
    node: [process.execPath, fileURLToPath(import.meta.url), '--worker', '--small', args[0], '--large', args[1], '--reps', args[2], '--large-bytes', args[3]],
    'c+engine': [...preloadArgs, binary, ...args],
    c: [binary, ...args],
  };
  const python = '/usr/bin/python3';
  const mpi4pyLibrary = existsSync(python)
    ? spawnSync(python, ['-c', 'from mpi4py import MPI; print(MPI.Get_library_version())'], { encoding: 'utf8', env: { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' } })
    : null;
  const mpi4pyMatches = mpi4pyLibrary?.status === 0 && (flavour === 'openmpi' ? /Open MPI/ : /MPICH/).test(mpi4pyLibrary.stdout);
  if (mpi4pyMatches) programs.mpi4py = [python, '-c', MPI4PY, ...args];
  else console.log(`(mpi4py for ${FLAVOURS[flavour].title} not found under ${python}: its columns are left out; Debian: apt-get install python3-mpi4py)`);

  const perRun = Object.fromEntries(Object.keys(programs).map((p) => [p, []]));
  for (let run = 0; run < Number(o.runs); run++) {
    for (const [name, argv] of Object.entries(programs)) {
      const [cmd, cmdArgs, env] = launchCommand(flavour, ['-np', o.np, ...argv], { testMachine: true });
      const r = spawnSync(cmd, cmdArgs, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 300_000 });
      const line = r.stdout?.split('\n').find((l) => l.startsWith('{"program"'));
      if (r.status !== 0 || !line) throw new Error(`bench:binding: ${name} failed (exit ${r.status})\n${r.stdout}\n${r.stderr}`);
      perRun[name].push(JSON.parse(line).results);
      process.stderr.write(`run ${run + 1}/${o.runs}: ${name} done\n`);
    }
  }
  // Per launch: the median over repetitions. Across launches: the median (the headline), and the
  // least-disturbed launch (the minimum), which on a shared machine shows the cost without the noise.
  const across = (pick) =>
    CASES.map(([op, b], i) => {
      const row = { op, bytes: b === 'large' ? largeBytes : b };
      for (const name of Object.keys(programs)) row[name] = pick(perRun[name].map((results) => median(results[i].us)));
      return row;
    });
  const summary = across(median);
  const best = across((xs) => Math.min(...xs));

  const version = createRequire(import.meta.url)(path.join(root, 'dist', 'index.js')).libraryVersion().split(/[,\n]/)[0];
  console.log(`binding overhead, ${o.np} ranks, ${version}; per launch the median of ${reps} repetitions of ${small} calls (8 B)`);
  console.log(`or ${large} calls (${largeBytes} B); µs per call; allgather bytes are per rank`);
  const head = ['op', 'bytes', 'c+engine', 'node', 'node−c', 'node/c'];
  if (programs.mpi4py) head.push('c', 'mpi4py', 'mpi4py−c', 'mpi4py/c');
  const table = (title, rowsIn) => {
    console.log(`\n${title}`);
    const rows = rowsIn.map((r) => {
      const cells = [r.op, String(r.bytes), r['c+engine'].toFixed(3), r.node.toFixed(3), (r.node - r['c+engine']).toFixed(3), (r.node / r['c+engine']).toFixed(3)];
      if (programs.mpi4py) cells.push(r.c.toFixed(3), r.mpi4py.toFixed(3), (r.mpi4py - r.c).toFixed(3), (r.mpi4py / r.c).toFixed(3));
      return cells;
    });
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const cells of [head, ...rows]) console.log(cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
  };
  table(`median over ${o.runs} interleaved launches`, summary);
  table(`least-disturbed launch (minimum over the ${o.runs} launches)`, best);
  mkdirSync(path.dirname(o.json), { recursive: true });
  writeFileSync(o.json, JSON.stringify({ flavour, np: Number(o.np), runs: Number(o.runs), reps, small, large, library: version, summary, best, perRun }, null, 1));
  console.log(`raw numbers: ${path.relative(process.cwd(), o.json)}`);
}

if (o.worker) await nodeWorker();
else await driver();
