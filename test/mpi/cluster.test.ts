// The emulated cluster (topocoll cluster up|run|down): 4 network namespaces as hosts behind a
// shaped bridge. A Node job across them sees 4 distinct hosts, ranks of one host share its
// network namespace and the engine's shared-memory node, the engine resolves the topology file
// by host, allgather bytes are right, and the bytes between hosts go through the shaped links.
// `down` leaves nothing behind, and a failed `up` removes what it made.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterCommand, clusterDown, clusterLinkCounters, clusterState, clusterUp, type ClusterState, type ClusterRunOptions } from '../../src/cli/cluster';
import { FLAVOURS, repoRoot } from '../helpers/mpirun';

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
  bad: unknown[];
}

/** Runs the program across the cluster and returns each rank's JSON line, in rank order. */
function runOnCluster(state: ClusterState, opts: ClusterRunOptions, env: Record<string, string>): Promise<RankLine[]> {
  const [cmd, args, runEnv] = clusterCommand(state, [PROGRAM], opts);
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repoRoot, env: { ...process.env, TOPOCOLL_FALLBACK: 'error', ...runEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`cluster run exited ${code}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`));
      resolve(stdout.trim().split('\n').map((l) => JSON.parse(l) as RankLine).sort((a, b) => a.rank - b.rank));
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
    const lines = await runOnCluster(state, { np, mapBy }, { TOPOCOLL_TOPOLOGY: TWO_LEVEL, TOPOCOLL_ALLGATHER_ALGORITHM: 'ring' });
    const after = clusterLinkCounters(state);
    expect(lines.map((l) => l.rank)).toEqual([...Array(np).keys()]);
    // Where each rank should be: consecutive pairs (slot) or dealt round-robin (node).
    const expectedHost = (r: number) => state.hosts[mapBy === 'slot' ? Math.floor(r / SLOTS) : r % HOSTS];
    for (const l of lines) {
      expect(l.bad).toEqual([]);
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

  if (FLAVOURS.includes('mpich')) {
    it('MPICH (hydra through the same agent), 3 ranks: hosts, namespaces and bytes', async () => {
      const lines = await runOnCluster(state, { np: 3, mapBy: 'node', mpi: 'mpich' }, { TOPOCOLL_ALLGATHER_ALGORITHM: 'ring' });
      expect(lines.map((l) => l.host)).toEqual(state.hosts.slice(0, 3));
      for (const l of lines) {
        expect(l.bad).toEqual([]);
        expect(new Set(l.netnses).size).toBe(3);
        expect(l.z).toBeNull();
      }
    });
  }

  it('down removes every namespace, link, /etc/netns entry and the state', () => {
    clusterDown(NAME, true);
    expect(namespaces(NAME)).toEqual([]);
    expect(netnsFiles(NAME)).toEqual([]);
    expect(clusterState(NAME)).toBeNull();
    expect(defaultLinks()).toEqual(linksBefore);
    // Down again is harmless.
    expect(() => clusterDown(NAME, true)).not.toThrow();
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
