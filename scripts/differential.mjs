#!/usr/bin/env node
// The long differential test (issue 17; `npm run test:differential`): test/c/differential.c
// under LD_PRELOAD=libtopocoll.so for many random seeds, thousands of calls each, on every
// installed MPI and several rank counts, plus threaded runs. Prints each job's seed and outcome,
// and every mismatch, hang or crash with its replay line; exits 1 if any job failed.
//   node scripts/differential.mjs [--seeds N] [--calls N] [--mpi openmpi,mpich] [--np 1,2,3]
//                                 [--skip CLASS,...] [--max-bytes B] [--no-threads] [--seed S]
//     --seeds: seeds per MPI and rank count (default 4); --seed: one fixed seed instead
//     --np: rank counts (default Open MPI 1-5, MPICH 2,3: MPICH 4.0 busy-polls on 2 cores)
//     --skip: classes left out (see test/c/differential.c), to isolate a failure
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchCommand } from './launcher.mjs';
import { installedFlavours } from './mpi.mjs';
import { buildPrograms } from '../test/c/build.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function parse(argv) {
  const o = { seeds: 4, calls: 3000, mpi: installedFlavours(), np: null, skip: '', maxBytes: 1 << 20, threads: true, seed: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = argv[i + 1];
    if (a === '--seeds') o.seeds = Number(v), i++;
    else if (a === '--calls') o.calls = Number(v), i++;
    else if (a === '--mpi') o.mpi = v.split(','), i++;
    else if (a === '--np') o.np = v.split(',').map(Number), i++;
    else if (a === '--skip') o.skip = v, i++;
    else if (a === '--max-bytes') o.maxBytes = Number(v), i++;
    else if (a === '--seed') o.seed = v, i++;
    else if (a === '--no-threads') o.threads = false;
    else {
      console.error(`differential.mjs: unknown argument "${a}"; valid: --seeds N, --calls N, --mpi LIST, --np LIST, --skip LIST, --max-bytes B, --seed S, --no-threads`);
      process.exit(2);
    }
  }
  return o;
}

// Jobs run in process groups of their own: a script stopped by a signal takes them along (MPICH's
// ranks busy-poll, and a job left behind holds the cores until killed).
const running = new Set();
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    for (const pid of running) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    process.exit(128 + (sig === 'SIGINT' ? 2 : 15));
  });
}

function run(cmd, args, env, timeoutMs) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, TOPOCOLL_FALLBACK: 'error', ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child.pid);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      out += `\n[differential.mjs] killed after ${timeoutMs} ms`;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      resolve({ code, signal, out });
    });
  });
}

const opts = parse(process.argv.slice(2));
let failed = 0;
let jobs = 0;
for (const flavour of opts.mpi) {
  const lib = path.join(root, 'lib/native', flavour, 'libtopocoll.so');
  if (!existsSync(lib)) {
    console.error(`differential.mjs: ${lib} is missing; build first (node scripts/build-native.mjs)`);
    process.exit(2);
  }
  const bin = await buildPrograms(flavour);
  const preload = flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${lib}`] : ['-genv', 'LD_PRELOAD', lib];
  const nps = opts.np ?? (flavour === 'openmpi' ? [1, 2, 3, 4, 5] : [2, 3]);
  const runs = nps.map((np) => ({ np, threads: false }));
  if (opts.threads) runs.push({ np: 2, threads: true });
  for (const { np, threads } of runs) {
    for (let s = 0; s < (opts.seed ? 1 : opts.seeds); s++) {
      const seed = opts.seed ?? String(randomInt(1, 2 ** 47));
      // MPICH and oversubscribed Open MPI pay milliseconds a message: smaller messages there.
      const maxBytes = flavour === 'openmpi' && np <= 2 ? opts.maxBytes : Math.min(opts.maxBytes, 1 << 18);
      const calls = threads ? Math.ceil(opts.calls / 4) : opts.calls;
      const args = [path.join(bin, 'differential'), '--require-topocoll', '--seed', seed, '--calls', String(calls), '--max-bytes', String(maxBytes),
        '--timeout', '60', '--max-failures', '5', ...(threads ? ['--threads'] : []), ...(opts.skip ? ['--skip', opts.skip] : [])];
      const [cmd, cmdArgs, env] = launchCommand(flavour, [...preload, '-np', String(np), ...args], { testMachine: true });
      const started = Date.now();
      const r = await run(cmd, cmdArgs, env, 30 * 60_000);
      jobs++;
      const summary = r.out.match(/^differential: seed \d+, \d+ calls .*$/m)?.[0] ?? '';
      const ok = r.code === 0 && / 0 mismatches/.test(summary);
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`${ok ? 'ok  ' : 'FAIL'} ${flavour} np=${np}${threads ? ' threads' : ''} seed=${seed} (${secs} s) ${summary || `exit ${r.code ?? r.signal}`}`);
      if (!ok) {
        failed++;
        const lines = r.out.split('\n').filter((l) => /^(MISMATCH|REFERENCE|HANG|CRASH|  |\[differential)/.test(l));
        console.log(lines.slice(0, 60).join('\n'));
      } else {
        for (const l of r.out.split('\n').filter((x) => /^REFERENCE MPI WRONG/.test(x))) console.log(`     note: ${l}`);
      }
    }
  }
}
console.log(`\ndifferential: ${jobs} jobs, ${failed} failed${opts.skip ? ` (skipping ${opts.skip})` : ''}`);
process.exit(failed ? 1 : 0);
