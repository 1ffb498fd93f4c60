// TOPOCOLL_TOPOLOGY under mpirun: a Node program (TypeScript reads YAML and hands it to the
// engine, a .json file goes to the engine as it is) and a C program with the preload library (the engine reads JSON itself at MPI_Init).
// A good file is resolved for the job's hosts and its virtual nodes reach the hierarchy
// detection; a bad one stops the job at init with file:line: key, on every MPI.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, repoRoot, type Flavour, ranksStdout, mpicc } from '../helpers/mpirun';

const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-topology-mpi-'));
const file = (name: string, text: string) => {
  const f = path.join(tmp, name);
  writeFileSync(f, text);
  return f;
};

// Three levels on one host: the host's shared memory, and virtual nodes of two ranks.
const VNODES_YAML = file('vnodes.yaml', [
  'levels:',
  '  - {name: network, scope: system, latency: 15 us, bandwidth: 1 Gbit/s}',
  '  - {name: node, scope: host, latency: 1 us, bandwidth: 10 GB/s}',
  '  - {name: pair, scope: virtual_node, latency: 0.5 us, bandwidth: 20 GB/s}',
  'virtual_nodes: block:2',
  '',
].join('\n'));
const VNODES_JSON = file('vnodes.json', JSON.stringify({
  levels: [
    { name: 'network', scope: 'system', latency: 1.5e-5, bandwidth: 1.25e8 },
    { name: 'node', scope: 'host', latency: 1e-6, bandwidth: 1e10 },
    { name: 'pair', scope: 'virtual_node', latency: 5e-7, bandwidth: 2e10 },
  ],
  virtual_nodes: 'block:2',
}, null, 2));
const BAD_YAML = file('bad.yaml', ['levels:', '  - name: network', '    scope: rack', '    latency: 15 us', '    bandwidth: 1 Gbit/s', ''].join('\n'));
const NO_GROUP_YAML = file('groups.yaml', [
  'levels:',
  '  - {name: network, scope: system, latency: 15 us, bandwidth: 1 Gbit/s}',
  '  - {name: rack, scope: group, latency: 5 us, bandwidth: 10 Gbit/s}',
  '# hosts of the job must be listed',
  'groups:',
  '  not-this-host: r1',
  '',
].join('\n'));
const BAD_JSON = file('bad.json', '{\n  "levels": [\n    {"name": "network", "scope": "system", "latency": "15 us", "bandwidth": "1 Gbit/s"},\n  ]\n}\n');
const BAD_SCOPE_JSON = file('scope.json', '{"levels": [\n{"name": "network", "scope": "rack",\n "latency": 1, "bandwidth": 1}]}\n');
const NO_GROUP_JSON = file('groups.json', JSON.stringify({
  levels: [{ name: 'network', scope: 'system', latency: 0, bandwidth: 1 }, { name: 'rack', scope: 'group', latency: 0, bandwidth: 2 }],
  groups: { 'not-this-host': 'r1' },
}, null, 2));

const NP: Record<Flavour, number> = { openmpi: 5, mpich: 3 };
const TIMEOUT = 60_000;

