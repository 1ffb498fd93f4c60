#!/usr/bin/env node
// Prints one kind of MPI build flag for the requested flavour, for binding.gyp and CMakeLists.txt:
//   node scripts/mpi-flags.mjs include|libdirs|libs|flavour   [--cmake]
import { mpiFlags, requestedFlavour } from './mpi.mjs';

try {
  const what = process.argv[2];
  const flavour = requestedFlavour();
  const flags = what === 'flavour' ? null : mpiFlags(flavour);
  const words = {
    flavour: () => [flavour],
    include: () => flags.includeDirs,
    libdirs: () => flags.libDirs,
    libs: () => flags.libs,
  }[what];
  if (!words) throw new Error(`usage: mpi-flags.mjs include|libdirs|libs|flavour [--cmake]`);
  console.log(words().join(process.argv.includes('--cmake') ? ';' : '\n'));
} catch (e) {
  console.error(`topocoll: ${e.message}`);
  process.exit(1);
}
