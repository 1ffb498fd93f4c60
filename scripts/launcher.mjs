// How a job is launched, in one place: the command line for the MPI's own launcher (Open MPI's
// mpirun, MPICH's mpiexec) or Slurm's srun, each setting topocoll adds with the reason for it,
// and a runner that forwards SIGINT/SIGTERM/SIGHUP. Used by scripts/launch.mjs,
// `topocoll mpirun`, `topocoll bench|tune --np`, the test harness and the dev scripts.
import { spawn } from 'node:child_process';
import { availableParallelism, constants, cpus } from 'node:os';
import { FLAVOURS, launcherPath, requestedFlavour } from './mpi.mjs';

export { launcherPath };

/** `mpirun` and `mpiexec` both name the MPI's own launcher; `srun` is Slurm's. */
export const LAUNCHERS = ['mpirun', 'mpiexec', 'srun'];

/** srun inside a Slurm allocation, else the MPI's own launcher; with the reason. */
export function detectLauncher(env = process.env) {
  if (env.SLURM_JOB_ID) return { launcher: 'srun', why: `inside a Slurm allocation (SLURM_JOB_ID=${env.SLURM_JOB_ID}); --launcher mpirun for the MPI's own` };
  return { launcher: 'mpirun', why: null };
}

/** The job's rank count from -np/-n/--np/-c/--ntasks N (or --np=N, --ntasks=N), or null. */
function ranksOf(args) {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const eq = a.match(/^--(?:np|ntasks|n)=(\d+)$/);
    if (eq) return Number(eq[1]);
    if (['-np', '--np', '-n', '-c', '--ntasks'].includes(a) && /^\d+$/.test(args[i + 1] ?? '')) return Number(args[i + 1]);
  }
  return null;
}

const cpuCount = () => (typeof availableParallelism === 'function' ? availableParallelism() : cpus().length);

const given = (args, ...names) => args.some((a) => names.some((n) => a === n || a.startsWith(`${n}=`)));
const mcaGiven = (args, param) => args.some((a, i) => (a === '--mca' || a === '-mca') && args[i + 1] === param);

/**
 * Plans a launch. opts: flavour ('openmpi' | 'mpich'; default TOPOCOLL_MPI, else Open MPI),
 * launcher (LAUNCHERS; default the MPI's own), args (the launcher's options, as the user wrote
 * them), program (the program and its arguments; may be empty when args end with it),
 * forward (names of variables of `env` the ranks must get), preload (LD_PRELOAD for the ranks,
 * never the launcher), testMachine (the settings that only suit a test machine), measuring
 * (the job times collectives against the MPI's own: with testMachine, Open MPI's ranks are not
 * told to yield unless they outnumber the CPUs), env.
 * Returns { command, args, env (added to the launcher's), settings: [{ what, why }] }.
 */
