// The multi-core collectives (seed 001) under real mpirun: barrier shm_hierarchical, bcast
// shm_numa and hierarchical, allgather hierarchical, alltoall tiled, from Node and from C under
// the preload library, on one node and on virtual nodes (TOPOCOLL_VIRTUAL_NODES) so that the
// multi-node paths run on this host; then faults (a rank SIGKILLed or aborting inside a
// shared-memory collective), two concurrent jobs, TOPOCOLL_SHM=0, and `topocoll info`. After
// every job, /dev/shm must hold no segment created by one of its processes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, pollUntilEmpty, rankReports, repoRoot, type Flavour, type MpiRun, mpicc } from '../helpers/mpirun';
import { addon } from '../../src/mpi/native';

const SHM_ALGORITHMS = {
  TOPOCOLL_BARRIER_ALGORITHM: 'shm_hierarchical',
  TOPOCOLL_BCAST_ALGORITHM: 'shm_numa',
  TOPOCOLL_ALLGATHER_ALGORITHM: 'hierarchical',
  TOPOCOLL_ALLTOALL_ALGORITHM: 'tiled',
};
const shmPrefix = (addon().shmNamePrefix() as string).slice(1);
// MPICH 4.0 busy-polls: generous limits (design.md section 5).
const timeoutMs = (flavour: Flavour) => (flavour === 'mpich' ? 120000 : 60000);

/** Segments in /dev/shm created by one of `pids` (ShmSegment names: /topocoll-<uid>-h<host id>-<creator pid>-...). */
function leftovers(pids: number[]): string[] {
  const names = fs.readdirSync('/dev/shm');
  return names.filter((n) => pids.some((pid) => n.startsWith(`${shmPrefix}${pid}-`)));
}

/** Alive and not a zombie. */
function isRunning(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

interface RankLine {
  rank: number;
  pid: number;
  checks: number;
  bad: unknown[];
}


/** Every rank checked the same number of cases and none was wrong; nothing left in /dev/shm. */
function expectAllChecked(run: MpiRun, np: number) {
  expectSuccess(run);
  const lines = rankReports<RankLine>(run, np);
  for (const l of lines) {
    expect(l.bad, `rank ${l.rank}`).toEqual([]);
    expect(l.checks).toBeGreaterThan(40);
  }
  expect(new Set(lines.map((l) => l.checks)).size).toBe(1);
  expect(leftovers(lines.map((l) => l.pid))).toEqual([]);
}

const runNode = (flavour: Flavour, np: number, env: Record<string, string>, scale = 1) =>
  mpirun({
    flavour,
    np,
    args: ['test/mpi/programs/shm-collectives.js', String(scale)],
    env: { ...SHM_ALGORITHMS, TOPOCOLL_STATS: '2', ...env },
    timeoutMs: timeoutMs(flavour),
  });

/** TOPOCOLL_STATS=2's per-rank lines prove the forced algorithm ran on every rank (no silent fallback). */
function expectAlgorithmsRan(run: MpiRun, np: number, algorithms: Record<string, string>) {
  for (const [coll, algorithm] of Object.entries({
    barrier: algorithms.TOPOCOLL_BARRIER_ALGORITHM,
    bcast: algorithms.TOPOCOLL_BCAST_ALGORITHM,
    allgather: algorithms.TOPOCOLL_ALLGATHER_ALGORITHM,
    alltoall: algorithms.TOPOCOLL_ALLTOALL_ALGORITHM,
  })) {
    if (!algorithm) continue;
    for (let r = 0; r < np; r++) expect(run.stderr).toMatch(new RegExp(`rank ${r} ${coll} +${algorithm} +calls [1-9]`));
  }
}

// Open MPI: one node at 1, 2, 3, 5 and 8 ranks (odd, non-power-of-two, oversubscribed).
// MPICH: 1 to 3 ranks (it busy-polls on our 2 cores).
const ONE_NODE: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 5, 8], mpich: [1, 2, 3] };

describe.each(FLAVOURS)('shm collectives from Node on one node (%s)', (flavour) => {
  it.each(ONE_NODE[flavour])('p = %i: every byte right, blocking and nonblocking, in place, sizes 0 B to 1.2 MB', async (np) => {
    const run = await runNode(flavour, np, {}, flavour === 'mpich' ? 0.5 : 4);
    expectAllChecked(run, np);
    expectAlgorithmsRan(run, np, SHM_ALGORITHMS);
  });
});

