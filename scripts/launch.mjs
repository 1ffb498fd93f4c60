#!/usr/bin/env node
// Launches an MPI job with the settings this project needs, for either MPI:
//   node scripts/launch.mjs [--mpi openmpi|mpich] -np N prog args...
// Open MPI: allowed as root, oversubscription allowed, no core binding (binding each rank to one
// core starves Node's helper threads: the libuv pool, V8's GC and compiler threads), and ranks
// yield when idle. MPICH's hydra needs none of these.
import { spawnSync } from 'node:child_process';
import { launchCommand } from './mpi.mjs';

const args = process.argv.slice(2);
let flavour;
if (args[0] === '--mpi') {
  flavour = args[1];
  args.splice(0, 2);
}
const [cmd, cmdArgs, env] = launchCommand(flavour, args);
const r = spawnSync(cmd, cmdArgs, { stdio: 'inherit', env: { ...process.env, ...env } });
process.exit(r.status ?? 1);
