// The emulated cluster (topocoll cluster up|run|down): 4 network namespaces as hosts behind a
// shaped bridge. A Node job across them sees 4 distinct hosts, ranks of one host share its
// network namespace and the engine's shared-memory node, the engine resolves the topology file
// by host, allgather bytes are right (every algorithm, the four remapped ones included, on the
// communicators split off the world: even, uneven and interleaved host layouts), the hierarchical
// allreduce and reduce and the ring allreduce give the rank-order sums on the same layouts, and the bytes
// between hosts go through the shaped links.
// `down` leaves nothing behind, and a failed `up` removes what it made.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterCommand, clusterDown, clusterLinkCounters, clusterPids, clusterRun, clusterState, clusterStopJobs, clusterUp, type ClusterState, type ClusterRunOptions } from '../../src/cli/cluster';
import { FLAVOURS, pollUntilEmpty, repoRoot } from '../helpers/mpirun';

const NAME = `t${process.pid % 100000}`;
const HOSTS = 4;
const SLOTS = 2;
const PROGRAM = 'test/mpi/programs/cluster-allgather.js';
const TWO_LEVEL = path.join(repoRoot, 'examples/topology/two-level.yaml');

const namespaces = (name: string) => (spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' }).stdout ?? '').split('\n').map((l) => l.split(' ')[0]).filter((n) => n.startsWith(`${name}-`));
const defaultLinks = () => (spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout ?? '').split('\n').map((l) => l.split(':')[1]?.trim()).filter(Boolean).sort();
const netnsFiles = (name: string) => (existsSync('/etc/netns') ? readdirSync('/etc/netns').filter((d) => d.startsWith(`${name}-`)) : []);

interface RankLine {
  rank: number;
  size: number;
  host: string;
  netns: string;
  address: string;
  hosts: string[];
  netnses: string[];
  addresses: string[];
  nodes: number[];
  z: number[][] | null;
  /** Allgathers checked: every p, 7 algorithms (the 4 remapped ones), 2 sizes. */
  checked: number;
  /** Hierarchical allreduces and reduces, ring and multi-leader allreduces run: every p, 2 sizes each. */
  reduced: number;
  bad: unknown[];
}

/**
 * Runs the program across the cluster and returns each rank's JSON line, in rank order.
 * `finalizeGraceMs`: once every rank has printed its line, a job still running after this long
 * is stopped (its processes in the cluster's namespaces are killed) and counted as hung in
 * MPI_Finalize: MPICH 4.0.2 over UCX 1.13's TCP transport sometimes never completes the
 * disconnect of its endpoints there (openucx/ucx#8738). Without it, only a clean exit passes.
 */
function runOnCluster(state: ClusterState, opts: ClusterRunOptions, env: Record<string, string>, finalizeGraceMs?: number): Promise<{ lines: RankLine[]; hungInFinalize: boolean }> {
  const [cmd, args, runEnv] = clusterCommand(state, [PROGRAM], opts);
  const np = opts.np ?? state.hosts.length * state.slots;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repoRoot, env: { ...process.env, TOPOCOLL_FALLBACK: 'error', ...runEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let hungInFinalize = false;
    let grace: NodeJS.Timeout | undefined;
    // The sweeps of a stop end before this run resolves: left running, they would kill the next job.
    let stopped: Promise<unknown> = Promise.resolve();
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
      stopped = clusterStopJobs(state);
    };
    child.stdout.on('data', (d) => {
      stdout += d;
      if (finalizeGraceMs !== undefined && !grace && stdout.split('\n').filter((l) => l.startsWith('{')).length === np) {
        grace = setTimeout(() => {
          hungInFinalize = true;
          stop();
        }, finalizeGraceMs);
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    // Far more than a job takes (seconds), even on a loaded machine; below the test's 120 s.
    const timer = setTimeout(stop, 100_000);
    child.on('close', async (code) => {
      clearTimeout(timer);
      clearTimeout(grace);
      await stopped;
      if (code !== 0 && !hungInFinalize) return reject(new Error(`cluster run exited ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
      const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as RankLine).sort((a, b) => a.rank - b.rank);
      resolve({ lines, hungInFinalize });
    });
  });
}

describe('the emulated cluster', () => {
  let state: ClusterState;
  let linksBefore: string[];

  beforeAll(() => {
    linksBefore = defaultLinks();
    state = clusterUp({ name: NAME, hosts: HOSTS, slots: SLOTS, rate: '1gbit' }, true);
  });

  afterAll(() => {
    // Idempotent: the last test downs it already; this covers a failure before that.
    clusterDown(NAME, true);
  });

  it('is up: 4 hosts, each in its own namespace, with its hostfile entry and /etc/hosts', () => {
    expect(state.hosts).toEqual([0, 1, 2, 3].map((i) => `${NAME}-h${i}`));
    expect(namespaces(NAME).sort()).toEqual([...state.hosts, `${NAME}-sw`].sort());
    expect(clusterState(NAME)).toEqual(state);
    expect(netnsFiles(NAME).sort()).toEqual(state.hosts);
    // Nothing was added to this machine's own network namespace.
    expect(defaultLinks()).toEqual(linksBefore);
  });

  it('refuses a second `up` of the same cluster and leaves the first intact', () => {
    expect(() => clusterUp({ name: NAME }, true)).toThrow(/bringing up/);
    expect(namespaces(NAME)).toHaveLength(HOSTS + 1);
  });

  const mapBys: Array<['slot' | 'node', number]> = [['slot', 8], ['node', 7]];
  it.each(mapBys)('Open MPI, --map-by %s, %i ranks: 4 distinct hosts, shared memory within a host, topology by host, bytes right', async (mapBy, np) => {
    const before = clusterLinkCounters(state);
    const { lines } = await runOnCluster(state, { np, mapBy }, { TOPOCOLL_TOPOLOGY: TWO_LEVEL, TOPOCOLL_ALLGATHER_ALGORITHM: 'ring' });
    const after = clusterLinkCounters(state);
    expect(lines.map((l) => l.rank)).toEqual([...Array(np).keys()]);
    // Where each rank should be: consecutive pairs (slot) or dealt round-robin (node).
    const expectedHost = (r: number) => state.hosts[mapBy === 'slot' ? Math.floor(r / SLOTS) : r % HOSTS];
    for (const l of lines) {
      expect(l.bad).toEqual([]);
      expect(l.checked).toBe(np * 7 * 2);
      expect(l.reduced).toBe(np * 4 * 2);
      expect(l.size).toBe(np);
      expect(l.host).toBe(expectedHost(l.rank));
      expect(l.hosts).toEqual([...Array(np).keys()].map(expectedHost));
      expect(new Set(l.hosts).size).toBe(HOSTS);
      expect(l.address).toBe(`${state.subnet}.${state.hosts.indexOf(l.host) + 1}`);
      for (let p = 0; p < np; p++) {
        for (let q = 0; q < np; q++) {
          const same = l.hosts[p] === l.hosts[q];
          // One network namespace per emulated host ...
          expect(l.netnses[p] === l.netnses[q]).toBe(same);
          // ... one shared-memory node per host for the engine ...
          expect(l.nodes[p] === l.nodes[q]).toBe(same);
          // ... and the topology file resolved by host: z = 1 (node) or 0 (network).
          expect(l.z![p][q]).toBe(same ? 1 : 0);
        }
      }
    }
    // The largest allgather (65536 int32 per rank) brought every host the blocks of the ranks
    // on other hosts through its shaped link: at least that many bytes arrived on each.
    const block = 65536 * 4;
    state.hosts.forEach((h, i) => {
      const remote = lines.filter((l) => l.host !== h).length;
      expect(after[i].receivedBytes - before[i].receivedBytes).toBeGreaterThan(remote * block);
      expect(after[i].sentBytes - before[i].sentBytes).toBeGreaterThan(block);
    });
  });

  it('topocoll info on the cluster shows the topology file resolved by host: tree and z(p, q)', async () => {
    const [cmd, args, runEnv] = clusterCommand(state, [path.join(repoRoot, 'bin/topocoll.js'), 'info', '--no-shm'], { np: 8, mapBy: 'node' });
    const r = spawnSync(cmd, args, { cwd: repoRoot, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...runEnv, TOPOCOLL_TOPOLOGY: TWO_LEVEL } });
    expect(r.status, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toContain('topology (TOPOCOLL_TOPOLOGY):');
    expect(out).toContain(`${TWO_LEVEL}: "two-level"`);
    for (let h = 0; h < HOSTS; h++) expect(out).toContain(`node ${NAME}-h${h}: ranks ${h},${h + 4}  [host, 2 us, 4 GB/s]`);
    // Round-robin: rank 1 shares host 1 with rank 5 only.
    expect(out).toMatch(/\n\s+1 0 1 0 0 0 1 0 0\n/);
    expect(out).toContain('rank pairs per level: network 24, node 4');
  });

  if (FLAVOURS.includes('mpich')) {
    it('MPICH (hydra through the same agent), 3 ranks: hosts, namespaces and bytes', async () => {
      const { lines, hungInFinalize } = await runOnCluster(state, { np: 3, mapBy: 'node', mpi: 'mpich' }, { TOPOCOLL_ALLGATHER_ALGORITHM: 'ring' }, 10_000);
      if (hungInFinalize) console.warn('MPICH job hung in MPI_Finalize after a complete run (UCX TCP disconnect, openucx/ucx#8738); stopped');
      // Stopped or not, nothing of the job is left in the cluster (killed processes take a moment).
      expect(await pollUntilEmpty(() => clusterPids(state))).toEqual([]);
      expect(lines.map((l) => l.rank)).toEqual([0, 1, 2]);
      expect(lines.map((l) => l.host)).toEqual(state.hosts.slice(0, 3));
      for (const l of lines) {
        expect(l.bad).toEqual([]);
        expect(l.checked).toBe(3 * 7 * 2);
        expect(new Set(l.netnses).size).toBe(3);
        expect(l.z).toBeNull();
      }
    });
  }

  it('run --timeout stops a job that overruns, everywhere in the cluster, and reports 124', async () => {
    // `sleep 60` on every host: a 124 before the minute is out is the timeout's doing.
    const started = Date.now();
    const code = await clusterRun(state, ['sleep', '60'], { np: HOSTS, mapBy: 'node', timeoutSeconds: 2 });
    expect(code).toBe(124);
    expect(Date.now() - started).toBeLessThan(55_000);
    // clusterRun reports 124 once its sweeps found the namespaces empty; poll anyway, generously,
    // so that a process on its way out on a loaded machine is not mistaken for one left behind.
    expect(await pollUntilEmpty(() => clusterPids(state))).toEqual([]);
  }, 120_000);

  it('down removes every namespace, link, /etc/netns entry and the state', () => {
    clusterDown(NAME, true);
    expect(namespaces(NAME)).toEqual([]);
    expect(netnsFiles(NAME)).toEqual([]);
    expect(clusterState(NAME)).toBeNull();
    expect(defaultLinks()).toEqual(linksBefore);
    // Down again is harmless.
    expect(() => clusterDown(NAME, true)).not.toThrow();
  });

  it('an interrupted up (SIGTERM half-way) removes what it had made', async () => {
    const child = spawn(path.join(repoRoot, 'scripts/cluster/up.sh'), [NAME, '40', '1gbit', '10.77.0', '1'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    // Wait until it has made some hosts, then interrupt it.
    for (const until = Date.now() + 30_000; Date.now() < until && namespaces(NAME).length < 3; ) await new Promise((r) => setTimeout(r, 50));
    expect(namespaces(NAME).length).toBeGreaterThanOrEqual(3);
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    expect(stderr).toMatch(/bringing up "t\d+" failed; removing what was created/);
    expect(namespaces(NAME)).toEqual([]);
    expect(netnsFiles(NAME)).toEqual([]);
    expect(clusterState(NAME)).toBeNull();
    expect(defaultLinks()).toEqual(linksBefore);
  });

  it('a failing up (tc refuses the rate) removes what it had made', () => {
    const r = spawnSync(path.join(repoRoot, 'scripts/cluster/up.sh'), [NAME, '2', '1zbit', '10.77.0', '1'], { encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/bringing up "t\d+" failed; removing what was created/);
    expect(namespaces(NAME)).toEqual([]);
    expect(netnsFiles(NAME)).toEqual([]);
    expect(clusterState(NAME)).toBeNull();
    expect(defaultLinks()).toEqual(linksBefore);
  });
});
