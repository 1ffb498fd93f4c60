// Launching for real: `topocoll mpirun ... -- program --help` gives the program its --help (and
// every other argument), and a SIGTERM, SIGINT or SIGHUP to the launcher (`topocoll mpirun`,
// scripts/launch.mjs), or a terminal's Ctrl-C to its process group, leaves no launcher or rank
// of the job running. Under each installed MPI; srun is checked by its argv only
// (test/unit/launcher.test.ts): there is no Slurm here.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, pollUntilEmpty, repoRoot, runJob } from '../helpers/mpirun';

const dir = mkdtempSync(path.join(tmpdir(), 'topocoll-launch-'));
const ARGV = path.join(dir, 'argv.mjs');
const SLEEP = path.join(dir, 'sleep.mjs');
writeFileSync(ARGV, 'console.log(`argv of rank ${process.env.OMPI_COMM_WORLD_RANK ?? process.env.PMI_RANK}: ${JSON.stringify(process.argv.slice(2))}`);\n');
writeFileSync(SLEEP, 'setTimeout(() => {}, 1e9);\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CLI = path.join(repoRoot, 'bin/topocoll.js');
const LAUNCH = path.join(repoRoot, 'scripts/launch.mjs');

interface Proc {
  pid: number;
  ppid: number;
  state: string;
  cmdline: string;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      out.push({ pid: Number(name), ppid: Number(fields[1]), state: fields[0], cmdline });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** The live (not zombie) processes under `root`, and any whose command line has `marker`. */
function jobProcesses(root: number, marker: string): Proc[] {
  const all = processes().filter((p) => p.state !== 'Z');
  const found = new Map<number, Proc>();
  for (const p of all) if (p.cmdline.includes(marker)) found.set(p.pid, p);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if ((p.ppid === root || found.has(p.ppid)) && !found.has(p.pid)) {
        found.set(p.pid, p);
        grew = true;
      }
    }
  }
  return [...found.values()];
}

describe.each(FLAVOURS)('launching (%s)', (flavour) => {
  it('`topocoll mpirun -np 2 -- program --help ...` runs the program with --help and every other argument', async () => {
    const args = ['--help', '-h', '--dry-run', '--', 'a b'];
    const argv = [CLI, 'mpirun', '--mpi', flavour, '--test-machine', '-np', '2', '--', ARGV, ...args];
    const run = await runJob(process.execPath, argv, { timeoutMs: 90_000, env: { TOPOCOLL_VERBOSE: '1' } });
    expectSuccess(run);
    for (const rank of [0, 1]) expect(run.stdout).toContain(`argv of rank ${rank}: ${JSON.stringify(args)}`);
    expect(run.stdout).not.toContain('usage:');
    // TOPOCOLL_VERBOSE: one line per setting with its reason, then the command.
    const testMachine = flavour === 'openmpi' ? '--oversubscribe: test machine: ' : '(nothing): test machine: ';
    expect(run.stderr).toContain(`topocoll mpirun: ${testMachine}`);
    expect(run.stderr).toMatch(/^topocoll mpirun: .* -np 2 \S+node \S+argv\.mjs --help -h --dry-run -- 'a b'$/m);
    // --dry-run: the same lines as shell comments, then the command; nothing runs.
    const dry = await runJob(process.execPath, [CLI, 'mpirun', '--dry-run', ...argv.slice(2)], { timeoutMs: 30_000 });
    expectSuccess(dry);
    expect(dry.stdout).toContain(`# ${testMachine}`);
    expect(dry.stdout).not.toContain('argv of rank');
  });

  it('scripts/launch.mjs exits with the status of the job', async () => {
    const run = await runJob(process.execPath, [LAUNCH, '--mpi', flavour, '--test-machine', '-np', '1', process.execPath, '-e', 'process.exit(3)'], { timeoutMs: 60_000 });
    expect(run.code, run.stderr).toBe(3);
  });

  const launchers: [string, string[]][] = [
    ['topocoll mpirun', [CLI, 'mpirun', '--mpi', flavour, '--test-machine', '--no-preload', '-np', '2', '--']],
    ['scripts/launch.mjs', [LAUNCH, '--mpi', flavour, '--test-machine', '-np', '2']],
  ];
  // SIGINT to the group is a terminal's Ctrl-C: it reaches the launcher and whatever shares its
  // group; 'group, then launcher' is Ctrl-C under `npm run`, which forwards it once more;
  // SIGHUP is the terminal closing.
  type To = 'launcher' | 'group' | 'group, then launcher';
  const signals: [NodeJS.Signals, To][] = [['SIGTERM', 'launcher'], ['SIGINT', 'launcher'], ['SIGHUP', 'launcher'], ['SIGINT', 'group'], ['SIGINT', 'group, then launcher']];
  it.each(launchers.flatMap(([name, argv]) => signals.map(([signal, to]) => ({ name, argv, signal, to }))))(
    '$signal to the $to of $name leaves no launcher or rank running',
    async ({ argv, signal, to }) => {
      const marker = `topocoll-launch-test-${randomUUID()}`;
      const child: ChildProcess = spawn(process.execPath, [...argv, process.execPath, SLEEP, marker], {
        cwd: repoRoot,
        stdio: ['ignore', 'ignore', 'pipe'],
        detached: true,
      });
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const pid = child.pid!;
      try {
        // Both ranks up.
        const ranks = () => processes().filter((p) => p.cmdline.trimEnd() === `${process.execPath} ${SLEEP} ${marker}` && p.state !== 'Z');
        const until = Date.now() + 60_000;
        while (ranks().length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
        expect(ranks().length, stderr).toBe(2);
        const job = jobProcesses(pid, marker);
        expect(job.length).toBeGreaterThanOrEqual(4); // the launcher, mpirun, 2 ranks (and hydra's proxy)
        process.kill(to === 'launcher' ? pid : -pid, signal);
        if (to === 'group, then launcher') {
          setTimeout(() => {
            try {
              process.kill(pid, signal);
            } catch {
              /* already gone */
            }
          }, 100);
        }
        const left = await pollUntilEmpty(() => {
          const alive = new Set(processes().filter((p) => p.state !== 'Z').map((p) => p.pid));
          return [...job.filter((p) => alive.has(p.pid)), ...jobProcesses(pid, marker).filter((p) => !job.some((q) => q.pid === p.pid))];
        }, 20_000);
        expect(left.map((p) => `${p.pid} ${p.cmdline}`), stderr).toEqual([]);
        // Stopped, not finished: never a success.
        expect(await exited).toBeGreaterThan(0);
      } finally {
        // Whatever is left (only on failure): by its marker, then the launcher's group.
        for (const p of jobProcesses(pid, marker)) {
          try {
            process.kill(p.pid, 'SIGKILL');
          } catch {
            /* gone */
          }
        }
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    },
    90_000,
  );
});
