// `topocoll mpirun`: launches any MPI program (C, Fortran or Node) with libtopocoll.so preloaded
// on every rank and every TOPOCOLL_* variable of this environment forwarded to the ranks, under
// Open MPI's mpirun, MPICH's mpiexec or Slurm's srun. The command line and its settings are
// scripts/launcher.mjs's (the test harness's too), so a program runs here as under the tests.
import { HelpRequest, parseOptions, UsageError } from '../config/args';
import type { Command } from './main';
import { launcherModule, type Launcher, type LauncherModule, type MpirunPlan } from '../mpi/launcher';
import { preloadFlavour, preloadLibrary } from './preload';
import { MPI_FLAVOURS } from '../select/registry';

const USAGE = `topocoll mpirun [options] [launcher options] [--] program [args]

options (before any launcher option):
  --mpi openmpi|mpich        the MPI (default: TOPOCOLL_MPI, else the launcher of this job, else
                             the MPI of the plain \`mpirun\`, else the only one built)
  --launcher mpirun|mpiexec|srun
                             mpirun and mpiexec: the MPI's own (Open MPI's mpirun, MPICH's
                             mpiexec); srun: Slurm's (default inside an allocation, SLURM_JOB_ID)
  --test-machine             also what only suits a test machine: oversubscription (Open MPI
                             --oversubscribe, srun --overcommit), Open MPI's ranks yielding when
                             idle, and Open MPI's mpirun allowed to run as root
  --no-preload               do not preload libtopocoll.so
  --dry-run                  print each setting and why, and the command; run nothing
  -h, --help                 this help (after a launcher option it is the launcher's, after
                             \`--\` the program's)

Everything after \`--\` is the program and its arguments, passed as they are (--help included);
a program ending in .js/.mjs/.cjs runs with this node. TOPOCOLL_* variables reach every rank
(Open MPI: -x NAME; MPICH: -genv NAME VALUE; srun: --export=ALL,NAME,...), and LD_PRELOAD the
ranks only. Added for convenience, each printed with its reason under --dry-run and
TOPOCOLL_VERBOSE=1: Open MPI --bind-to none (srun --cpu-bind=none) unless you pass your own,
OMPI_MCA_op=^avx unless OMPI_MCA_op is set; srun gets -n for -np. SIGINT, SIGTERM and SIGHUP
are forwarded to the launcher, which stops the ranks; the exit status is the launcher's (never 0
for a job a signal stopped). A terminal's input does not reach the ranks (the launcher runs in a
process group of its own): redirect a file instead.`;

export type MpirunRequest = MpirunPlan & { dryRun: boolean; help: boolean };

/** Splits our own leading options from the launcher's arguments and plans the launch. */
export async function planMpirun(argv: string[], env: NodeJS.ProcessEnv = process.env, mod?: LauncherModule): Promise<MpirunRequest> {
  mod ??= await launcherModule();
  // Our options come first; the first word that is not one of them starts the launcher's.
  let parsed;
  try {
    parsed = parseOptions(argv, {
      mpi: { type: 'string', choices: MPI_FLAVOURS },
      launcher: { type: 'string', choices: mod.LAUNCHERS },
      'no-preload': { type: 'flag' },
      preload: { type: 'flag' },
      'dry-run': { type: 'flag' },
      'test-machine': { type: 'flag' },
    }, { stopAt: 'unknown' });
  } catch (e) {
    if (e instanceof HelpRequest && e.what === 'help') return { help: true, dryRun: false, flavour: 'openmpi', launcher: 'mpirun', command: '', args: [], env: {}, settings: [] };
    throw e;
  }
  const { options: o, rest } = parsed;
  const mpi = o.mpi as string | undefined;
  const launcher = o.launcher as string | undefined;
  const preload = !o['no-preload'];
  const dryRun = o['dry-run'] === true;
  const testMachine = o['test-machine'] === true;
  const dash = rest.indexOf('--');
  const launcherArgs = dash < 0 ? rest : rest.slice(0, dash);
  let program = dash < 0 ? [] : rest.slice(dash + 1);
  if (dash >= 0 && program.length === 0) throw new UsageError('no program after --; see topocoll mpirun --help');
  if (rest.length === 0) throw new UsageError('no program to launch; see topocoll mpirun --help');
  if (program.length && /\.(c|m)?js$/.test(program[0])) program = [process.execPath, ...program];

  const flavour = preloadFlavour(mpi, env);
  const detected = launcher === undefined ? mod.detectLauncher(env) : { launcher: launcher as Launcher, why: null };
  const forward = Object.keys(env).filter((k) => k.startsWith('TOPOCOLL_') && env[k] !== undefined).sort();
  // Ours first, then whatever the user preloads already (a profiler, say).
  const preloadValue = preload ? [preloadLibrary(flavour), ...(env.LD_PRELOAD ? [env.LD_PRELOAD] : [])].join(':') : undefined;
  let plan;
  try {
    plan = mod.planLaunch({ flavour, launcher: detected.launcher, args: launcherArgs, program, forward, preload: preloadValue, testMachine, env });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const settings = detected.why ? [{ what: `srun`, why: detected.why }, ...plan.settings] : plan.settings;
  return { help: false, dryRun, flavour, launcher: detected.launcher, command: plan.command, args: plan.args, env: plan.env, settings };
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The plan as a shell command line: the launcher's added environment, the launcher, its arguments. */
export function commandLine(plan: MpirunPlan): string {
  const env = Object.entries(plan.env).map(([k, v]) => `${k}=${quote(v)}`);
  return [...env, ...[plan.command, ...plan.args].map(quote)].join(' ');
}

export const mpirun: Command = {
  summary: 'launch an MPI program (C, Fortran or Node; mpirun, mpiexec or srun) with libtopocoll.so preloaded and TOPOCOLL_* forwarded',
  usage: USAGE,
  async run(argv: string[]): Promise<number> {
    const plan = await planMpirun(argv);
    if (plan.help) throw new HelpRequest('help');
    const mod = await launcherModule();
    if (plan.dryRun) {
      // A shell script: the settings as comments, then the command.
      for (const line of mod.describeSettings(plan.settings, '# ')) console.log(line);
      console.log(commandLine(plan));
      return 0;
    }
    if (Number(process.env.TOPOCOLL_VERBOSE) >= 1) {
      for (const line of mod.describeSettings(plan.settings, 'topocoll mpirun: ')) console.error(line);
      console.error(`topocoll mpirun: ${commandLine(plan)}`);
    }
    return mod.runLauncher(plan.command, plan.args, plan.env, { name: 'topocoll mpirun' });
  },
};
