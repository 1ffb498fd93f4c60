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
// A halo table sets the MPI's own nonblocking halo exchange in C (MPI_Irecv ×2, MPI_Isend ×2,
// MPI_Waitall) against its two MPI_Sendrecv, at each of --halo-bytes, beside node's Promise.all
// against its sendrecv: where the MPI's own nonblocking form is slower, so is the binding's. Beside
// them two controls: node's sendrecv halo followed by `await Promise.all` of four Promise.resolve()
// or of four pending Promises settled at once, the cost of the await alone, with no request made
// or polled (the floor of any awaited halo).
//
// A second table, node alone, compares awaiting a request with the blocking call it stands for
// and with the same request completed by wait() (MPI_Wait, no event loop): `await
// world.iallreduce(8 B)` against `allreduce` and `iallreduce(…).wait()`, and a 1-D halo exchange
// (8 B to each neighbour of a ring) by `await Promise.all` of two irecv and two isend against two
// sendrecv, against waitAllSync of the same four requests and by waitAll, and by Promise.all while a
// receive, or an ibarrier, is awaited in the background (one that completes only once the block
// ends; it must not slow the exchanges), and the controls above (--async-blocks blocks of
// --async-calls calls each, the cases interleaved block by block). The
// difference to the wait() form is what awaiting costs; the one between wait() and the blocking
// call is the MPI's own (Open MPI runs nonblocking collectives in libnbc, blocking ones in tuned).
//
// A third table sets object mode (v8.serialize) against mpi4py's pickle path, in the same launches:
// a ping-pong round trip of {a: 1, b: 'x'} between ranks 0 and 1 (sendObject/recvObject, mpi4py's
// comm.send/comm.recv), bcastObject and allgatherObject of that object, allreduceObject of the
// rank's number with SUM (comm.bcast, comm.allgather, comm.allreduce); --reps repetitions of
// --object-calls calls after one untimed repetition (V8 compiles the object paths' JS in the
// background while it runs: a warm-up of an eighth of it left Node's first repetitions 3-10x the
// steady ones); the ratio node/mpi4py of the medians over launches, and the median over runs of
// the ratio between the two launches of a run (launched one after the other).
//
// Options: --mpi openmpi|mpich (default openmpi) --np 2 --runs 7 --reps 11 --small 4000 --large 40
//          --large-bytes 1048576 --async-calls 200 --async-blocks 25 --object-calls 2000
//          --programs node,c+engine,c,mpi4py (default all) --halo-bytes 8 (a comma-separated list)
//          --cluster NAME (launch across the emulated hosts of `topocoll cluster up --name NAME`, one
//          rank per host, in place of mpirun on this host)
//          --json <file> (default results/binding-bench.json)
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
    'async-calls': { type: 'string', default: '200' },
    'async-blocks': { type: 'string', default: '25' },
    'object-calls': { type: 'string', default: '2000' },
    'halo-bytes': { type: 'string', default: '8' },
    cluster: { type: 'string' },
    programs: { type: 'string', default: 'node,c+engine,c,mpi4py' },
    json: { type: 'string', default: path.join(root, 'results', 'binding-bench.json') },
  },
});
const small = Number(o.small);
const large = Number(o.large);
const reps = Number(o.reps);
const largeBytes = Number(o['large-bytes']);
const asyncCalls = Number(o['async-calls']);
const asyncBlocks = Number(o['async-blocks']);
const objectCalls = Number(o['object-calls']);

