#!/usr/bin/env node
// The test command (`npm test`): compiles the TypeScript, makes sure the native products exist
// for every installed MPI, runs the whole vitest suite (unit tests and real mpirun jobs), and ends
// with one summary line.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedFlavours } from './mpi.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resultsFile = path.join(root, '.vitest-results.json');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
// Rebuild when a product is missing or older than any native source.
const newest = (dir) =>
  readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .reduce((t, e) => Math.max(t, statSync(path.join(e.parentPath ?? e.path, e.name)).mtimeMs), 0);
const sourcesTime = Math.max(newest('native'), statSync(path.join(root, 'binding.gyp')).mtimeMs);
const stale = installedFlavours().filter((f) => {
  const product = path.join(root, 'lib/native', f, 'topocoll_native.node');
  return !existsSync(product) || statSync(product).mtimeMs < sourcesTime;
});
if (stale.length) run(process.execPath, [path.join(root, 'scripts/build-native.mjs')]);

rmSync(resultsFile, { force: true });
const vitest = spawnSync(
  process.execPath,
  [path.join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--reporter=default', '--reporter=json', `--outputFile=${resultsFile}`, ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);
let summary = 'no results';
if (existsSync(resultsFile)) {
  const r = JSON.parse(readFileSync(resultsFile, 'utf8'));
  summary = `${r.numPassedTests} passed, ${r.numFailedTests} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : '');
}
console.log(`\ntests: ${summary}`);
process.exit(vitest.status ?? 1);
