// Runs a real MPI job for integration tests and returns what every rank printed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
// @ts-expect-error plain ESM helper shared with the project's scripts
import { launchCommand } from '../../scripts/launcher.mjs';
// @ts-expect-error plain ESM helper shared with the project's scripts
import { installedFlavours, mpiWrapper } from '../../scripts/mpi.mjs';

export type Flavour = 'openmpi' | 'mpich';
export const repoRoot = path.resolve(__dirname, '..', '..');

/** The MPIs this machine has (and topocoll is built for); integration tests run for each. */
export const FLAVOURS: Flavour[] = installedFlavours();

/** The C compiler wrapper of the MPI that `flavour` was built against (its build manifest). */
export const mpicc = (flavour: Flavour): string => mpiWrapper(flavour, 'mpicc');

/** Rank counts per MPI: MPICH 4.0 busy-polls, so it stays at the 2 cores we have (+1). */
export const RANKS: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 4, 5, 8], mpich: [1, 2, 3] };

export interface MpiRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface MpiRunOptions {
  flavour: Flavour;
  np: number;
  /** The program and its arguments; a .js/.mjs/.ts file alone is run with node. */
  args: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
  mpirunArgs?: string[];
}

/** Launches `mpirun -np N ...` and resolves when it exits (killing it after timeoutMs). */
export function mpirun(opts: MpiRunOptions): Promise<MpiRun> {
  const program = /\.(c|m)?js$/.test(opts.args[0]) ? [process.execPath, ...opts.args] : opts.args;
  // The test machine's settings: 2 cores shared by up to 8 ranks, run as root.
  const [cmd, args, env] = launchCommand(opts.flavour, [...(opts.mpirunArgs ?? []), '-np', String(opts.np), ...program], { testMachine: true });
  if (opts.flavour !== 'openmpi' || opts.env?.OMPI_MCA_orte_tmpdir_base) return runJob(cmd, args, { env: { ...env, ...opts.env }, timeoutMs: opts.timeoutMs });
  // A session directory per Open MPI job: two mpiruns starting at once race to create the shared
  // default one (/tmp/ompi.<host>.<uid>: "mkdir ... File exists", orte_init fails), seen under load.
  const base = mkdtempSync(path.join(tmpdir(), 'topocoll-ompi-'));
  return runJob(cmd, args, { env: { ...env, OMPI_MCA_orte_tmpdir_base: base, ...opts.env }, timeoutMs: opts.timeoutMs }).finally(() =>
    rmSync(base, { recursive: true, force: true }),
  );
}

// The process groups of the launchers still running. Each is killed on its own timeout; these go
// when the test process ends first, or loses vitest (killed, or timed out): a group of its own
// would outlive it, ranks spinning on the cores of every later job.
const liveGroups = new Set<number>();
let reaperInstalled = false;

function killLiveGroups(): void {
  for (const pid of liveGroups) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  liveGroups.clear();
}

function installReaper(): void {
  if (reaperInstalled) return;
  reaperInstalled = true;
  process.on('exit', killLiveGroups);
  // vitest's fork pool: the channel to vitest closes when it ends, and the fork would run the rest
  // of its tests with no one to report to.
  process.on('disconnect', () => {
    if (liveGroups.size === 0) return;
    killLiveGroups();
    process.exit(1);
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // Once, then the signal again: its default action ends the process as it would have.
    process.once(signal, () => {
      killLiveGroups();
      process.kill(process.pid, signal);
    });
  }
}

/** Runs a launcher (mpirun, `topocoll mpirun`, ...) in its own process group, killed after timeoutMs. */
export function runJob(cmd: string, args: string[], opts: { env?: Record<string, string>; timeoutMs?: number; cwd?: string } = {}): Promise<MpiRun> {
  const timeoutMs = opts.timeoutMs ?? 60000;
  const started = Date.now();
  installReaper();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd: opts.cwd ?? repoRoot,
      env: { ...process.env, TOPOCOLL_FALLBACK: 'error', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    if (child.pid !== undefined) liveGroups.add(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        /* already gone */
      }
    };
    let killer: NodeJS.Timeout | undefined;
    // SIGTERM first: mpirun then stops its ranks (they run in process groups of their own, and
    // `topocoll mpirun` runs mpirun in one of its own); SIGKILL if that is not enough.
    const timer = setTimeout(() => {
      stderr += `\n[test harness] killed after ${timeoutMs} ms`;
      kill('SIGTERM');
      killer = setTimeout(() => kill('SIGKILL'), 5000);
    }, timeoutMs);
    child.on('close', (code, signal) => {
      liveGroups.delete(child.pid!);
      clearTimeout(timer);
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The JSON line each rank printed ({rank, ...}), in rank order; fails unless every rank printed one. */
export function rankReports<T extends { rank: number }>(run: MpiRun, np: number): T[] {
  const lines = run.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as T)
    .sort((a, b) => a.rank - b.rank);
  expect(lines.map((l) => l.rank)).toEqual(Array.from({ length: np }, (_, r) => r));
  return lines;
}

/** Fails with everything the job printed when it did not exit 0. */
export function expectSuccess(run: MpiRun): void {
  if (run.code !== 0) {
    throw new Error(`mpirun exited ${run.code ?? run.signal} after ${run.ms} ms\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`);
  }
}

/**
 * Polls `probe` every 100 ms until it returns an empty list or `deadlineMs` has passed; returns
 * its last answer. For what goes away by itself after a job (killed processes being reaped, a
 * launcher's daemons exiting): on a loaded machine that takes seconds, so the deadline is
 * generous, and the caller still asserts that the answer ends empty.
 */
export async function pollUntilEmpty<T>(probe: () => T[], deadlineMs = 30_000): Promise<T[]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const left = probe();
    if (left.length === 0 || Date.now() >= until) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * What the ranks printed on stdout, without the banner MPICH's hydra adds there when it cleans up
 * after a failed rank ("BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES ..."): whether it
 * appears depends on how the ranks' exits race (a rank still starting when another aborts is
 * killed by a signal), which a loaded machine changes.
 */
export function ranksStdout(run: MpiRun): string {
  return run.stdout.replace(
    /\n*=+\n(?:=[^\n]*\n)*?=+\n(?:YOUR APPLICATION TERMINATED WITH THE EXIT STRING:[^\n]*\n)?(?:This typically refers to a problem with your application\.\n)?(?:Please see the FAQ page for debugging suggestions\n?)?/g,
    '',
  );
}
