#!/usr/bin/env node
// Builds the native products for one or every installed MPI flavour and installs them under
// lib/native/<flavour>/ (libtopocoll.so + topocoll_native.node, found through $ORIGIN).
//   node scripts/build-native.mjs            every installed flavour, or only TOPOCOLL_MPI's if set
//   node scripts/build-native.mjs --cmake    the same through CMakeLists.txt (build-cmake/<flavour>)
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLAVOURS, installedFlavours, installHint, isInstalled, requestedFlavour } from './mpi.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const useCmake = args.includes('--cmake');

function fail(message) {
  console.error(`topocoll: ${message}`);
  process.exit(1);
}

function run(cmd, cmdArgs, env) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) fail(`${cmd} ${cmdArgs.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

function nodeGyp() {
  // npm puts node-gyp on PATH for install scripts; from a checkout, use the dev dependency.
  const local = path.join(root, 'node_modules/node-gyp/bin/node-gyp.js');
  return existsSync(local) ? [process.execPath, [local]] : ['node-gyp', []];
}

// The running Node's own headers, when installed (Debian, official tarballs): no download needed.
function nodedirArgs() {
  if (process.env.npm_config_nodedir) return [];
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  return existsSync(path.join(prefix, 'include/node/node.h')) ? [`--nodedir=${prefix}`] : [];
}

// Copy then rename: a running job keeps its mapping of the old file instead of dying with SIGBUS.
function installAtomically(from, to) {
  const tmp = `${to}.tmp-${process.pid}`;
  copyFileSync(from, tmp);
  renameSync(tmp, to);
}

function buildWithGyp(flavour) {
  const [cmd, pre] = nodeGyp();
  run(cmd, [...pre, 'rebuild', '--loglevel=error', ...nodedirArgs()], { TOPOCOLL_MPI: flavour });
  const out = path.join(root, 'lib/native', flavour);
  mkdirSync(out, { recursive: true });
  for (const file of ['libtopocoll.so', 'topocoll_native.node']) installAtomically(path.join(root, 'build/Release', file), path.join(out, file));
  console.log(`topocoll: built ${FLAVOURS[flavour].title} products in ${path.relative(root, out)}/`);
}

function buildWithCmake(flavour) {
  const dir = path.join(root, 'build-cmake', flavour);
  run('cmake', ['-S', root, '-B', dir, '-DCMAKE_BUILD_TYPE=Release'], { TOPOCOLL_MPI: flavour });
  run('cmake', ['--build', dir, '-j', '2'], { TOPOCOLL_MPI: flavour });
  console.log(`topocoll: built ${FLAVOURS[flavour].title} products with CMake in ${path.relative(root, dir)}/`);
}

// node-gyp always builds in ./build: concurrent builds of one checkout (parallel test runs,
// several developers' shells) take turns through a lock directory.
const lockDir = path.join(root, 'build.lock');
function acquireBuildLock() {
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      process.on('exit', () => rmSync(lockDir, { recursive: true, force: true }));
      return;
    } catch {
      let owner = 0;
      try {
        owner = Number(readFileSync(path.join(lockDir, 'pid'), 'utf8'));
        process.kill(owner, 0);
      } catch {
        if (owner) rmSync(lockDir, { recursive: true, force: true }); // its owner is gone
      }
      if (Date.now() > deadline) fail(`timed out waiting for the build lock ${lockDir}`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
}

let flavours;
try {
  flavours = process.env.TOPOCOLL_MPI || process.env.npm_config_topocoll_mpi ? [requestedFlavour()] : installedFlavours();
} catch (e) {
  fail(e.message);
}
if (flavours.length === 0) fail(`no MPI found; ${installHint()}`);
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => process.exit(1));
acquireBuildLock();
for (const f of flavours) {
  if (!isInstalled(f)) fail(`${FLAVOURS[f].title} is not installed; ${installHint()}`);
  (useCmake ? buildWithCmake : buildWithGyp)(f);
}
