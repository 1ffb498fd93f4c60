#!/usr/bin/env node
// The one list of native sources, read by binding.gyp (<!@(...)) and CMakeLists.txt
// (execute_process), so the two build descriptions cannot drift.
//   node scripts/native-sources.mjs engine|addon  [--cmake]   (paths relative to the repo root)
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The preloadable library is the engine plus the MPI_* interposition layer.
const GROUPS = { engine: ['native/engine', 'native/interpose'], addon: ['native/addon'] };

function walk(dir) {
  return readdirSync(path.join(root, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.cc') ? [path.join(dir, e.name)] : []))
    .sort();
}

const group = process.argv[2];
if (!GROUPS[group]) {
  console.error(`usage: native-sources.mjs ${Object.keys(GROUPS).join('|')} [--cmake]`);
  process.exit(2);
}
const files = GROUPS[group].flatMap(walk);
console.log(process.argv.includes('--cmake') ? files.join(';') : files.join('\n'));
