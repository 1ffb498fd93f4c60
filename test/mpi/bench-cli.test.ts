// `topocoll bench` and `topocoll tune` end to end under real mpirun (--quick): the table, the
// JSON against schemas/bench.schema.json with every received byte checked, the SVG plots, and a
// rules file from `tune` that a following job loads with TOPOCOLL_RULES and reports under
// TOPOCOLL_VERBOSE.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitHockney } from '../../src/bench/calibrate';
import { median } from '../../src/bench/stats';
import { validateSchema } from '../../src/bench/json-schema';
import type { BenchReport } from '../../src/bench/sweep';
import { ruleMatches } from '../../src/bench/tune';
import { COLLECTIVES } from '../../src/select/registry';
import { parseRules } from '../../src/select/rules';
import { loadTopology } from '../../src/topology';
import { expectSuccess, FLAVOURS, mpirun, repoRoot, runJob, type Flavour, type MpiRun } from '../helpers/mpirun';

const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-bench-'));
const BENCH_SCHEMA = JSON.parse(readFileSync(path.join(repoRoot, 'schemas/bench.schema.json'), 'utf8'));
const RULES_SCHEMA = JSON.parse(readFileSync(path.join(repoRoot, 'schemas/rules.schema.json'), 'utf8'));
const TIMEOUT = 90_000;

/** `topocoll ARGS` as a user types it: not under mpirun, so --np makes it launch itself. */
const topocoll = (args: string[], env: Record<string, string> = {}): Promise<MpiRun> =>
  runJob(process.execPath, [path.join(repoRoot, 'bin/topocoll.js'), ...args], { cwd: tmp, env, timeoutMs: TIMEOUT });

