// TOPOCOLL_RULES under mpirun: a Node program (TypeScript reads YAML or JSON and installs it) and
// a C program with the preload library (the engine reads JSON at MPI_Init). The first matching
// rule chooses and TOPOCOLL_VERBOSE names its file and line; a forced algorithm outranks the
// rules and setAlgorithm outranks both; a bad file stops the job at init with file:line: key.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, repoRoot, type Flavour, ranksStdout, mpicc } from '../helpers/mpirun';

const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-rules-mpi-'));
const file = (name: string, text: string) => {
  const f = path.join(tmp, name);
  writeFileSync(f, text);
  return f;
};
const TIMEOUT = 60_000;

// Blocks below 100 B on 2 ranks: bruck; 100 B and up: neighbor_exchange (neither is a default for p = 2).
const RULES_YAML = file('rules.yaml', [
  'version: 1',
  'machine: {hostname: test}',
  'rules:',
  '  - collective: bcast',
  '    algorithm: native',
  '  - collective: allgather',
  '    algorithm: bruck',
  '    basis: block',
  '    maxBytes: 100',
  '    minRanks: 2',
  '    maxRanks: 2',
  '    why: small blocks',
  '  - {collective: allgather, algorithm: neighbor_exchange, basis: total, minBytes: 200, maxRanks: 2}',
  '',
].join('\n'));
const RULES_JSON = file('rules.json', [
  '{',
  '  "version": 1,',
  '  "rules": [',
  '    {"collective": "allgather", "algorithm": "neighbor_exchange", "basis": "block", "maxBytes": 100, "why": "json rule"}',
  '  ]',
  '}',
  '',
].join('\n'));
const BAD_KEY_YAML = file('bad.yaml', ['version: 1', 'rules:', '  - collective: allgather', '    algorithm: ring', '    colour: red', ''].join('\n'));
const BAD_KEY_JSON = file('bad.json', '{\n  "version": 1,\n  "rules": [\n    {"collective": "allgather",\n     "algorithm": "ring", "colour": "red"}\n  ]\n}\n');
const NO_BASIS_JSON = file('nobasis.json', '{"version": 1, "rules": [\n  {"collective": "allgather", "algorithm": "ring", "maxBytes": 64}\n]}\n');
const RULE_KEYS = 'valid keys: collective, algorithm, basis, minBytes, maxBytes, minRanks, maxRanks, powerOfTwo, multiNode, nonblocking, minNodes, maxNodes, minRanksPerNode, maxRanksPerNode, mpi, why';

describe.each(FLAVOURS)('TOPOCOLL_RULES in a Node program (%s)', (flavour: Flavour) => {
  const node = (env: Record<string, string>, n = 3) =>
    mpirun({ flavour, np: 2, args: ['test/mpi/programs/engine-allgather.js', String(n)], env: { TOPOCOLL_VERBOSE: '1', ...env }, timeoutMs: TIMEOUT });

  it('a YAML rule chooses, and the trace names the YAML line', async () => {
    const small = await node({ TOPOCOLL_RULES: RULES_YAML });
    expectSuccess(small);
    for (const line of small.stdout.trim().split('\n')) expect(JSON.parse(line).bad).toEqual([]);
    expect(small.stderr).toContain(`allgather 12 B/block -> bruck (rules file ${RULES_YAML}:6: small blocks)`);
    // 30 ints = 120 B per block, 240 B in all: the total-basis rule.
    const large = await node({ TOPOCOLL_RULES: RULES_YAML }, 30);
    expectSuccess(large);
    expect(large.stderr).toContain(`allgather 120 B/block -> neighbor_exchange (rules file ${RULES_YAML}:13)`);
  });

  it('a forced algorithm outranks the rules, and setAlgorithm outranks both', async () => {
    const forced = await node({ TOPOCOLL_RULES: RULES_YAML, TOPOCOLL_ALLGATHER_ALGORITHM: 'ring' });
    expectSuccess(forced);
    expect(forced.stderr).toContain('allgather 12 B/block -> ring (forced by TOPOCOLL_ALLGATHER_ALGORITHM)');
    const run = await mpirun({ flavour, np: 2, args: ['test/mpi/programs/bench-override.js', 'recursive_doubling'], env: { TOPOCOLL_VERBOSE: '1', TOPOCOLL_RULES: RULES_YAML, TOPOCOLL_ALLGATHER_ALGORITHM: 'ring' }, timeoutMs: TIMEOUT });
    expectSuccess(run);
    for (const line of run.stdout.trim().split('\n')) {
      const r = JSON.parse(line);
      expect(r).toMatchObject({ forced: 'recursive_doubling', okForced: true, fallback: null, cleared: null, okCleared: true });
      expect(r.badName).toMatch(/^setAlgorithm: "no_such_algorithm" is not an algorithm of allgather; valid choices: auto, native, ring, /);
    }
    expect(run.stderr).toContain('allgather 12 B/block -> recursive_doubling (forced by setAlgorithm (run-time override))');
    // Cleared: the environment's choice again.
    expect(run.stderr).toContain('allgather 1200 B/block -> ring (forced by TOPOCOLL_ALLGATHER_ALGORITHM)');
  });

  it('a bad key stops the job before MPI_Init with file:line: key and the valid keys', async () => {
    const run = await node({ TOPOCOLL_RULES: BAD_KEY_YAML });
    expect(run.code).not.toBe(0);
    expect(ranksStdout(run)).toBe('');
    expect(run.stderr).toContain(`TOPOCOLL_RULES: ${BAD_KEY_YAML}:5: rules[0].colour: unknown key; ${RULE_KEYS}`);
  });
});

