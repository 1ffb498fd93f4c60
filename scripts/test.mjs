#!/usr/bin/env node
// The test command (`npm test`): compiles the TypeScript, brings the native products up to date
// for every MPI found, runs the whole vitest suite (unit tests and real mpirun jobs), and ends
// with one summary line.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const resultsFile = path.join(root, '.vitest-results.json');

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

run(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
// The native build is incremental (CMake): it recompiles what changed and leaves the rest.
run(process.execPath, [path.join(root, 'scripts/build-native.mjs')]);

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