// Node alone, in groups of one message size: the blocking call, the requests completed by wait(),
// the requests awaited. The allreduce at 8 B, the halo at each of --halo-bytes.
const haloBytes = o['halo-bytes'].split(',').map(Number);
if (haloBytes.some((b) => !Number.isInteger(b) || b < 8 || b % 8 !== 0)) throw new Error(`--halo-bytes ${o['halo-bytes']} is not valid; valid: a comma-separated list of multiples of 8 (bytes of float64), e.g. 8,1024,65536`);
// The last two, controls: the sendrecv halo, then `await Promise.all` of four Promise.resolve(),
// or of four pending Promises settled right after Promise.all has taken them (as a request's is,
// whose message has not arrived when it is awaited): what V8 alone adds to the fastest exchange,
// below which no halo of awaited requests can go.
const FLOOR = 'halo by sendrecv + Promise.all of 4 resolved';
const FLOOR_PENDING = 'halo by sendrecv + Promise.all of 4 pending';
const HALO = ['halo by sendrecv', 'halo by waitAllSync', 'halo by Promise.all', 'halo by waitAll', 'halo by Promise.all, a receive pending', 'halo by Promise.all, an ibarrier pending', FLOOR, FLOOR_PENDING];
const ASYNC_GROUPS = [
  ['allreduce', 'iallreduce + wait', 'await iallreduce'].map((op) => ({ op, bytes: 8 })),
  ...haloBytes.map((bytes) => HALO.map((op) => ({ op, bytes }))),
];
const ASYNC_CASES = ASYNC_GROUPS.flat();

// One halo exchange on a ring: 8 B to the right neighbour (tag 0) and to the left one (tag 1).
function haloBlocking(world, send, fromLeft, fromRight, left, right) {
  world.sendrecv(send, right, fromLeft, left, 0, 0);
  world.sendrecv(send, left, fromRight, right, 1, 1);
}

function haloRequests(world, send, fromLeft, fromRight, left, right) {
  return [world.irecv(fromLeft, left, 0), world.irecv(fromRight, right, 1), world.isend(send, right, 0), world.isend(send, left, 1)];
}

// The cases in blocks of --async-calls calls, interleaved (case after case, --async-blocks times),
// so that the load of a shared machine hits every case alike: their ratios hold where the absolute
// times drift. Per case, the microseconds per call of each block.
async function asyncCases(world, wtime, waitAllSync, waitAll) {
  const recv = new Float64Array(1);
  const right = (world.rank + 1) % world.size;
  const left = (world.rank + world.size - 1) % world.size;
  // Per size, the halo's buffers (8 B: the allreduce's send buffer too).
  const buffers = new Map(
    [8, ...haloBytes].map((bytes) => {
      const n = bytes / 8;
      return [bytes, { send: new Float64Array(n).fill(world.rank + 1), fromLeft: new Float64Array(n), fromRight: new Float64Array(n) }];
    }),
  );
  const { send } = buffers.get(8);
  const cases = (b) => ({
    allreduce: () => world.allreduce(send, recv),
    'iallreduce + wait': () => world.iallreduce(send, recv).wait(),
    'await iallreduce': () => world.iallreduce(send, recv),
    'halo by sendrecv': () => haloBlocking(world, b.send, b.fromLeft, b.fromRight, left, right),
    'halo by waitAllSync': () => waitAllSync(haloRequests(world, b.send, b.fromLeft, b.fromRight, left, right)),
    'halo by Promise.all': () => Promise.all(haloRequests(world, b.send, b.fromLeft, b.fromRight, left, right)),
    'halo by waitAll': () => waitAll(haloRequests(world, b.send, b.fromLeft, b.fromRight, left, right)),
    'halo by Promise.all, a receive pending': () => Promise.all(haloRequests(world, b.send, b.fromLeft, b.fromRight, left, right)),
    'halo by Promise.all, an ibarrier pending': () => Promise.all(haloRequests(world, b.send, b.fromLeft, b.fromRight, left, right)),
    [FLOOR]: () => {
      haloBlocking(world, b.send, b.fromLeft, b.fromRight, left, right);
      return Promise.all([Promise.resolve(), Promise.resolve(), Promise.resolve(), Promise.resolve()]);
    },
    [FLOOR_PENDING]: () => {
      haloBlocking(world, b.send, b.fromLeft, b.fromRight, left, right);
      const settle = [];
      const pending = () => new Promise((resolve) => settle.push(resolve));
      const all = Promise.all([pending(), pending(), pending(), pending()]);
      for (const resolve of settle) resolve();
      return all;
    },
  });
  const run = new Map([...buffers].map(([bytes, b]) => [bytes, cases(b)]));
  // Awaited in the background through the block, completed after it: a receive (a control
  // message, say), matched then; an ibarrier on a communicator of its own (a termination
  // protocol's), which the last rank joins then.
  const control = new Float64Array(1);
  const side = world.dup();
  const last = world.rank === world.size - 1;
  const us = ASYNC_CASES.map(() => []);
  for (let block = -1; block < asyncBlocks; block++) {
    for (const [k, { op: name, bytes }] of ASYNC_CASES.entries()) {
      const call = run.get(bytes)[name];
      // Fewer calls of a large halo: a block of each case takes about as long as one of 8 B.
      const calls = Math.max(10, Math.round((asyncCalls * 1024) / Math.max(bytes, 1024)));
      const awaited = name.startsWith('await') || name.includes('Promise.all') || name.endsWith('waitAll');
      const background = name.endsWith('a receive pending') ? world.irecv(control, left, 2) : name.endsWith('an ibarrier pending') && !last ? side.ibarrier() : null;
      if (background) {
        void background.then(() => {});
        await null; // its first spin, which spins its whole budget for it, before the clock starts
      }
      world.barrier();
      const t0 = wtime();
      if (awaited) for (let i = 0; i < calls; i++) await call();
      else for (let i = 0; i < calls; i++) call();
      if (block >= 0) us[k].push(((wtime() - t0) / calls) * 1e6);
      if (name.endsWith('a receive pending')) world.send(send, right, 2);
      if (name.endsWith('an ibarrier pending')) await (background ?? side.ibarrier());
      else if (background) await background;
      // What arrived: the sum of ranks 1..p, and each neighbour's value (its last element).
      const { fromLeft, fromRight } = buffers.get(bytes);
      const [got, want] = name.includes('allreduce') ? [recv[0], (world.size * (world.size + 1)) / 2] : [fromLeft.at(-1) + fromRight.at(-1), left + right + 2];
      if (got !== want) throw new Error(`bench:binding: ${name} of ${bytes} B received ${got}, want ${want}`);
      recv.fill(0);
      fromLeft.fill(0);
      fromRight.fill(0);
    }
  }
  return ASYNC_CASES.map(({ op, bytes }, k) => ({ op, bytes, us: us[k] }));
}