export function planLaunch(opts = {}) {
  const env = opts.env ?? process.env;
  const flavour = opts.flavour ?? requestedFlavour(env);
  if (!FLAVOURS[flavour]) throw new Error(`unknown MPI "${flavour}"; valid choices: ${Object.keys(FLAVOURS).join(', ')}`);
  const launcher = opts.launcher ?? 'mpirun';
  if (!LAUNCHERS.includes(launcher)) throw new Error(`unknown launcher "${launcher}"; valid choices: ${LAUNCHERS.join(', ')}`);
  let userArgs = [...(opts.args ?? [])];
  const program = opts.program ?? [];
  const forward = opts.forward ?? [];
  const settings = [];
  const add = (what, why) => settings.push({ what, why });
  const pre = [];
  const launcherEnv = {};
  const ompi = flavour === 'openmpi';
  // Test machine: Open MPI's ranks yield the core while they wait (oversubscribed ranks that poll
  // starve one another), except in a measurement that fits the CPUs: a yield in every poll slows
  // Open MPI's own collectives (its barrier 1.4x on 2 and 4 ranks) and not ours, which spin
  // before they yield, so the baseline would not be the one its users measure (docs/benchmarks.md).
  const ranks = ranksOf(userArgs);
  const yieldWhenIdle = !(opts.measuring && ranks !== null && ranks <= cpuCount());
  const keptPolling = () =>
    add('(Open MPI polls)', `measuring on ${ranks} rank${ranks === 1 ? '' : 's'} of ${cpuCount()} CPUs: mpi_yield_when_idle left to Open MPI (it yields when oversubscribed), as in its users' runs`);
  // Every launcher: the AVX op component is Open MPI's; MPI_Init reads the variable in each rank.
  const avx = () => {
    if (!ompi || env.OMPI_MCA_op !== undefined || mcaGiven(userArgs, 'op')) return;
    launcherEnv.OMPI_MCA_op = '^avx';
    add('OMPI_MCA_op=^avx', "Open MPI 4.1's AVX reduction component saturates 8-bit MPI_SUM instead of wrapping (open-mpi/ompi#8045); set OMPI_MCA_op yourself to choose otherwise");
  };

  if (launcher === 'srun') {
    // srun has no -np; -n is its --ntasks.
    let renamed = false;
    userArgs = userArgs.map((a) => {
      if (a !== '-np' && a !== '--np' && !a.startsWith('--np=')) return a;
      renamed = true;
      return a.startsWith('--np=') ? `--ntasks=${a.slice(5)}` : '-n';
    });
    if (renamed) add('-n N (for -np N)', 'srun names the number of tasks -n (--ntasks)');
    if (given(userArgs, '--export')) throw new Error("srun's --export is set by topocoll (ALL, the TOPOCOLL_* variables and the ranks' LD_PRELOAD); put variables in the environment instead");
    const exports = [...forward];
    if (opts.preload) {
      if (opts.preload.includes(',')) throw new Error(`LD_PRELOAD="${opts.preload}" has a comma, which srun's --export cannot carry`);
      exports.push(`LD_PRELOAD=${opts.preload}`);
    }
    if (exports.length) {
      pre.push(`--export=ALL,${exports.join(',')}`);
      if (forward.length) add(`--export=ALL,${forward.join(',')}`, 'the TOPOCOLL_* variables of this environment, for every rank (srun passes the whole environment; naming them keeps them when SLURM_EXPORT_ENV says otherwise)');
      if (opts.preload) add(`--export=...,LD_PRELOAD=${opts.preload}`, 'libtopocoll.so preloaded in every rank, not in srun itself');
    }
    if (!given(userArgs, '--cpu-bind', '--cpu_bind')) {
      pre.push('--cpu-bind=none');
      add('--cpu-bind=none', "Slurm may bind each task to one core, where a Node rank's own threads (libuv pool, V8's GC and compiler) starve; pass --cpu-bind yourself to choose");
    }
    avx();
    if (opts.testMachine) {
      pre.push('--overcommit');
      add('--overcommit', 'test machine: more tasks than CPUs');
      if (ompi && !yieldWhenIdle) keptPolling();
      else if (ompi) {
        launcherEnv.OMPI_MCA_mpi_yield_when_idle = '1';
        add('OMPI_MCA_mpi_yield_when_idle=1', 'test machine: Open MPI ranks waiting in MPI yield the core (oversubscribed ranks that poll starve one another)');
      }
    }
    return { flavour, launcher, command: 'srun', args: [...pre, ...userArgs, ...program], env: launcherEnv, settings };
  }

  const exports = [];
  if (ompi) {
    if (!given(userArgs, '--bind-to', '-bind-to')) {
      pre.push('--bind-to', 'none');
      add('--bind-to none', "Open MPI binds each rank to one core at up to 2 ranks (a socket above), where a Node rank's own threads (libuv pool, V8's GC and compiler) starve; pass --bind-to yourself to choose");
    }
    avx();
    if (opts.testMachine) {
      pre.push('--oversubscribe');
      add('--oversubscribe', 'test machine: more ranks than cores');
      if (yieldWhenIdle) {
        pre.push('--mca', 'mpi_yield_when_idle', '1');
        add('--mca mpi_yield_when_idle 1', 'test machine: ranks waiting in MPI yield the core (oversubscribed ranks that poll starve one another)');
      } else {
        keptPolling();
      }
      Object.assign(launcherEnv, { OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' });
      add('OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1', "test machine: Open MPI's mpirun refuses to run as root (containers and CI do)");
    }
    for (const k of forward) exports.push('-x', k);
    if (forward.length) add(forward.map((k) => `-x ${k}`).join(' '), "the TOPOCOLL_* variables of this environment, for every rank (Open MPI's mpirun passes on only what -x names)");
    if (opts.preload) {
      exports.push('-x', `LD_PRELOAD=${opts.preload}`);
      add(`-x LD_PRELOAD=${opts.preload}`, 'libtopocoll.so preloaded in every rank, not in mpirun itself');
    }
  } else {
    for (const k of forward) exports.push('-genv', k, env[k] ?? '');
    if (forward.length) add(forward.map((k) => `-genv ${k} ...`).join(' '), 'the TOPOCOLL_* variables of this environment, for every rank');
    if (opts.preload) {
      exports.push('-genv', 'LD_PRELOAD', opts.preload);
      add(`-genv LD_PRELOAD ${opts.preload}`, 'libtopocoll.so preloaded in every rank, not in mpiexec itself');
    }
    // hydra binds nothing by default, allows oversubscription and root, and MPICH 4.0 polls
    // whatever we set: nothing to add, but say so.
    if (opts.testMachine) add('(nothing)', "test machine: MPICH's mpiexec allows oversubscription and root as it is; its ranks poll while they wait, so keep to the cores");
  }
  return { flavour, launcher, command: launcherPath(flavour), args: [...pre, ...exports, ...userArgs, ...program], env: launcherEnv, settings };
}

/**
 * [command, args, env] for `args` (launcher options, then the program) under the MPI's own
 * launcher. opts.testMachine: the project's own jobs (tests, demo, bench scripts) ask for the
 * test machine's settings (--oversubscribe, yield, root); opts.launcher as planLaunch.
 */
export function launchCommand(flavour, args, opts = {}) {
  const p = planLaunch({ flavour: flavour ?? undefined, args, testMachine: opts.testMachine, launcher: opts.launcher });
  return [p.command, p.args, p.env];
}

/** The settings as lines, one per setting: what was added and why. */
export function describeSettings(settings, prefix) {
  return settings.map((s) => `${prefix}${s.what}: ${s.why}`);
}

// A signal that comes within this long of one forwarded is a copy of it (a terminal's Ctrl-C
// reaches `npm run` and us both, and npm forwards it again): Open MPI's mpirun and MPICH's
// mpiexec take a second SIGINT as "abort now" and leave the ranks running.
const DUPLICATE_MS = 2000;

/**
 * Runs the launcher with stdout/stderr inherited and resolves to its exit status (128 + the
 * signal's number when a signal ended it, or when one was forwarded and it still exits 0, as
 * MPICH's mpiexec sometimes does: a stopped job must not read as a success). SIGINT, SIGTERM
 * and SIGHUP sent to this process are forwarded to it: it runs in its own process group, so a
 * terminal's Ctrl-C reaches it once, through us.
 */
export function runLauncher(command, args, env = {}, { name = 'topocoll' } = {}) {
  return new Promise((resolve) => {
    let child;
    try {
      // stdin: a terminal cannot be read from outside its foreground group (SIGTTIN would stop
      // the launcher), so the ranks get none; a file or a pipe is passed on.
      child = spawn(command, args, { stdio: [process.stdin.isTTY ? 'ignore' : 'inherit', 'inherit', 'inherit'], env: { ...process.env, ...env }, detached: true });
    } catch (e) {
      process.stderr.write(`${name}: cannot start ${command}: ${e.message}\n`);
      resolve(127);
      return;
    }
    let last = 0;
    let forwarded;
    const forward = (signal) => {
      const now = Date.now();
      if (now - last < DUPLICATE_MS) return;
      last = now;
      forwarded ??= signal;
      try {
        child.kill(signal);
      } catch {
        /* already gone */
      }
    };
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const s of signals) process.on(s, forward);
    let settled = false;
    const done = (code) => {
      if (settled) return;
      settled = true;
      for (const s of signals) process.off(s, forward);
      resolve(code);
    };
    child.on('error', (e) => {
      process.stderr.write(`${name}: cannot start ${command}: ${e.message}\n`);
      done(127);
    });
    child.on('exit', (code, signal) => {
      const by = signal ?? (code === 0 ? forwarded : undefined);
      done(by ? 128 + (constants.signals[by] ?? 0) : (code ?? 1));
    });
  });
}