// Virtual nodes: uniform nodes (the leaders' allgather from the registry), a rank alone on its
// node, interleaved nodes (the leaders' ring of runs), uneven nodes.
const VIRTUAL: Array<[number, string, Record<string, string>]> = [
  [4, 'block:2', {}],
  [5, 'block:2', { TOPOCOLL_BCAST_ALGORITHM: 'hierarchical' }],
  [6, 'cyclic:3', { TOPOCOLL_BCAST_CONCURRENCY: '1' }],
  [7, '0,0,0,1,1,1,1', { TOPOCOLL_ALLTOALL_TILE_BYTES: '4096', TOPOCOLL_SHM_BYTES: '65536' }],
];

describe('shm collectives on virtual nodes (openmpi)', () => {
  it.each(VIRTUAL)('p = %i, TOPOCOLL_VIRTUAL_NODES=%s %o: the multi-node paths deliver every byte', async (np, layout, extra) => {
    const env = { TOPOCOLL_VIRTUAL_NODES: layout, ...extra };
    const run = await runNode('openmpi', np, env);
    expectAllChecked(run, np);
    expectAlgorithmsRan(run, np, { ...SHM_ALGORITHMS, ...extra });
  });

  it('mpich, p = 3 on nodes {0,1} and {2}, hierarchical bcast, no NUMA placement', async () => {
    if (!FLAVOURS.includes('mpich')) return;
    const env = { TOPOCOLL_VIRTUAL_NODES: 'block:2', TOPOCOLL_BCAST_ALGORITHM: 'hierarchical', TOPOCOLL_NUMA: '0' };
    const run = await runNode('mpich', 3, env, 0.5);
    expectAllChecked(run, 3);
    expectAlgorithmsRan(run, 3, { ...SHM_ALGORITHMS, ...env });
  });
});