// Object mode, as mpi4py's lowercase methods do it (MPI4PY below, line for line).
const OBJECT_CASES = ['ping-pong', 'bcastObject', 'allgatherObject', 'allreduceObject'];

function objectCases(world, wtime) {
  const value = { a: 1, b: 'x' };
  const run = {
    'ping-pong': () => {
      if (world.rank === 0) {
        world.sendObject(value, 1, 0);
        return world.recvObject(1, 0);
      }
      if (world.rank === 1) {
        const got = world.recvObject(0, 0);
        world.sendObject(got, 0, 0);
      }
      return value;
    },
    bcastObject: () => world.bcastObject(world.rank === 0 ? value : null, 0),
    allgatherObject: () => world.allgatherObject(value)[world.size - 1],
    allreduceObject: () => world.allreduceObject(world.rank + 1, 'SUM'),
  };
  return OBJECT_CASES.map((op) => {
    const us = [];
    let got;
    for (let r = -1; r < reps; r++) {
      const n = objectCalls; // r = -1: the warm-up
      world.barrier();
      const t0 = wtime();
      for (let i = 0; i < n; i++) got = run[op]();
      if (r >= 0) us.push(((wtime() - t0) / n) * 1e6);
    }
    const ok = op === 'allreduceObject' ? got === (world.size * (world.size + 1)) / 2 : got?.a === 1 && got?.b === 'x';
    if (!ok) throw new Error(`bench:binding: ${op} received ${JSON.stringify(got)}`);
    return { op, us };
  });
}

// --- the Node worker: the C program's loops, line for line ---
async function nodeWorker() {
  const { world, wtime, waitAllSync, waitAll } = createRequire(import.meta.url)(path.join(root, 'dist', 'index.js'));
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
  const objectResults = objectCases(world, wtime);
  const asyncResults = await asyncCases(world, wtime, waitAllSync, waitAll);
  if (world.rank === 0) console.log(JSON.stringify({ program: 'node', results, asyncResults, objectResults }));
}

