// The command lines of scripts/launcher.mjs for each launcher (Open MPI's mpirun, MPICH's
// mpiexec, Slurm's srun: no Slurm here, so srun is checked by its argv only), and
// `topocoll mpirun`'s own options: forwarded variables, the test machine's settings only when
// asked, every setting printed with its reason, and everything after `--` left to the program.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { commandLine, planMpirun as planWith } from '../../src/cli/mpirun';
import type { LauncherModule } from '../../src/mpi/launcher';
import { preloadLibrary } from '../../src/cli/preload';
// @ts-expect-error plain ESM module shared with the project's scripts
import * as launcherModule from '../../scripts/launcher.mjs';

const { detectLauncher, launchCommand, launcherPath, planLaunch } = launcherModule;
// The module is given: vitest cannot run the CLI's own import() of it.
const planMpirun = (argv: string[], env: NodeJS.ProcessEnv) => planWith(argv, env, launcherModule as LauncherModule);

const LIB = '/opt/topocoll/libtopocoll.so';
const ENV = { PATH: '/usr/bin', TOPOCOLL_STATS: '1', TOPOCOLL_ALLGATHER_ALGORITHM: 'ring' };
const FORWARD = ['TOPOCOLL_ALLGATHER_ALGORITHM', 'TOPOCOLL_STATS'];
const PROGRAM = ['./app', '--help', '-x', 'y'];
const TEST_ONLY = ['--oversubscribe', 'mpi_yield_when_idle', '--overcommit', 'OMPI_ALLOW_RUN_AS_ROOT'];

type Plan = { command: string; args: string[]; env: Record<string, string>; settings: { what: string; why: string }[] };
const plan = (o: Record<string, unknown>): Plan =>
  planLaunch({ args: ['-np', '2'], program: PROGRAM, forward: FORWARD, preload: LIB, env: ENV, ...o });
const whats = (p: Plan) => p.settings.map((s) => s.what).join('\n');

