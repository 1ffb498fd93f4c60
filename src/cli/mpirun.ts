// `topocoll mpirun`: launches any MPI program (C, Fortran or Node) with libtopocoll.so preloaded
// on every rank and every TOPOCOLL_* variable of this environment forwarded to the ranks:
// `-x` for Open MPI, `-genv` for MPICH. The launcher and its settings are scripts/mpi.mjs's
// (the ones the tests use), so a program runs here exactly as under the test harness.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UsageError } from './args';
import type { Command } from './main';
import { packageRoot, preloadFlavour, preloadLibrary, type Flavour } from './preload';

type LaunchCommand = (flavour: string, args: string[]) => [string, string[], Record<string, string>];

const USAGE =
  'topocoll mpirun [--mpi openmpi|mpich] [--no-preload] [--dry-run] [mpirun options] [--] program [args]\n' +
  '  A program ending in .js/.mjs/.cjs after `--` runs with this node. TOPOCOLL_* variables are forwarded.';

export interface MpirunPlan {
  flavour: Flavour;
  command: string;
  args: string[];
  /** Added to the launcher's own environment (never LD_PRELOAD: the launcher must not load us). */
  env: Record<string, string>;
}

/** Splits our own leading options from the launcher's arguments and builds the command. */
export async function planMpirun(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<MpirunPlan & { dryRun: boolean }> {
  let mpi: string | undefined;
  let preload = true;
  let dryRun = false;
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--mpi' || a.startsWith('--mpi=')) {
      mpi = a.includes('=') ? a.slice('--mpi='.length) : argv[++i];
      if (mpi === undefined) throw new UsageError('--mpi needs a value; valid choices: openmpi, mpich');
    } else if (a === '--no-preload') preload = false;
    else if (a === '--preload') preload = true;
    else if (a === '--dry-run') dryRun = true;
    else break;
  }
  const rest = argv.slice(i);
  const dash = rest.indexOf('--');
  const launcherArgs = dash < 0 ? rest : rest.slice(0, dash);
  let program = dash < 0 ? [] : rest.slice(dash + 1);
  if (dash >= 0 && program.length === 0) throw new UsageError(`no program after --; usage: ${USAGE}`);
  if (rest.length === 0) throw new UsageError(`no program to launch; usage: ${USAGE}`);
  if (program.length && /\.(c|m)?js$/.test(program[0])) program = [process.execPath, ...program];

  const flavour = preloadFlavour(mpi, env);
  const forwarded = Object.keys(env).filter((k) => k.startsWith('TOPOCOLL_') && env[k] !== undefined).sort();
  const exports: string[] = [];
  if (flavour === 'openmpi') {
    for (const k of forwarded) exports.push('-x', k);
  } else {
    for (const k of forwarded) exports.push('-genv', k, env[k] as string);
  }
  if (preload) {
    // Ours first, then whatever the user preloads already (a profiler, say).
    const value = [preloadLibrary(flavour), ...(env.LD_PRELOAD ? [env.LD_PRELOAD] : [])].join(':');
    if (flavour === 'openmpi') exports.push('-x', `LD_PRELOAD=${value}`);
    else exports.push('-genv', 'LD_PRELOAD', value);
  }
  // scripts/mpi.mjs is ESM; a CommonJS build cannot `import()` it through tsc, so go around.
  const dynamicImport = new Function('url', 'return import(url)') as (url: string) => Promise<{ launchCommand: LaunchCommand }>;
  const { launchCommand } = await dynamicImport(pathToFileURL(path.join(packageRoot, 'scripts', 'mpi.mjs')).href);
  const [command, args, launcherEnv] = launchCommand(flavour, [...exports, ...launcherArgs, ...program]);
  return { flavour, command, args, env: launcherEnv, dryRun };
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

export const mpirun: Command = {
  summary: 'launch an MPI program (C, Fortran or Node) with libtopocoll.so preloaded and TOPOCOLL_* forwarded',
  usage: USAGE,
  async run(argv: string[]): Promise<number> {
    const plan = await planMpirun(argv);
    if (plan.dryRun) {
      const env = Object.entries(plan.env).map(([k, v]) => `${k}=${quote(v)}`);
      console.log([...env, plan.command, ...plan.args].map((w, i) => (i < env.length ? w : quote(w))).join(' '));
      return 0;
    }
    return new Promise<number>((resolve) => {
      const child = spawn(plan.command, plan.args, { stdio: 'inherit', env: { ...process.env, ...plan.env } });
      const forward = (signal: NodeJS.Signals) => child.kill(signal);
      process.on('SIGINT', forward);
      process.on('SIGTERM', forward);
      child.on('error', (e) => {
        console.error(`topocoll mpirun: cannot start ${plan.command}: ${e.message}`);
        resolve(127);
      });
      child.on('close', (code, signal) => {
        process.off('SIGINT', forward);
        process.off('SIGTERM', forward);
        resolve(code ?? (signal ? 128 + 15 : 1));
      });
    });
  },
};