// The same loops in mpi4py (buffers: bytearrays, MPI.BYTE).
const MPI4PY = `
import json, sys
from mpi4py import MPI
small, large, reps, large_bytes, object_calls = map(int, sys.argv[1:6])
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
value = {"a": 1, "b": "x"}
def ping_pong():
    if comm.rank == 0:
        comm.send(value, 1, 0)
        return comm.recv(source=1, tag=0)
    if comm.rank == 1:
        comm.send(comm.recv(source=0, tag=0), 0, 0)
    return value
object_cases = {
    "ping-pong": ping_pong,
    "bcastObject": lambda: comm.bcast(value if comm.rank == 0 else None, 0),
    "allgatherObject": lambda: comm.allgather(value)[comm.size - 1],
    "allreduceObject": lambda: comm.allreduce(comm.rank + 1, MPI.SUM),
}
object_results = []
for op, call in object_cases.items():
    us = []
    for r in range(-1, reps):
        n = object_calls  # r = -1: the warm-up
        comm.Barrier()
        t0 = MPI.Wtime()
        for i in range(n): got = call()
        if r >= 0: us.append((MPI.Wtime() - t0) / n * 1e6)
    want = comm.size * (comm.size + 1) // 2 if op == "allreduceObject" else value
    if got != want: raise SystemExit("bench:binding: %s received %r" % (op, got))
    object_results.append({"op": op, "us": us})
if comm.rank == 0: print(json.dumps({"program": "mpi4py", "results": results, "objectResults": object_results}))
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
  const objectArgs = [String(objectCalls)];
  const haloArgs = [String(asyncCalls), String(asyncBlocks), ...haloBytes.map(String)];
  const preloadArgs = flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${preload}`] : ['-genv', 'LD_PRELOAD', preload];
  // --cluster: one rank per emulated host of `topocoll cluster` (links through the network stack).
  const { clusterState, clusterCommand } = createRequire(import.meta.url)(path.join(root, 'dist', 'cli', 'cluster.js'));
  const cluster = o.cluster === undefined ? null : clusterState(o.cluster);
  if (o.cluster !== undefined && !cluster) throw new Error(`--cluster ${o.cluster}: no such cluster is up; start one with \`topocoll cluster up --name ${o.cluster} --hosts ${o.np}\``);
  const launch = (argv) => {
    if (!cluster) return launchCommand(flavour, ['-np', o.np, ...argv], { testMachine: true });
    const launcherArgs = argv[0] === preloadArgs[0] ? preloadArgs : [];
    return clusterCommand(cluster, argv.slice(launcherArgs.length), { np: Number(o.np), mapBy: 'node', mpi: flavour, mpirunArgs: launcherArgs });
  };
  const allPrograms = {
    node: [process.execPath, fileURLToPath(import.meta.url), '--worker', '--small', args[0], '--large', args[1], '--reps', args[2], '--large-bytes', args[3], '--async-calls', String(asyncCalls), '--async-blocks', String(asyncBlocks), '--object-calls', String(objectCalls), '--halo-bytes', o['halo-bytes']],
    'c+engine': [...preloadArgs, binary, ...args, ...haloArgs],
    c: [binary, ...args, ...haloArgs],
  };
  const wanted = o.programs.split(',');
  for (const name of wanted) {
    if (![...Object.keys(allPrograms), 'mpi4py'].includes(name)) throw new Error(`--programs: "${name}" is not valid; valid choices: node, c+engine, c, mpi4py`);
  }
  const programs = Object.fromEntries(Object.entries(allPrograms).filter(([name]) => wanted.includes(name)));
  const python = '/usr/bin/python3';
  const mpi4pyLibrary = existsSync(python) && wanted.includes('mpi4py')
    ? spawnSync(python, ['-c', 'from mpi4py import MPI; print(MPI.Get_library_version())'], { encoding: 'utf8', env: { ...process.env, OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' } })
    : null;
  const mpi4pyMatches = mpi4pyLibrary?.status === 0 && (flavour === 'openmpi' ? /Open MPI/ : /MPICH/).test(mpi4pyLibrary.stdout);
  if (mpi4pyMatches) programs.mpi4py = [python, '-c', MPI4PY, ...args, ...objectArgs];
  else if (wanted.includes('mpi4py')) console.log(`(mpi4py for ${FLAVOURS[flavour].title} not found under ${python}: its columns are left out; Debian: apt-get install python3-mpi4py)`);

  const perRun = Object.fromEntries(Object.keys(programs).map((p) => [p, []]));
  const asyncPerRun = [];
  const haloPerRun = Object.fromEntries(['c', 'c+engine'].filter((name) => programs[name]).map((name) => [name, []]));
  const objectPerRun = { node: [], mpi4py: [] };
  for (let run = 0; run < Number(o.runs); run++) {
    for (const [name, argv] of Object.entries(programs)) {
      const [cmd, cmdArgs, env] = launch(argv);
      const r = spawnSync(cmd, cmdArgs, { cwd: root, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 300_000 });
      const line = r.stdout?.split('\n').find((l) => l.startsWith('{"program"'));
      if (r.status !== 0 || !line) throw new Error(`bench:binding: ${name} failed (exit ${r.status})\n${r.stdout}\n${r.stderr}`);
      const report = JSON.parse(line);
      perRun[name].push(report.results);
      if (report.asyncResults) asyncPerRun.push(report.asyncResults);
      if (report.haloResults) haloPerRun[name].push(report.haloResults);
      if (report.objectResults) objectPerRun[name].push(report.objectResults);
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
  const printTable = (title, head, rows) => {
    console.log(`\n${title}`);
    const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
    for (const cells of [head, ...rows]) console.log(cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
  };
  const withNode = programs.node && programs['c+engine'];
  const withMpi4py = programs.mpi4py && programs.c;
  const head = ['op', 'bytes', ...(withNode ? ['c+engine', 'node', 'node−c', 'node/c'] : []), ...(withMpi4py ? ['c', 'mpi4py', 'mpi4py−c', 'mpi4py/c'] : [])];
  const table = (title, rowsIn) => {
    const rows = rowsIn.map((r) => {
      const cells = [r.op, String(r.bytes)];
      if (withNode) cells.push(r['c+engine'].toFixed(3), r.node.toFixed(3), (r.node - r['c+engine']).toFixed(3), (r.node / r['c+engine']).toFixed(3));
      if (withMpi4py) cells.push(r.c.toFixed(3), r.mpi4py.toFixed(3), (r.mpi4py - r.c).toFixed(3), (r.mpi4py / r.c).toFixed(3));
      return cells;
    });
    printTable(title, head, rows);
  };
  if (withNode || withMpi4py) {
    table(`median over ${o.runs} interleaved launches`, summary);
    table(`least-disturbed launch (minimum over the ${o.runs} launches)`, best);
  }
  // Each request form against the blocking call of its three (and the awaited one against wait()).
  let asyncSummary = null;
  if (asyncPerRun.length > 0) {
    asyncSummary = ASYNC_CASES.map(({ op, bytes }, i) => ({ op, bytes, median: median(asyncPerRun.map((results) => median(results[i].us))), best: Math.min(...asyncPerRun.map((results) => median(results[i].us))) }));
    const rows = asyncSummary.map((r, i) => {
      const group = ASYNC_GROUPS.find((g) => g.includes(ASYNC_CASES[i]));
      const k = group.indexOf(ASYNC_CASES[i]);
      const first = ASYNC_CASES.indexOf(group[0]);
      const [blocking, waited] = [asyncSummary[first], asyncSummary[first + 1]];
      const cells = [r.op, String(r.bytes), r.median.toFixed(3), r.best.toFixed(3)];
      cells.push(k > 0 ? (r.median - blocking.median).toFixed(3) : '', k > 0 ? (r.median / blocking.median).toFixed(3) : '');
      cells.push(k > 1 ? (r.median - waited.median).toFixed(3) : '');
      return cells;
    });
    printTable(
      `node: requests against blocking calls, ${asyncBlocks} interleaved blocks of ${asyncCalls} calls; median over ${o.runs} launches of each launch's median block (and the least-disturbed launch)`,
      ['op', 'bytes', 'median', 'best', '−blocking', '/blocking', '−wait()'],
      rows,
    );
  }
  // The halo in C beside node's: what the MPI's own nonblocking exchange costs against its sendrecv.
  let haloSummary = null;
  const haloPrograms = Object.keys(haloPerRun).filter((name) => haloPerRun[name].length > 0);
  if (haloPrograms.length > 0) {
    const over = (name, op, bytes) => median(haloPerRun[name].map((results) => median(results.find((r) => r.op === op && r.bytes === bytes).us)));
    const nodeOf = (op, bytes) => asyncSummary?.find((r) => r.op === op && r.bytes === bytes)?.median;
    haloSummary = haloBytes.map((bytes) => ({
      bytes,
      ...Object.fromEntries(haloPrograms.flatMap((name) => [[`${name} sendrecv`, over(name, 'halo by sendrecv', bytes)], [`${name} MPI_Waitall`, over(name, 'halo by MPI_Waitall', bytes)]])),
      ...(asyncSummary ? { 'node sendrecv': nodeOf('halo by sendrecv', bytes), 'node Promise.all': nodeOf('halo by Promise.all', bytes), 'node sendrecv + 4 resolved': nodeOf(FLOOR, bytes), 'node sendrecv + 4 pending': nodeOf(FLOOR_PENDING, bytes) } : {}),
    }));
    const pairs = [...haloPrograms.map((name) => [`${name} sendrecv`, `${name} MPI_Waitall`]), ...(asyncSummary ? [['node sendrecv', 'node Promise.all'], ['node sendrecv', 'node sendrecv + 4 resolved'], ['node sendrecv', 'node sendrecv + 4 pending']] : [])];
    printTable(
      `halo exchange, the MPI's nonblocking form against its sendrecv in C, beside node's; median over ${o.runs} launches of each launch's median block, µs`,
      ['bytes', ...pairs.flatMap(([a, b]) => [a, b, '÷'])],
      haloSummary.map((r) => [String(r.bytes), ...pairs.flatMap(([a, b]) => [r[a].toFixed(3), r[b].toFixed(3), (r[b] / r[a]).toFixed(3)])]),
    );
  }
  // Object mode: node against mpi4py, each the median over launches of a launch's median.
  let objectSummary = null;
  const objectPrograms = Object.keys(objectPerRun).filter((name) => objectPerRun[name].length > 0);
  if (objectPrograms.length > 0) {
    const over = (name, i, pick) => pick(objectPerRun[name].map((results) => median(results[i].us)));
    const both = objectPrograms.length === 2;
    // Per run, node's launch against the mpi4py launch right after it: the load of a shared machine
    // drifts slower than a pair of launches, so the ratio within a run is steadier than the ratio
    // of the medians.
    const perRunRatio = (i) => median(objectPerRun.node.map((results, run) => median(results[i].us) / median(objectPerRun.mpi4py[run][i].us)));
    objectSummary = OBJECT_CASES.map((op, i) => ({
      op,
      ...Object.fromEntries(objectPrograms.flatMap((name) => [[name, over(name, i, median)], [`${name} best`, over(name, i, (xs) => Math.min(...xs))]])),
      ...(both ? { 'node/mpi4py per run': perRunRatio(i) } : {}),
    }));
    printTable(
      `object mode (allreduceObject with SUM), ${reps} repetitions of ${objectCalls} calls; median over ${o.runs} launches (and the least-disturbed launch), µs per call${both ? "; per run: the median over runs of node's launch against mpi4py's in the same run" : ''}`,
      ['op', 'value', ...objectPrograms.flatMap((name) => [name, `${name} best`]), ...(both ? ['node/mpi4py', 'best/best', 'per run'] : [])],
      objectSummary.map((r) => [
        r.op,
        r.op === 'allreduceObject' ? 'rank + 1' : "{ a: 1, b: 'x' }",
        ...objectPrograms.flatMap((name) => [r[name].toFixed(3), r[`${name} best`].toFixed(3)]),
        ...(both ? [(r.node / r.mpi4py).toFixed(3), (r['node best'] / r['mpi4py best']).toFixed(3), r['node/mpi4py per run'].toFixed(3)] : []),
      ]),
    );
  }
  mkdirSync(path.dirname(o.json), { recursive: true });
  writeFileSync(o.json, JSON.stringify({ flavour, np: Number(o.np), runs: Number(o.runs), reps, small, large, asyncCalls, asyncBlocks, objectCalls, library: version, summary, best, asyncSummary, haloSummary, objectSummary, perRun, asyncPerRun, haloPerRun, objectPerRun }, null, 1));
  console.log(`raw numbers: ${path.relative(process.cwd(), o.json)}`);
}

if (o.worker) await nodeWorker();
else await driver();