describe('planLaunch: Open MPI mpirun', () => {
  it('forwards TOPOCOLL_* with -x, preloads the ranks only, adds --bind-to none and op ^avx, and leaves the program last and whole', () => {
    const p = plan({ flavour: 'openmpi' });
    expect(p.command).toBe(launcherPath('openmpi'));
    expect(p.args).toEqual(['--bind-to', 'none', '-x', 'TOPOCOLL_ALLGATHER_ALGORITHM', '-x', 'TOPOCOLL_STATS', '-x', `LD_PRELOAD=${LIB}`, '-np', '2', ...PROGRAM]);
    expect(p.env).toEqual({ OMPI_MCA_op: '^avx' });
    for (const t of TEST_ONLY) expect(p.args.join(' ') + JSON.stringify(p.env)).not.toContain(t);
    // One line per setting, each with its reason.
    expect(whats(p)).toBe(['--bind-to none', 'OMPI_MCA_op=^avx', '-x TOPOCOLL_ALLGATHER_ALGORITHM -x TOPOCOLL_STATS', `-x LD_PRELOAD=${LIB}`].join('\n'));
    for (const s of p.settings) expect(s.why.length).toBeGreaterThan(10);
    // mpiexec names the same launcher.
    expect(plan({ flavour: 'openmpi', launcher: 'mpiexec' }).args).toEqual(p.args);
  });

  it('adds the test machine settings only when asked, each with its reason', () => {
    const p = plan({ flavour: 'openmpi', testMachine: true });
    expect(p.args.slice(0, 6)).toEqual(['--bind-to', 'none', '--oversubscribe', '--mca', 'mpi_yield_when_idle', '1']);
    expect(p.env).toEqual({ OMPI_MCA_op: '^avx', OMPI_ALLOW_RUN_AS_ROOT: '1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM: '1' });
    expect(p.settings.filter((s) => s.why.startsWith('test machine:')).map((s) => s.what)).toEqual([
      '--oversubscribe',
      '--mca mpi_yield_when_idle 1',
      'OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1',
    ]);
  });

  it("yields to the user's own --bind-to, --mca op and OMPI_MCA_op", () => {
    const p = plan({ flavour: 'openmpi', args: ['--bind-to', 'core', '--mca', 'op', 'avx', '-np', '2'] });
    expect(p.args).not.toContain('none');
    expect(p.env).toEqual({});
    expect(plan({ flavour: 'openmpi', env: { ...ENV, OMPI_MCA_op: 'avx' } }).env).toEqual({});
  });
});

describe('planLaunch: MPICH mpiexec (hydra)', () => {
  it('forwards TOPOCOLL_* with -genv NAME VALUE and preloads the ranks only; the test machine adds nothing but says so', () => {
    const p = plan({ flavour: 'mpich', launcher: 'mpiexec' });
    expect(p.command).toBe(launcherPath('mpich'));
    expect(p.args).toEqual(['-genv', 'TOPOCOLL_ALLGATHER_ALGORITHM', 'ring', '-genv', 'TOPOCOLL_STATS', '1', '-genv', 'LD_PRELOAD', LIB, '-np', '2', ...PROGRAM]);
    expect(p.env).toEqual({});
    const t = plan({ flavour: 'mpich', testMachine: true });
    expect(t.args).toEqual(p.args);
    expect(t.settings.at(-1)).toMatchObject({ what: '(nothing)', why: expect.stringMatching(/^test machine: /) });
  });
});

describe('planLaunch: Slurm srun (argv only: no Slurm on this machine)', () => {
  it('passes TOPOCOLL_* and the ranks\' LD_PRELOAD with --export=ALL,..., not in srun\'s own environment; -np becomes -n', () => {
    const p = plan({ flavour: 'openmpi', launcher: 'srun' });
    expect(p.command).toBe('srun');
    expect(p.args).toEqual([`--export=ALL,TOPOCOLL_ALLGATHER_ALGORITHM,TOPOCOLL_STATS,LD_PRELOAD=${LIB}`, '--cpu-bind=none', '-n', '2', ...PROGRAM]);
    expect(p.env).toEqual({ OMPI_MCA_op: '^avx' });
    expect(p.env.LD_PRELOAD).toBeUndefined();
    for (const t of TEST_ONLY) expect(p.args.join(' ') + JSON.stringify(p.env)).not.toContain(t);
    expect(whats(p)).toContain('-n N (for -np N)');
    // Only the launcher's -np is renamed, never the program's.
    expect(plan({ flavour: 'mpich', launcher: 'srun', args: ['--np=3'], program: ['./app', '-np', '5'] }).args).toEqual([
      `--export=ALL,TOPOCOLL_ALLGATHER_ALGORITHM,TOPOCOLL_STATS,LD_PRELOAD=${LIB}`, '--cpu-bind=none', '--ntasks=3', './app', '-np', '5',
    ]);
  });

  it('measuring (bench, tune) on no more ranks than CPUs: Open MPI polls as its users\' runs do; more ranks than CPUs: it yields', () => {
    const fits = plan({ flavour: 'openmpi', testMachine: true, measuring: true, args: ['-np', '1'] });
    expect(fits.args.join(' ')).not.toContain('mpi_yield_when_idle');
    expect(fits.args).toContain('--oversubscribe');
    expect(fits.settings.find((s) => s.what === '(Open MPI polls)')?.why).toMatch(/^measuring on 1 rank of \d+ CPUs: mpi_yield_when_idle left to Open MPI/);
    const over = plan({ flavour: 'openmpi', testMachine: true, measuring: true, args: ['-np', String(availableParallelism() + 1)] });
    expect(over.args.join(' ')).toContain('--mca mpi_yield_when_idle 1');
    // Only the launcher's own -np counts, not an option of the program.
    expect(plan({ flavour: 'openmpi', testMachine: true, measuring: true, args: [], program: ['./app', '-n', '1'] }).args.join(' ')).toContain('mpi_yield_when_idle');
    const srun = plan({ flavour: 'openmpi', launcher: 'srun', testMachine: true, measuring: true, args: ['-n', '1'] });
    expect(srun.env.OMPI_MCA_mpi_yield_when_idle).toBeUndefined();
  });

  it('adds --overcommit (and Open MPI\'s yield) only for the test machine; refuses an --export of the user\'s and a comma in LD_PRELOAD', () => {
    const p = plan({ flavour: 'openmpi', launcher: 'srun', testMachine: true, args: ['-n', '2', '--cpu-bind=cores'] });
    expect(p.args).toEqual([`--export=ALL,TOPOCOLL_ALLGATHER_ALGORITHM,TOPOCOLL_STATS,LD_PRELOAD=${LIB}`, '--overcommit', '-n', '2', '--cpu-bind=cores', ...PROGRAM]);
    expect(p.env).toEqual({ OMPI_MCA_op: '^avx', OMPI_MCA_mpi_yield_when_idle: '1' });
    expect(plan({ flavour: 'mpich', launcher: 'srun', testMachine: true }).env).toEqual({});
    expect(() => plan({ flavour: 'openmpi', launcher: 'srun', args: ['--export=NONE'] })).toThrow(/--export is set by topocoll/);
    expect(() => plan({ flavour: 'openmpi', launcher: 'srun', preload: '/a,b/lib.so' })).toThrow(/comma/);
    // Nothing to forward: srun's own default (the whole environment) stands.
    expect(plan({ flavour: 'mpich', launcher: 'srun', forward: [], preload: undefined }).args[0]).toBe('--cpu-bind=none');
  });

  it('is chosen inside a Slurm allocation', () => {
    expect(detectLauncher({ SLURM_JOB_ID: '7' })).toMatchObject({ launcher: 'srun', why: expect.stringContaining('SLURM_JOB_ID=7') });
    expect(detectLauncher({})).toEqual({ launcher: 'mpirun', why: null });
  });
});

it('launchCommand (the test harness and dev scripts): the test machine settings only with testMachine', () => {
  const [cmd, args, env] = launchCommand('openmpi', ['-np', '2', 'prog']);
  expect(cmd).toBe(launcherPath('openmpi'));
  expect(args).toEqual(['--bind-to', 'none', '-np', '2', 'prog']);
  expect(env.OMPI_ALLOW_RUN_AS_ROOT).toBeUndefined();
  const [, targs, tenv] = launchCommand('openmpi', ['-np', '2', 'prog'], { testMachine: true });
  expect(targs).toContain('--oversubscribe');
  expect(tenv.OMPI_ALLOW_RUN_AS_ROOT).toBe('1');
});

describe.runIf(existsSync(preloadLibrary('openmpi')) && existsSync(preloadLibrary('mpich')))('topocoll mpirun: its own options', () => {
  it('leaves everything after -- to the program, --help included; its own --help only before any launcher option', async () => {
    const p = await planMpirun(['--mpi', 'openmpi', '-np', '2', '--', './prog', '--help', '--dry-run', '--', '-h'], ENV);
    expect(p.help).toBe(false);
    expect(p.dryRun).toBe(false);
    expect(p.args.slice(-7)).toEqual(['-np', '2', './prog', '--help', '--dry-run', '--', '-h']);
    expect((await planMpirun(['--help'], ENV)).help).toBe(true);
    expect((await planMpirun(['--mpi', 'mpich', '-h'], ENV)).help).toBe(true);
  });

  it('--launcher, --test-machine and detection; the dry-run line is a shell command', async () => {
    const srun = await planMpirun(['--mpi', 'openmpi', '--test-machine', '-np', '2', '--', 'app.js', '--help'], { ...ENV, SLURM_JOB_ID: '9' });
    expect(srun.launcher).toBe('srun');
    expect(srun.settings[0]).toMatchObject({ what: 'srun', why: expect.stringContaining('SLURM_JOB_ID=9') });
    expect(srun.args).toContain('--overcommit');
    expect(srun.args.slice(-3)).toEqual([process.execPath, 'app.js', '--help']);
    const own = await planMpirun(['--mpi', 'openmpi', '--launcher', 'mpirun', '--no-preload', '-np', '2', '--', './a', "it's"], { ...ENV, SLURM_JOB_ID: '9' });
    expect(own.launcher).toBe('mpirun');
    expect(own.args.join(' ')).not.toContain('LD_PRELOAD');
    expect(commandLine(own)).toBe(`OMPI_MCA_op='^avx' ${launcherPath('openmpi')} --bind-to none -x TOPOCOLL_ALLGATHER_ALGORITHM -x TOPOCOLL_STATS -np 2 ./a 'it'\\''s'`);
    await expect(planMpirun(['--launcher', 'aprun', '-np', '2', 'x'], ENV)).rejects.toThrow('--launcher=aprun is not valid; valid choices: mpirun, mpiexec, srun');
    await expect(planMpirun(['--mpi', 'openmpi', '--launcher=srun', '--export=NONE', '--', 'x'], ENV)).rejects.toThrow(/--export is set by topocoll/);
  });
});