describe.each(FLAVOURS)('TOPOCOLL_RULES in a C program with the preload library (%s)', (flavour: Flavour) => {
  let program = '';
  const preload = path.join(repoRoot, 'lib/native', flavour, 'libtopocoll.so');
  const preloadArgs = flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${preload}`] : ['-genv', 'LD_PRELOAD', preload];
  const runC = (rules: string) =>
    mpirun({ flavour, np: 2, args: [program], mpirunArgs: preloadArgs, env: { TOPOCOLL_RULES: rules, TOPOCOLL_VERBOSE: '1' }, timeoutMs: TIMEOUT });

  beforeAll(() => {
    // The topology test's program: MPI_Init, then one checked allgather of one int per rank.
    program = path.join(tmp, `rules-init-${flavour}`);
    execFileSync(mpicc(flavour), ['-O1', '-o', program, path.join(repoRoot, 'test/mpi/programs/topology-init.c')]);
  });

  it('a JSON file is read at MPI_Init and its rule chooses', async () => {
    const run = await runC(RULES_JSON);
    expectSuccess(run);
    expect(run.stdout.trim().split('\n').sort()).toEqual(['ok 0', 'ok 1']);
    expect(run.stderr).toContain(`allgather 4 B/block -> neighbor_exchange (rules file ${RULES_JSON}:4: json rule)`);
  });

  const failures: Array<[string, string, string]> = [
    ['a bad key', BAD_KEY_JSON, `TOPOCOLL_RULES: ${BAD_KEY_JSON}:5: rules[0].colour: unknown key; ${RULE_KEYS}`],
    ['bytes without a basis', NO_BASIS_JSON, `TOPOCOLL_RULES: ${NO_BASIS_JSON}:2: rules[0].basis: missing: a rule with minBytes or maxBytes must say whether they count one rank's block ("block") or all a rank receives ("total")`],
    ['a YAML file', RULES_YAML, `TOPOCOLL_RULES: ${RULES_YAML}: this looks like YAML; the engine reads rules files as JSON only when no Node runs the program (a preloaded C/Fortran program): convert it with \`npx topocoll tune --convert ${RULES_YAML} > rules.json\``],
    ['a missing file', path.join(tmp, 'missing.json'), `TOPOCOLL_RULES: ${path.join(tmp, 'missing.json')}: cannot read the rules file (No such file or directory)`],
    ['a directory', tmp, `TOPOCOLL_RULES: ${tmp}: is a directory, not a rules file`],
  ];
  it.each(failures)('%s stops the job at MPI_Init naming the file and line', async (_, rules, message) => {
    const run = await runC(rules);
    expect(run.code).not.toBe(0);
    expect(ranksStdout(run)).toBe('');
    expect(run.stderr).toContain(message);
  });
});

