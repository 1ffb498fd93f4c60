#!/usr/bin/env node
// Builds the native products with CMake (CMakeLists.txt) for every MPI installation found, or only
// for TOPOCOLL_MPI's flavour, and installs them under lib/native/<flavour>/: libtopocoll.so,
// topocoll_native.node (found through $ORIGIN) and mpi.json, what was built against.
//   node scripts/build-native.mjs
// Incremental: build/<flavour> is configured once (again only when the MPI or the Node headers
// change), `cmake --build` recompiles only what changed, on every core, and a product is replaced
// only when its bytes changed.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLAVOURS, findMpis, requestedFlavour } from './mpi.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function fail(message) {
  console.error(`topocoll: ${message}`);
  process.exit(1);
}

function run(cmd, cmdArgs) {
  const r = spawnSync(cmd, cmdArgs, { cwd: root, stdio: 'inherit' });
  if (r.error) fail(`cannot run ${cmd}: ${r.error.message}`);
  if (r.status !== 0) fail(`${cmd} ${cmdArgs.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

function onPath(cmd) {
  return (process.env.PATH || '').split(':').some((dir) => dir && existsSync(path.join(dir, cmd)));
}

// The Node-API headers (node-api-headers) and node-addon-api's, from this package's dependencies:
// no download and no Node source tree needed.
function nodeApiIncludes() {
  const require = createRequire(path.join(root, 'package.json'));
  try {
    return [require('node-api-headers').include_dir, path.dirname(require.resolve('node-addon-api/package.json'))];
  } catch (e) {
    fail(`the Node-API headers are missing (${e.message}); run npm install first`);
  }
}

// Copy then rename: a running job keeps its mapping of the old file instead of dying with SIGBUS.
// Unchanged bytes are left alone, so a no-op build leaves every product as it was.
function installIfChanged(from, to) {
  const bytes = readFileSync(from);
  if (existsSync(to) && readFileSync(to).equals(bytes)) return false;
  const tmp = `${to}.tmp-${process.pid}`;
  copyFileSync(from, tmp);
  renameSync(tmp, to);
  return true;
}

function build(mpi) {
  const dir = path.join(root, 'build', mpi.flavour);
  const settings = {
    TOPOCOLL_MPICC: mpi.mpicc ?? '',
    TOPOCOLL_MPI_PKGCONFIG: mpi.mpicc ? '' : mpi.pkgconfig,
    TOPOCOLL_NODE_API_INCLUDE: nodeApiIncludes().join(';'),
  };
  // Configure only for a new build folder or another MPI/headers; otherwise the build tool
  // re-runs CMake by itself when CMakeLists.txt or the source list changes.
  const stampFile = path.join(dir, 'topocoll-configure.json');
  // The MPI's facts too: an upgrade behind the same wrapper path must reconfigure.
  const { flavour, version, launcher, includeDirs, libDirs, libs, linkFlags } = mpi;
  const stamp = JSON.stringify({ settings, mpi: { flavour, version, launcher, includeDirs, libDirs, libs, linkFlags } });
  const configured = existsSync(path.join(dir, 'CMakeCache.txt')) && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp;
  if (!configured) {
    const generator = !existsSync(path.join(dir, 'CMakeCache.txt')) && onPath('ninja') ? ['-G', 'Ninja'] : [];
    const defs = Object.entries(settings).map(([k, v]) => `-D${k}=${v}`);
    run('cmake', ['-S', root, '-B', dir, ...generator, '-DCMAKE_BUILD_TYPE=Release', ...defs]);
    writeFileSync(stampFile, stamp);
  }
  run('cmake', ['--build', dir, '--parallel', String(os.availableParallelism?.() ?? os.cpus().length)]);

  const out = path.join(root, 'lib/native', mpi.flavour);
  mkdirSync(out, { recursive: true });
  const changed = ['libtopocoll.so', 'topocoll_native.node'].filter((f) => installIfChanged(path.join(dir, f), path.join(out, f)));
  // The manifest: what these products were built against (written by CMake at configure time).
  // Where it was found, as discovery says (CMake saw only the TOPOCOLL_MPICC passed to it).
  const manifest = { ...JSON.parse(readFileSync(path.join(dir, 'topocoll-mpi.json'), 'utf8')), source: mpi.source };
  const manifestFile = path.join(out, 'mpi.json');
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  if (!existsSync(manifestFile) || readFileSync(manifestFile, 'utf8') !== text) {
    writeFileSync(`${manifestFile}.tmp-${process.pid}`, text);
    renameSync(`${manifestFile}.tmp-${process.pid}`, manifestFile);
    changed.push('mpi.json');
  }
  const what = changed.length ? `installed ${changed.join(', ')}` : 'up to date';
  console.log(`topocoll: ${manifest.title} (${manifest.mpicc ?? `pkg-config ${manifest.pkgconfig}`}): ${what} in ${path.relative(root, out)}/`);
}

// Concurrent builds of one checkout (parallel test runs, several developers' shells) take turns
// through a lock directory: they share build/<flavour> and lib/native.
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

let mpis;
let wanted;
try {
  wanted = process.env.TOPOCOLL_MPI?.trim() || process.env.npm_config_topocoll_mpi ? requestedFlavour() : null;
  mpis = findMpis();
} catch (e) {
  fail(e.message);
}
// One build per flavour (lib/native/<flavour>): the first found of each.
const chosen = new Map();
for (const mpi of mpis) {
  if (!FLAVOURS[mpi.flavour] || (wanted && mpi.flavour !== wanted)) continue;
  const first = chosen.get(mpi.flavour);
  if (first) {
    console.error(`topocoll: also found ${mpi.title} (${mpi.source}); building for ${first.title} (${first.source}). Choose with MPICC=/path/to/mpicc TOPOCOLL_MPI=${mpi.flavour}`);
  } else {
    chosen.set(mpi.flavour, mpi);
  }
}
if (chosen.size === 0) {
  fail(`TOPOCOLL_MPI=${wanted}, but no ${FLAVOURS[wanted].title} was found; found: ${mpis.map((m) => `${m.title} (${m.source})`).join(', ')}`);
}
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => process.exit(1));
acquireBuildLock();
for (const mpi of chosen.values()) build(mpi);