describe.each(FLAVOURS)('topocoll bench --quick (%s)', (flavour: Flavour) => {
  it('measures every registered algorithm against native, checks the data, writes JSON that matches the schema and plots', async () => {
    const json = path.join(tmp, `bench-${flavour}.json`);
    const svg = path.join(tmp, `svg-${flavour}`);
    const run = await topocoll(['bench', '--np', '2', '--mpi', flavour, '--quick', '--check', '--json', json, '--svg', svg, '--time-ms', '1']);
    expectSuccess(run);
    // The table: one section per collective, the best algorithm and its speedup per size.
    for (const c of COLLECTIVES) expect(run.stdout).toContain(`# ${c.name} (size: `);
    expect(run.stdout).toMatch(/^ {2}64K +[\d.]+ .* \d+\.\d\dx$/m);

    const report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    expect(validateSchema(BENCH_SCHEMA, report)).toEqual([]);
    expect(report.mpi.flavour).toBe(flavour);
    expect(report.job).toEqual({ ranks: 2, nodes: 1, ranksPerNode: [2] });
    expect(report.records.length).toBeGreaterThan(0);
    for (const r of report.records) {
      expect(r.check, `${r.collective} ${r.algorithm} ${r.bytes}`).toBe('ok');
      expect(r.min_us).toBeLessThanOrEqual(r.median_us);
      expect(r.median_us).toBeLessThanOrEqual(r.max_us);
      expect(r.times_us).toHaveLength(3);
    }
    // Every algorithm with a builder was measured (or reported as unable to run), at every size.
    for (const c of COLLECTIVES) {
      const sizes = c.name === 'barrier' ? [0] : [1, 64, 4096, 65536];
      const measured = new Set(report.records.filter((r) => r.collective === c.name).map((r) => r.algorithm));
      const skipped = new Set(report.skipped.filter((s) => s.collective === c.name).map((s) => s.algorithm));
      expect(measured.has('native') && measured.has('auto')).toBe(true);
      for (const a of measured) {
        expect(report.records.filter((r) => r.collective === c.name && r.algorithm === a).map((r) => r.bytes)).toEqual(sizes);
      }
      expect(measured.size + skipped.size).toBeGreaterThanOrEqual(3);
      const native = report.records.filter((r) => r.collective === c.name && r.algorithm === 'native');
      for (const r of native) expect(r.speedup_vs_native).toBe(1);
    }
    const plots = readdirSync(svg).sort();
    expect(plots).toEqual(['allgather-latency.svg', 'allgather-speedup.svg', 'alltoall-latency.svg', 'alltoall-speedup.svg', 'bcast-latency.svg', 'bcast-speedup.svg']);
    const latency = readFileSync(path.join(svg, 'allgather-latency.svg'), 'utf8');
    expect(latency.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(latency).toContain('>ring</text>');
    expect(latency.match(/<path /g)!.length).toBe(new Set(report.records.filter((r) => r.collective === 'allgather').map((r) => r.algorithm)).size);
  });
});

describe('topocoll bench and tune options', () => {
  it('refuses a bad option before launching anything, naming it and the valid choices', async () => {
    const run = await topocoll(['bench', '--collectives', 'allgather,scan']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('topocoll bench: --collectives: "scan" is not a collective; valid choices: allgather, bcast, barrier, alltoall');
    const sizes = await topocoll(['tune', '--sizes', '8..1']);
    expect(sizes.code).toBe(2);
    expect(sizes.stderr).toContain('topocoll tune: --sizes=8..1: need 1 <= MIN <= MAX');
  });
});

describe('topocoll bench with an algorithm that cannot run', () => {
  it('reports it as not measured instead of timing native under its name', async () => {
    const json = path.join(tmp, 'noshm.json');
    const run = await topocoll(['bench', '--np', '2', '--mpi', FLAVOURS[0], '--quick', '--collectives', 'barrier', '--json', json], { TOPOCOLL_SHM: '0' });
    expectSuccess(run);
    expect(run.stdout).toContain('#   barrier shm_hierarchical: shared memory is off (TOPOCOLL_SHM=0)');
    const report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    expect(validateSchema(BENCH_SCHEMA, report)).toEqual([]);
    expect(report.skipped).toEqual([{ collective: 'barrier', algorithm: 'shm_hierarchical', why: 'shared memory is off (TOPOCOLL_SHM=0)' }]);
    expect(report.records.map((r) => r.algorithm)).toEqual(['native', 'dissemination', 'recursive_doubling', 'auto']);
  });
});

describe('topocoll tune (Open MPI)', () => {
  const flavour = FLAVOURS.includes('openmpi') ? 'openmpi' : FLAVOURS[0];

  it('writes a rules file that a following job loads with TOPOCOLL_RULES and reports under TOPOCOLL_VERBOSE', async () => {
    const rulesFile = path.join(tmp, 'tuned.json');
    const run = await topocoll(['tune', '--np', '2', '--mpi', flavour, '--quick', '--collectives', 'allgather,bcast', '--sizes', '8,1K,16K', '--time-ms', '1', '--output', rulesFile]);
    expectSuccess(run);
    expect(run.stdout).toContain(`wrote ${rulesFile} (`);
    expect(run.stdout).toMatch(/changes against the built-in defaults:|the built-in defaults are fastest/);
    expect(existsSync(rulesFile)).toBe(true);
    const text = readFileSync(rulesFile, 'utf8');
    expect(validateSchema(RULES_SCHEMA, JSON.parse(text))).toEqual([]);
    const rules = parseRules(text, rulesFile);
    expect(rules.file.job).toMatchObject({ ranks: 2, nodes: 1 });
    expect(rules.file.machine).toHaveProperty('hostname');
    // Full coverage of the measured shape: exactly one rule per collective matches each size.
    for (const coll of ['allgather', 'bcast'] as const) {
      for (const bytes of [8, 1024, 16384, 1 << 22]) {
        const total = coll === 'allgather' ? 2 * bytes : bytes;
        expect(rules.file.rules.filter((r) => r.collective === coll && ruleMatches(r, 2, bytes, total))).toHaveLength(1);
      }
    }

    // A Node job under the rules: 3 ints = 12 B per block.
    const expected = rules.file.rules.findIndex((r) => r.collective === 'allgather' && ruleMatches(r, 2, 12, 24));
    const job = await mpirun({ flavour, np: 2, args: ['test/mpi/programs/engine-allgather.js', '3'], env: { TOPOCOLL_RULES: rulesFile, TOPOCOLL_VERBOSE: '1' }, timeoutMs: TIMEOUT });
    expectSuccess(job);
    for (const line of job.stdout.trim().split('\n')) expect(JSON.parse(line).bad).toEqual([]);
    expect(job.stderr).toContain(`allgather 12 B/block -> ${rules.file.rules[expected].algorithm} (rules file ${rulesFile}:${rules.lines[expected]}: tune: `);
  });
});

describe.each(FLAVOURS)('topocoll bench --timing window (%s)', (flavour: Flavour) => {
  it('times one call from a common start: a bcast waits for its message there, while a loop lets the root run ahead', async () => {
    const args = ['bench', '--np', '2', '--mpi', flavour, '--collectives', 'bcast,barrier', '--algorithms', 'binomial,shm_hierarchical', '--sizes', '8,64K', '--repetitions', '3', '--time-ms', '2', '--quiet'];
    // Three launches of each, alternating: this VM's latencies shift between regimes (0.3 to
    // 0.7 us for one 8 B message) from one launch to the next, and one launch of each could
    // compare two regimes instead of two timings.
    const windowed: BenchReport[] = [];
    const looped: BenchReport[] = [];
    for (let launch = 0; launch < 3; launch++) {
      for (const [timing, reports] of [['window', windowed], ['loop', looped]] as const) {
        const json = path.join(tmp, `${timing}-${flavour}-${launch}.json`);
        expectSuccess(await topocoll([...args, '--timing', timing, '--json', json]));
        reports.push(JSON.parse(readFileSync(json, 'utf8')) as BenchReport);
      }
    }
    for (const w of windowed) {
      expect(validateSchema(BENCH_SCHEMA, w)).toEqual([]);
      expect(w.options.timing).toBe('window');
      for (const r of w.records) {
        expect(r.window_us).toBeGreaterThan(r.median_us);
        expect(r.late_calls).toBeGreaterThanOrEqual(0);
        expect(r.median_us).toBeGreaterThan(0);
      }
    }
    for (const l of looped) expect(l.records.every((r) => r.window_us === undefined)).toBe(true);
    const at = (reports: BenchReport[], collective: string, algorithm: string, bytes: number) =>
      median(reports.map((report) => report.records.find((r) => r.collective === collective && r.algorithm === algorithm && r.bytes === bytes)!.median_us));
    // 8 B binomial: in a loop the root's eager send returns at once and calls overlap; from a
    // common start the call lasts until rank 1 has the message.
    expect(at(windowed, 'bcast', 'binomial', 8)).toBeGreaterThan(at(looped, 'bcast', 'binomial', 8));
    expect(at(windowed, 'bcast', 'binomial', 65536)).toBeGreaterThan(at(windowed, 'bcast', 'binomial', 8));
  });
});

describe('bench/loaded.js', () => {
  it('measures a level\'s latency and LogGP gap with every pair talking at once', async () => {
    const run = await mpirun({ flavour: FLAVOURS[0], np: 2, args: [path.join(repoRoot, 'bench/loaded.js')], timeoutMs: TIMEOUT });
    expectSuccess(run);
    const { shm, network } = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(network).toBeUndefined(); // one host: no pair across hosts
    expect(shm.latencyUs).toBeGreaterThan(0);
    // Messages posted together overlap: one more of a burst costs less than a round trip's half.
    expect(shm.gapUs).toBeGreaterThan(0);
    expect(shm.gapUs).toBeLessThan(shm.latencyUs);
  });
});

describe('bench/exchange.js', () => {
  it('measures one pair, or every pair of a level at once, one way and both ways', async () => {
    const exchange = async (who: string, np: number) => {
      const run = await mpirun({ flavour: FLAVOURS[0], np, args: [path.join(repoRoot, 'bench/exchange.js'), who, '65536,262144'], timeoutMs: TIMEOUT });
      expectSuccess(run);
      return JSON.parse(run.stdout.trim().split('\n').pop()!);
    };
    const one = await exchange('1', 2);
    expect(one.pairs).toEqual([[0, 1]]);
    const all = await exchange('node', 4);
    expect(all.pairs).toEqual([[0, 1], [2, 3]]);
    for (const r of [one, all]) {
      expect(r.oneWayMiBps).toBeGreaterThan(0);
      expect(r.exchangeMiBps).toBeGreaterThan(0);
      for (const kind of ['oneWay', 'exchange']) expect(r.points[kind].map((p: number[]) => p[0])).toEqual([65536, 262144]);
    }
    // One host: no pair crosses the network, and the job says so.
    const none = await mpirun({ flavour: FLAVOURS[0], np: 2, args: [path.join(repoRoot, 'bench/exchange.js'), 'network'], timeoutMs: TIMEOUT });
    expect(none.code).not.toBe(0);
    expect(none.stderr + none.stdout).toMatch(/no pair of ranks to measure network \(the job needs two hosts\)/);
  });
});

describe('topocoll bench --calibrate', () => {
  it('fits latency and bandwidth robustly: one delayed size does not move them', () => {
    // 2 us + n / (1 GB/s), with 64 KiB delayed 30x as a loaded machine does.
    const points = [8, 64, 4096, 65536, 262144, 1048576, 4194304].map((n) => [n, 2 + n / 1000] as [number, number]);
    points[3][1] *= 30;
    const fit = fitHockney(points);
    expect(fit.latency).toBeCloseTo(2.008e-6, 9);
    expect(fit.bandwidth / 1e9).toBeCloseTo(1, 6);
  });

  it('writes a topology file with the measured level that the topology reader accepts', async () => {
    const out = path.join(tmp, 'calibrated.yaml');
    const run = await topocoll(['bench', '--calibrate', '--quick', '--np', '2', '--mpi', FLAVOURS[0], '--topology-out', out]);
    expectSuccess(run);
    expect(run.stdout).toMatch(/^node \(system, ranks 0 and 1\): latency [\d.]+ us, bandwidth \d+ MiB\/s, both ways at once \d+ MiB\/s each$/m);
    const t = loadTopology(out);
    expect(t.levels).toHaveLength(1);
    expect(t.levels[0]).toMatchObject({ name: 'node', scope: 'system' });
    expect(t.levels[0].latency).toBeGreaterThan(0);
    expect(t.levels[0].bandwidth).toBeGreaterThan(0);
    // Both ways at once, per direction: measured, and of the order of one way (not 3x it).
    expect(t.levels[0].exchangeBandwidth).toBeGreaterThan(0);
    expect(t.levels[0].exchangeBandwidth!).toBeLessThan(3 * t.levels[0].bandwidth);
    expect(readFileSync(out, 'utf8')).toMatch(/# both ways at once \(bytes each way: us\): 262144: [\d.]+/);
  });

  it('--timing window times one message as the window benchmark does, and measures the engine\'s round overhead', async () => {
    const out = path.join(tmp, 'calibrated-window.yaml');
    const run = await topocoll(['bench', '--calibrate', '--quick', '--timing', 'window', '--np', '2', '--mpi', FLAVOURS[0], '--topology-out', out]);
    expectSuccess(run);
    const overhead = /^round overhead \(the engine's work per schedule round\): ([\d.]+) us; copy bandwidth (\d+) MiB\/s$/m.exec(run.stdout);
    expect(overhead).not.toBeNull();
    // One round of a collective on one rank: more than nothing, far less than a message.
    expect(Number(overhead![1])).toBeLessThan(5);
    expect(Number(overhead![2])).toBeGreaterThan(100);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('from a common start until it is received');
    expect(text).toMatch(/round_overhead: [\d.e-]+ us/);
    expect(loadTopology(out).levels[0].latency).toBeGreaterThan(0);
  });
});
