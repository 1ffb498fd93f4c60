#!/usr/bin/env node
// Launches an MPI job (a Node one, usually) under the MPI's own launcher:
//   node scripts/launch.mjs [--mpi openmpi|mpich] [--test-machine] -np N prog args...
// Adds --bind-to none for Open MPI (binding a rank to one core starves Node's own threads: the
// libuv pool, V8's GC and compiler) and OMPI_MCA_op=^avx; --test-machine adds what only a test
// machine wants (--oversubscribe, yield when idle, run as root). TOPOCOLL_VERBOSE=1 prints each
// setting and why. SIGINT/SIGTERM/SIGHUP are forwarded to the launcher; the exit status is its.
import { describeSettings, planLaunch, runLauncher } from './launcher.mjs';
import { requestedFlavour } from './mpi.mjs';

const args = process.argv.slice(2);
let flavour;
let testMachine = false;
for (;;) {
  if (args[0] === '--mpi') {
    flavour = args[1];
    args.splice(0, 2);
  } else if (args[0] === '--test-machine') {
    testMachine = true;
    args.shift();
  } else break;
}
const plan = planLaunch({ flavour: flavour ?? requestedFlavour(), args, testMachine });
if (Number(process.env.TOPOCOLL_VERBOSE) >= 1) {
  for (const line of describeSettings(plan.settings, 'launch: ')) process.stderr.write(`${line}\n`);
}
process.exit(await runLauncher(plan.command, plan.args, plan.env, { name: 'launch' }));
