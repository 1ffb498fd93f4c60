#!/usr/bin/env node
// Builds the preload tests' MPI programs (test/c/*.c, test/fortran/*.f90) and PMPI tool
// libraries (test/c/profiler/*.c -> lib<name>.so) with the compiler wrappers of each MPI built for
// (its lib/native/<flavour>/mpi.json)
// into test/c/bin/<flavour>/. Rebuilds only what is out of date.
//   node test/c/build.mjs [openmpi|mpich ...]      (default: every installed MPI)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLAVOURS, installedFlavours, mpiWrapper } from '../../scripts/mpi.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCES = [
  { dir: 'test/c', ext: '.c', compiler: (f) => mpiWrapper(f, 'mpicc'), flags: ['-O2', '-Wall', '-Wno-stringop-overflow', '-std=gnu11'] },
  { dir: 'test/fortran', ext: '.f90', compiler: (f) => mpiWrapper(f, 'mpifort'), flags: ['-O2'] },
  { dir: 'test/c/profiler', ext: '.c', compiler: (f) => mpiWrapper(f, 'mpicc'), flags: ['-O2', '-Wall', '-shared', '-fPIC'], lib: true },
];

/** Builds every program for `flavour`; resolves to the directory holding them. */
export async function buildPrograms(flavour) {
  const out = path.join(root, 'test/c/bin', flavour);
  mkdirSync(out, { recursive: true });
  for (const { dir, ext, compiler, flags, lib } of SOURCES) {
    if (!existsSync(path.join(root, dir))) continue;
    for (const file of readdirSync(path.join(root, dir)).filter((f) => f.endsWith(ext))) {
      const src = path.join(root, dir, file);
      const exe = path.join(out, lib ? `lib${path.basename(file, ext)}.so` : path.basename(file, ext));
      if (existsSync(exe) && statSync(exe).mtimeMs >= statSync(src).mtimeMs) continue;
      // Built aside and renamed: a concurrent run never sees a half-written program.
      const tmp = `${exe}.${process.pid}.tmp`;
      // Asynchronous: tests build in beforeAll, and vitest's worker must stay responsive.
      await promisify(execFile)(compiler(flavour), [...flags, '-o', tmp, src], { cwd: root });
      renameSync(tmp, exe);
    }
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flavours = process.argv.length > 2 ? process.argv.slice(2) : installedFlavours();
  for (const f of flavours) {
    if (!FLAVOURS[f]) {
      console.error(`build.mjs: unknown MPI "${f}"; valid choices: ${Object.keys(FLAVOURS).join(', ')}`);
      process.exit(2);
    }
    console.log(`built ${path.relative(root, await buildPrograms(f))}/`);
  }
}