// A rule `topocoll tune` wrote for a placement selects the same in Node and in the preload: two
// saved sweeps of 2 ranks, on one node (bruck fastest) and on two (neighbor_exchange fastest),
// give rules on nodes; TOPOCOLL_VIRTUAL_NODES=block:1 puts the 2 ranks on 2 nodes.
describe.each(FLAVOURS)('tuned rules on placement in Node and in the preload (%s)', (flavour: Flavour) => {
  let rules = '';
  let program = '';
  beforeAll(() => {
    const sweep = (nodes: number, fastest: string) => ({
      format: 'topocoll-bench', version: 1, created: '2026-11-26T08:00:00Z', generator: 'topocoll test',
      machine: { hostname: 'box', cpuModel: 'cpu', cpus: 2, memoryBytes: 1, os: 'linux', node: 'v20', loadAverage: 0 },
      mpi: { flavour, library: flavour }, job: { ranks: 2, nodes, ranksPerNode: nodes === 1 ? [2] : [1, 1] },
      options: { collectives: ['allgather'], algorithms: [], sizes: [8, 1024], repetitions: 3, targetUs: 1000, rotateBytes: 0, check: false, root: 0 },
      records: [8, 1024].flatMap((bytes) => ['native', 'bruck', 'neighbor_exchange', 'ring'].map((algorithm) => {
        const m = algorithm === fastest ? 5 : 20;
        return { collective: 'allgather', algorithm, bytes, basis: 'block', ranks: 2, iterations: 10, repetitions: 3, times_us: [m, m, m], min_us: m, median_us: m, max_us: m, relative_spread: 0.01, speedup_vs_native: null, check: 'off', errors: 0 };
      })),
      skipped: [],
    });
    const one = file(`${flavour}-one-node.json`, JSON.stringify(sweep(1, 'bruck')));
    const two = file(`${flavour}-two-nodes.json`, JSON.stringify(sweep(2, 'neighbor_exchange')));
    rules = path.join(tmp, `${flavour}-placement.rules.json`);
    execFileSync(process.execPath, [path.join(repoRoot, 'bin/topocoll.js'), 'tune', '--from', one, two, '--output', rules]);
    program = path.join(tmp, `placement-${flavour}`);
    execFileSync(mpicc(flavour), ['-O1', '-o', program, path.join(repoRoot, 'test/mpi/programs/topology-init.c')]);
  });

  // "allgather N B/block -> ALGORITHM (rules file FILE:LINE: ...)": the algorithm and the rule's line.
  const choice = (stderr: string) => /allgather \d+ B\/block -> (\w+) \(rules file [^:]+:(\d+): tune: /.exec(stderr)?.slice(1, 3);

  it.each([['one node', 'bruck', {}], ['two nodes', 'neighbor_exchange', { TOPOCOLL_VIRTUAL_NODES: 'block:1' }]] as const)('%s: %s, the same rule in both', async (_, expected, placement) => {
    const env = { TOPOCOLL_RULES: rules, TOPOCOLL_VERBOSE: '1', ...placement };
    const node = await mpirun({ flavour, np: 2, args: ['test/mpi/programs/engine-allgather.js', '3'], env, timeoutMs: TIMEOUT });
    expectSuccess(node);
    for (const line of node.stdout.trim().split('\n')) expect(JSON.parse(line).bad).toEqual([]);
    const preloadArgs = flavour === 'openmpi' ? ['-x', `LD_PRELOAD=${path.join(repoRoot, 'lib/native', flavour, 'libtopocoll.so')}`] : ['-genv', 'LD_PRELOAD', path.join(repoRoot, 'lib/native', flavour, 'libtopocoll.so')];
    const c = await mpirun({ flavour, np: 2, args: [program], mpirunArgs: preloadArgs, env, timeoutMs: TIMEOUT });
    expectSuccess(c);
    expect(c.stdout.trim().split('\n').sort()).toEqual(['ok 0', 'ok 1']);
    const inNode = choice(node.stderr);
    expect(inNode?.[0], node.stderr).toBe(expected);
    expect(choice(c.stderr), c.stderr).toEqual(inNode);
  });
});