describe.each(FLAVOURS)('TOPOCOLL_TOPOLOGY in a Node program (%s)', (flavour) => {
  // YAML is read by TypeScript and handed over; a .json file goes to the engine's reader as it is.
  it.each([['YAML', VNODES_YAML], ['JSON', VNODES_JSON]])('a %s file is resolved by the engine as TypeScript resolves it, and its virtual nodes reach the hierarchy', async (_, topology) => {
    const np = NP[flavour];
    const run = await mpirun({ flavour, np, args: ['test/mpi/programs/topology-world.js'], env: { TOPOCOLL_TOPOLOGY: topology }, timeoutMs: TIMEOUT });
    expectSuccess(run);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(np);
    for (const l of lines) {
      expect(l.levels).toEqual(['network', 'node', 'pair']);
      expect(l.nativeZ).toEqual(l.tsZ);
      // One host: ranks meet at `node` (1), or at `pair` (2) within a block of two.
      for (let p = 0; p < np; p++) for (let q = 0; q < np; q++) expect(l.nativeZ[p][q]).toBe(Math.floor(p / 2) === Math.floor(q / 2) ? 2 : 1);
      expect(l.virtualNodes).toEqual(Array.from({ length: np }, (_, r) => Math.floor(r / 2)));
    }
  });

  it('a bad YAML file stops the job before MPI_Init with file:line: key', async () => {
    const run = await mpirun({ flavour, np: 2, args: ['test/mpi/programs/topology-world.js'], env: { TOPOCOLL_TOPOLOGY: BAD_YAML }, timeoutMs: TIMEOUT });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`${BAD_YAML}:3: levels[0].scope: "rack" is not valid; valid choices: system, group, host, virtual_node`);
    expect(ranksStdout(run)).toBe('');
  });

  it('a bad .json file stops the job before MPI_Init with the engine\'s message, naming its line', async () => {
    const run = await mpirun({ flavour, np: 2, args: ['test/mpi/programs/topology-world.js'], env: { TOPOCOLL_TOPOLOGY: BAD_SCOPE_JSON }, timeoutMs: TIMEOUT });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`${BAD_SCOPE_JSON}:2: levels[0].scope: "rack" is not valid; valid choices: system, group, host, virtual_node`);
    expect(run.stdout).toBe('');
  });

  it('a YAML file that does not fit the job stops it at init, naming the line of the YAML file', async () => {
    const run = await mpirun({ flavour, np: 2, args: ['test/mpi/programs/topology-world.js'], env: { TOPOCOLL_TOPOLOGY: NO_GROUP_YAML }, timeoutMs: TIMEOUT });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`topocoll: ${NO_GROUP_YAML}:5: groups: host "${hostname()}" (rank 0) is in no group; groups names the hosts not-this-host`);
    expect(ranksStdout(run)).toBe('');
  });
});

describe('TOPOCOLL_TOPOLOGY and TOPOCOLL_VIRTUAL_NODES together', () => {
  it('are refused: one map of virtual nodes at a time', async () => {
    const run = await mpirun({ flavour: FLAVOURS[0], np: 2, args: ['test/mpi/programs/topology-world.js'], env: { TOPOCOLL_TOPOLOGY: VNODES_YAML, TOPOCOLL_VIRTUAL_NODES: 'block:1' }, timeoutMs: TIMEOUT });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`${VNODES_YAML}:5: virtual_nodes: the topology file and TOPOCOLL_VIRTUAL_NODES both map ranks to virtual nodes; keep one`);
  });
});