describe.each(FLAVOURS)('shm collectives from C under the preload library (%s)', (flavour) => {
  let program = '';
  const preload = path.join(repoRoot, 'lib/native', flavour, 'libtopocoll.so');
  const preloadArgs = flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${preload}`] : ['-genv', 'LD_PRELOAD', preload];
  const cases: Array<[number, string]> = flavour === 'mpich' ? [[2, '']] : [[3, ''], [4, 'block:2'], [5, '0,1,0,1,1']];

  beforeAll(() => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'topocoll-shm-c-'));
    program = path.join(dir, `shm-collectives-${flavour}`);
    execFileSync(mpicc(flavour), ['-O1', '-o', program, path.join(repoRoot, 'test/mpi/programs/shm-collectives.c')]);
  });

  it.each(cases)('p = %i, virtual nodes "%s": world and a split communicator, every byte right', async (np, layout) => {
    const run = await mpirun({
      flavour,
      np,
      args: [program],
      mpirunArgs: preloadArgs,
      env: { ...SHM_ALGORITHMS, TOPOCOLL_STATS: '2', ...(layout ? { TOPOCOLL_VIRTUAL_NODES: layout } : {}) },
      timeoutMs: timeoutMs(flavour),
    });
    expectSuccess(run);
    const oks = run.stdout.trim().split('\n').filter((l) => l.startsWith('ok '));
    expect(oks.map((l) => Number(l.split(' ')[1])).sort()).toEqual(Array.from({ length: np }, (_, r) => r));
    for (const l of oks) expect(Number(l.split(' ')[2])).toBeGreaterThan(50);
    expectAlgorithmsRan(run, np, SHM_ALGORITHMS);
  });
});

describe.each(FLAVOURS)('a rank dies inside a shared-memory collective (%s)', (flavour) => {
  const modes = flavour === 'mpich' ? ['kill'] : ['kill', 'abort'];
  it.each(modes)('%s: the job ends promptly and /dev/shm holds nothing of it', async (mode) => {
    const np = flavour === 'mpich' ? 2 : 3;
    const run = await mpirun({
      flavour,
      np,
      args: ['test/mpi/programs/shm-fault.js', mode, '1'],
      env: { TOPOCOLL_BCAST_ALGORITHM: 'shm_numa', TOPOCOLL_BARRIER_ALGORITHM: 'shm_hierarchical' },
      timeoutMs: 45000,
    });
    expect(run.stderr).not.toContain('[test harness] killed');
    expect(run.code).not.toBe(0);
    const pids = run.stdout.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l).pid as number);
    expect(pids).toHaveLength(np);
    // The launcher has returned; its ranks may still be on their way out (or zombies being reaped).
    expect(await pollUntilEmpty(() => pids.filter((pid) => isRunning(pid)))).toEqual([]);
    expect(leftovers(pids)).toEqual([]);
  });
});

describe('two concurrent jobs on one host (openmpi)', () => {
  it('both pass and leave nothing in /dev/shm', async () => {
    const runs = await Promise.all([runNode('openmpi', 3, {}), runNode('openmpi', 3, { TOPOCOLL_VIRTUAL_NODES: 'block:2' })]);
    for (const run of runs) expectAllChecked(run, 3);
  });
});

describe('switches and introspection (openmpi)', () => {
  it('TOPOCOLL_SHM=0: a forced shm algorithm fails under TOPOCOLL_FALLBACK=error, naming the switch', async () => {
    const run = await runNode('openmpi', 2, { TOPOCOLL_SHM: '0' });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/TOPOCOLL_BARRIER_ALGORITHM=shm_hierarchical cannot run this call: shared memory is off \(TOPOCOLL_SHM=0\)/);
  });

  it('TOPOCOLL_SHM=0 with TOPOCOLL_FALLBACK=silent: the system MPI runs the calls, no segment is made', async () => {
    const run = await runNode('openmpi', 3, { TOPOCOLL_SHM: '0', TOPOCOLL_FALLBACK: 'silent' });
    expectAllChecked(run, 3);
    // Only alltoall tiled (no shared memory) stays ours; the others fell back to native.
    expect(run.stderr).toMatch(/rank 0 barrier +native +calls/);
    expect(run.stderr).toMatch(/rank 0 bcast +native +calls/);
    expect(run.stderr).toMatch(/rank 0 alltoall +tiled +calls/);
  });

  it('topocoll info prints the rank table, the caches sysfs lists and the shared memory', async () => {
    const cli = path.join(repoRoot, 'bin/topocoll.js');
    const [text, json] = await Promise.all([
      mpirun({ flavour: 'openmpi', np: 3, args: [process.execPath, cli, 'info'], env: { TOPOCOLL_VIRTUAL_NODES: 'block:2' } }),
      mpirun({ flavour: 'openmpi', np: 2, args: [process.execPath, cli, 'info', '--json'] }),
    ]);
    expectSuccess(text);
    expect(text.stdout).toContain('3 ranks on 2 nodes (virtual nodes');
    expect(text.stdout).toMatch(/rank +host +node +socket +numa +core +cpu +bound +vnode/);
    expect(text.stdout).toMatch(/\n +2 +\S+ +1 +\d+ +\d+ +\d+ +\d+ +(none|core|socket) +1\n/);
    expect(text.stdout).toMatch(/caches of rank 0's CPU:\n +(level +type +size|\(none found in \/sys)/);
    expect(text.stdout).toMatch(/shared memory:\n +4 channels/);
    expectSuccess(json);
    const report = JSON.parse(json.stdout);
    expect(report.size).toBe(2);
    expect(report.hierarchy.ranks.map((r: { node: number }) => r.node)).toEqual([0, 0]);
    expect(report.hierarchy.nodeCount).toBe(1);
    // The caches are the ones this host's sysfs lists for rank 0's CPU, however many (none on
    // some VMs and containers); the shared cache is sized only when there is one.
    const cpu = report.hierarchy.ranks[0].cpu as number;
    const cacheDir = `/sys/devices/system/cpu/cpu${cpu}/cache`;
    const listed = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((d) => /^index\d+$/.test(d) && fs.existsSync(path.join(cacheDir, d, 'size'))) : [];
    expect(report.hierarchy.caches).toHaveLength(listed.length);
    for (const c of report.hierarchy.caches) expect(c.bytes).toBeGreaterThan(0);
    // The shared cache: the data or unified cache of the highest level; none without caches.
    type Cache = { level: number; type: string; bytes: number };
    const data = (report.hierarchy.caches as Cache[]).filter((c) => c.type !== 'Instruction');
    expect(report.hierarchy.sharedCacheBytes).toBe(data.length === 0 ? 0 : data.reduce((a, c) => (c.level >= a.level ? c : a)).bytes);
    expect(report.hierarchy.shm.available).toBe(true);
    expect(report.algorithms.bcast).toContain('shm_numa');
  });

  it('a machine whose sysfs lists no caches: info says so, and the tiled alltoall still delivers every byte', async () => {
    // A sysfs with the CPUs' topology and no cache directories (TOPOCOLL_SYSFS_ROOT).
    const sysfs = fs.mkdtempSync(path.join(os.tmpdir(), 'topocoll-sysfs-'));
    const real = '/sys/devices/system/cpu';
    for (const cpu of fs.readdirSync(real).filter((d) => /^cpu\d+$/.test(d))) {
      const dir = path.join(sysfs, 'devices/system/cpu', cpu, 'topology');
      fs.mkdirSync(dir, { recursive: true });
      for (const f of ['physical_package_id', 'core_id']) {
        // Read and write: copyFileSync spins on sysfs files (they claim 4096 bytes and hold fewer).
        if (fs.existsSync(path.join(real, cpu, 'topology', f))) fs.writeFileSync(path.join(dir, f), fs.readFileSync(path.join(real, cpu, 'topology', f)));
      }
    }
    const env = { TOPOCOLL_SYSFS_ROOT: sysfs };
    const cli = path.join(repoRoot, 'bin/topocoll.js');
    const [text, json, job] = await Promise.all([
      mpirun({ flavour: 'openmpi', np: 2, args: [process.execPath, cli, 'info'], env }),
      mpirun({ flavour: 'openmpi', np: 2, args: [process.execPath, cli, 'info', '--json'], env }),
      runNode('openmpi', 3, env),
    ]);
    expectSuccess(text);
    expect(text.stdout).toContain("caches of rank 0's CPU:\n  (none found in /sys/devices/system/cpu/cpuN/cache: the tiled alltoall uses 256 KiB tiles)");
    expect(text.stdout).not.toContain('last-level cache');
    expect(text.stdout).toMatch(/shared memory:\n +4 channels/);
    expectSuccess(json);
    const report = JSON.parse(json.stdout);
    expect(report.hierarchy.caches).toEqual([]);
    expect(report.hierarchy.sharedCacheBytes).toBe(0);
    expect(report.hierarchy.shm.available).toBe(true);
    expectAllChecked(job, 3);
    expectAlgorithmsRan(job, 3, SHM_ALGORITHMS);
    fs.rmSync(sysfs, { recursive: true, force: true });
  });
});

// How a waiting rank idles: it yields its core only where the world's ranks on a kernel outnumber
// the CPUs they may run on (the union of their affinities, no more than their cgroup's CPU limit,
// read under TOPOCOLL_SYSFS_ROOT/fs/cgroup). `info --json` shows the verdict.
describe('the waiting policy (kernelShare)', () => {
  const cli = path.join(repoRoot, 'bin/topocoll.js');
  type Kernel = { ranks: number; cpus: number; cpuLimit: number; yields: boolean };
  const kernelOf = (run: MpiRun): Kernel => {
    expectSuccess(run);
    return JSON.parse(run.stdout).hierarchy.kernel;
  };
  // A sysfs whose cgroup allows `cpus` CPUs' worth of time (cgroup v2 and v1 files alike).
  const limitedSysfs = (quota: number, period = 100000) => {
    const sysfs = fs.mkdtempSync(path.join(os.tmpdir(), 'topocoll-cgroup-'));
    fs.mkdirSync(path.join(sysfs, 'fs/cgroup/cpu'), { recursive: true });
    fs.writeFileSync(path.join(sysfs, 'fs/cgroup/cpu.max'), `${quota} ${period}\n`);
    fs.writeFileSync(path.join(sysfs, 'fs/cgroup/cpu/cpu.cfs_quota_us'), `${quota}\n`);
    fs.writeFileSync(path.join(sysfs, 'fs/cgroup/cpu/cpu.cfs_period_us'), `${period}\n`);
    return sysfs;
  };

  it('one rank never yields; its CPUs are those it may run on', async () => {
    const k = kernelOf(await mpirun({ flavour: 'openmpi', np: 1, args: [process.execPath, cli, 'info', '--json'] }));
    expect(k.ranks).toBe(1);
    expect(k.cpus).toBeGreaterThanOrEqual(1);
    expect(k.cpus).toBeLessThanOrEqual(os.availableParallelism());
    expect(k.yields).toBe(false);
  });

  it.each(FLAVOURS)('%s: a cgroup limit of 1.5 CPUs counts as 2, of 1 CPU makes 2 ranks yield, on virtual nodes too; collectives deliver every byte while yielding', async (flavour) => {
    const [oneAndHalf, one] = [limitedSysfs(150000), limitedSysfs(100000)];
    const info = (sysfs: string, env: Record<string, string> = {}) =>
      mpirun({ flavour, np: 2, args: [process.execPath, cli, 'info', '--json'], env: { TOPOCOLL_SYSFS_ROOT: sysfs, ...env }, timeoutMs: timeoutMs(flavour) });
    const [wide, narrow, split] = [await info(oneAndHalf), await info(one), await info(one, { TOPOCOLL_VIRTUAL_NODES: 'block:1' })];
    expect(kernelOf(wide)).toMatchObject({ ranks: 2, cpuLimit: 2 });
    expect(kernelOf(wide).yields).toBe(kernelOf(wide).cpus < 2);
    expect(kernelOf(narrow)).toEqual({ ranks: 2, cpus: 1, cpuLimit: 1, yields: true });
    expect(kernelOf(split)).toEqual({ ranks: 2, cpus: 1, cpuLimit: 1, yields: true });
    const job = await runNode(flavour, 2, { TOPOCOLL_SYSFS_ROOT: one }, flavour === 'mpich' ? 0.5 : 1);
    expectAllChecked(job, 2);
    expectAlgorithmsRan(job, 2, SHM_ALGORITHMS);
    for (const dir of [oneAndHalf, one]) fs.rmSync(dir, { recursive: true, force: true });
  });
});