describe.each(FLAVOURS)('TOPOCOLL_TOPOLOGY in a C program with the preload library (%s)', (flavour) => {
  let program = '';
  const preload = path.join(repoRoot, 'lib/native', flavour, 'libtopocoll.so');
  const preloadArgs = flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${preload}`] : ['-genv', 'LD_PRELOAD', preload];
  const np = flavour === 'mpich' ? 2 : 3;
  const runC = (topology: string, env: Record<string, string> = {}) =>
    mpirun({ flavour, np, args: [program], mpirunArgs: preloadArgs, env: { TOPOCOLL_TOPOLOGY: topology, TOPOCOLL_ALLGATHER_ALGORITHM: 'ring', ...env }, timeoutMs: TIMEOUT });

  beforeAll(() => {
    program = path.join(tmp, `topology-init-${flavour}`);
    execFileSync(mpicc(flavour), ['-O1', '-o', program, path.join(repoRoot, 'test/mpi/programs/topology-init.c')]);
  });

  it('a good JSON file: the job runs, allgather and allreduce bytes right', async () => {
    const run = await runC(VNODES_JSON);
    expectSuccess(run);
    expect(run.stdout.trim().split('\n').sort()).toEqual(Array.from({ length: np }, (_, r) => `ok ${r}`).sort());
  });

  // The model's predicted time of the traced 1 MiB allreduce with `topology`.
  const predicted = async (topology: string) => {
    const run = await runC(topology, { TOPOCOLL_SELECT: 'model', TOPOCOLL_VERBOSE: '1' });
    expectSuccess(run);
    expect(run.stdout.trim().split('\n').sort()).toEqual(Array.from({ length: np }, (_, r) => `ok ${r}`).sort());
    const line = run.stderr.split('\n').find((l) => l.includes(' allreduce 1048576 B -> '));
    const us = /model: smallest predicted time, ([\d.]+) us/.exec(line ?? '');
    expect(us, `no model choice traced for the allreduce:\n${run.stderr}`).not.toBeNull();
    return Number(us![1]);
  };
  const oneLevel = (name: string, extra: Record<string, string>) =>
    file(name, JSON.stringify({ levels: [{ name: 'node', scope: 'system', latency: '0.4 us', bandwidth: '8 GB/s' }], ...extra }));

  it("reduce_bandwidth reaches the engine's model: a slower combine, a longer predicted allreduce", async () => {
    // The same levels, γ = 1 ns/B against 0.01 ns/B; the trace names the model's predicted time.
    const slow = await predicted(oneLevel('gamma-slow.json', { reduce_bandwidth: '1 GB/s' }));
    const fast = await predicted(oneLevel('gamma-fast.json', { reduce_bandwidth: '100 GB/s' }));
    expect(slow).toBeGreaterThan(fast);
  });

  it("round_overhead and copy_bandwidth (a machine profile's keys) reach the engine's model", async () => {
    // Every algorithm has a round: 1 ms per round makes every prediction longer than any without.
    const base = { reduce_bandwidth: '100 GB/s' };
    const plain = await predicted(oneLevel('plain.json', base));
    const rounds = await predicted(oneLevel('rounds.json', { ...base, round_overhead: '1 ms' }));
    expect(rounds).toBeGreaterThan(plain + 1000);
    // Copies at 1 MB/s instead of the level's 8 GB/s: on 3 ranks every algorithm copies (the best
    // then costs 531 against 274 us); on 2 (MPICH) the best copies nothing.
    const copies = await predicted(oneLevel('copies.json', { ...base, copy_bandwidth: '1 MB/s' }));
    if (np > 2) expect(copies).toBeGreaterThan(plain);
    else expect(copies).toBeGreaterThanOrEqual(plain);
  });

  const failures: Array<[string, () => string, string]> = [
    ['invalid JSON', () => BAD_JSON, `topocoll: ${BAD_JSON}:4: not valid JSON: trailing comma before ']'`],
    ['an invalid scope', () => BAD_SCOPE_JSON, `topocoll: ${BAD_SCOPE_JSON}:2: levels[0].scope: "rack" is not valid; valid choices: system, group, host, virtual_node`],
    ['a YAML file', () => VNODES_YAML, `topocoll: ${VNODES_YAML}: this looks like YAML; the engine reads topology files as JSON only when no Node runs the program (a preloaded C/Fortran program): convert it with \`npx topocoll topology --json ${VNODES_YAML} > topology.json\``],
    ['a missing file', () => path.join(tmp, 'missing.json'), `topocoll: ${path.join(tmp, 'missing.json')}: cannot read the topology file (No such file or directory)`],
    ['a host in no group', () => NO_GROUP_JSON, `topocoll: ${NO_GROUP_JSON}:16: groups: host "${hostname()}" (rank 0) is in no group; groups names the hosts not-this-host`],
  ];
  it.each(failures)('%s stops the job at MPI_Init with one message naming the file and line', async (_, topology, message) => {
    const run = await runC(topology());
    expect(run.code).not.toBe(0);
    expect(ranksStdout(run)).toBe('');
    expect(run.stderr).toContain(message);
    // Rank 0 alone prints it.
    expect(run.stderr.split(message).length - 1).toBe(1);
  });
});
