// `topocoll bench` and `topocoll tune` end to end under real mpirun (--quick): the table, the
// JSON against schemas/bench.schema.json with every received byte checked, the SVG plots, and a
// rules file from `tune` that a following job loads with TOPOCOLL_RULES and reports under
// TOPOCOLL_VERBOSE.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fitHockney } from '../../src/bench/calibrate';
import type { BenchReport } from '../../src/bench/sweep';
import { COLLECTIVES } from '../../src/select/registry';
import { matchesCall } from '../../src/select/rules';
import { expectSuccess, FLAVOURS, mpirun, repoRoot, runJob, type Flavour, type MpiRun } from '../helpers/mpirun';
import { loadTopology, parseRules } from '../../src/mpi/files';
import { schemaErrors } from '../../src/config/schemas';

const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-bench-'));
const TIMEOUT = 90_000;
/** What bench runs by default: the collectives with algorithms of ours. */
const BENCHED = COLLECTIVES.filter((c) => c.algorithms.length > 0);

/**
 * `topocoll ARGS` as a user types it: not under mpirun, so --np makes it launch itself, with the
 * test machine's settings (2 cores, root).
 */
const topocoll = (args: string[], env: Record<string, string> = {}): Promise<MpiRun> =>
  runJob(process.execPath, [path.join(repoRoot, 'bin/topocoll.js'), ...args, ...(args.includes('--np') ? ['--test-machine'] : [])], { cwd: tmp, env, timeoutMs: TIMEOUT });

describe.each(FLAVOURS)('topocoll bench --quick (%s)', (flavour: Flavour) => {
  it('measures every registered algorithm against native, checks the data, writes JSON that matches the schema and plots', async () => {
    const json = path.join(tmp, `bench-${flavour}.json`);
    const svg = path.join(tmp, `svg-${flavour}`);
    const run = await topocoll(['bench', '--np', '2', '--mpi', flavour, '--quick', '--check', '--json', json, '--svg', svg, '--time-ms', '1']);
    expectSuccess(run);
    // The table: one section per collective, median (spread) per algorithm, the best algorithm
    // (or a tie) and its speedup per size, to 3 significant digits (≈: within the noise).
    for (const c of BENCHED) expect(run.stdout).toContain(`# ${c.name} (size: `);
    expect(run.stdout).toMatch(/^ {2}64K +[\d.]+ \([\d.]+\) .* ≈?\d[\d.]*x$/m);

    const report = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    expect(schemaErrors('bench', report)).toEqual([]);
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
    for (const c of BENCHED) {
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
    // Latency and speedup over the sizes of every collective but barrier (one size: no curve).
    const plotted = BENCHED.filter((c) => c.name !== 'barrier').flatMap((c) => [`${c.name}-latency.svg`, `${c.name}-speedup.svg`]);
    expect(plots).toEqual(plotted.sort());
    expect(plots).toContain('reduce_scatter-speedup.svg');
    const latency = readFileSync(path.join(svg, 'allgather-latency.svg'), 'utf8');
    expect(latency.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(latency).toContain('>ring</text>');
    // One line per algorithm, in a legend entry of its own; more than 8 lines are split into
    // panels that each repeat native and auto (test/unit/bench-plots.test.ts).
    const algorithms = new Set(report.records.filter((r) => r.collective === 'allgather').map((r) => r.algorithm));
    for (const a of algorithms) expect(latency).toContain(`>${a}</text>`);
    const panels = latency.match(/<g class="panel"/g)!.length;
    expect(panels > 1).toBe(algorithms.size > 8);
    expect(latency.match(/<path /g)!.length).toBe(algorithms.size + 2 * (panels - 1));
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
    expect(schemaErrors('bench', report)).toEqual([]);
    expect(report.skipped).toEqual([{ collective: 'barrier', algorithm: 'shm_hierarchical', why: 'shared memory is off (TOPOCOLL_SHM=0)' }]);
    expect(report.records.map((r) => r.algorithm)).toEqual(['native', 'dissemination', 'recursive_doubling', 'auto']);
  });
});

describe('topocoll bench progress off a terminal', () => {
  /** Rank 0's plain progress lines: the first step, one every few seconds, and the end. */
  function expectProgressLines(stderr: string, what: string) {
    expect(stderr).not.toContain('\r');
    const lines = stderr.split('\n').filter((l) => l.startsWith(`${what}: `));
    expect(lines[0]).toMatch(new RegExp(`^${what}: 1/(\\d+) steps \\(\\d+%\\), \\d+ s elapsed, about \\d+ s left: barrier native$`));
    const total = /1\/(\d+) steps/.exec(lines[0])![1];
    expect(lines[lines.length - 1]).toMatch(new RegExp(`^${what}: ${total}/${total} steps done in \\d+ s$`));
  }

  it('writes plain lines to stderr when launching itself with stderr piped, none with --quiet', async () => {
    const args = ['bench', '--np', '2', '--mpi', FLAVOURS[0], '--quick', '--collectives', 'barrier', '--time-ms', '1', '--no-svg'];
    const run = await topocoll(args);
    expectSuccess(run);
    expectProgressLines(run.stderr, 'bench');
    const quiet = await topocoll([...args, '--quiet']);
    expectSuccess(quiet);
    expect(quiet.stderr).not.toMatch(/^bench: /m);
  });

  it('writes plain lines under an mpirun whose stderr is a pipe (a batch job\'s log)', async () => {
    const run = await mpirun({
      flavour: FLAVOURS[0],
      np: 2,
      args: [path.join(repoRoot, 'bin/topocoll.js'), 'bench', '--quick', '--collectives', 'barrier', '--time-ms', '1', '--no-svg'],
      timeoutMs: TIMEOUT,
    });
    expectSuccess(run);
    expectProgressLines(run.stderr, 'bench');
  });

  it('and so does tune, under its own name', async () => {
    const run = await mpirun({
      flavour: FLAVOURS[0],
      np: 2,
      args: [path.join(repoRoot, 'bin/topocoll.js'), 'tune', '--quick', '--collectives', 'barrier', '--time-ms', '1', '--output', path.join(tmp, 'progress-rules.json')],
      timeoutMs: TIMEOUT,
    });
    expectSuccess(run);
    expectProgressLines(run.stderr, 'tune');
  });
});

describe('topocoll tune (Open MPI)', () => {
  const flavour = FLAVOURS.includes('openmpi') ? 'openmpi' : FLAVOURS[0];

  it('writes a rules file that a following job loads with TOPOCOLL_RULES and reports under TOPOCOLL_VERBOSE', async () => {
    const rulesFile = path.join(tmp, 'tuned.json');
    const run = await topocoll(['tune', '--np', '2', '--mpi', flavour, '--quick', '--collectives', 'allgather,bcast', '--sizes', '8,1K,16K', '--time-ms', '1', '--output', rulesFile]);
    expectSuccess(run);
    expect(run.stdout).toContain(`wrote ${rulesFile} (`);
    // Progress on stderr, a pipe here: plain lines, the last one the end of the sweep (with --np,
    // tune measures through launches of bench, whose lines they are).
    expect(run.stderr).not.toContain('\r');
    expect(run.stderr).toMatch(/^bench: 1\/\d+ steps \(\d+%\), \d+ s elapsed, about \d+ s left: allgather 8 B native$/m);
    expect(run.stderr).toMatch(/^bench: (\d+)\/\1 steps done in \d+ s$/m);
    expect(run.stdout).toMatch(/changes against the built-in defaults:|the built-in defaults are fastest/);
    // Where a faster algorithm was within the noise, the default was kept, and the output says so.
    for (const line of run.stdout.split('\n').filter((l) => l.includes('kept the default ('))) {
      expect(line).toMatch(/^ {2}(allgather|bcast)( [\d.]+ [KMG]?i?B(\.\.[\d.]+ [KMG]?i?B)?)?: kept the default \(\w+\): difference within noise \(it took [\d.]+%(\.\.[\d.]+%)? longer than [\w, ]+; noise [\d.]+%(\.\.[\d.]+%)?\)$/);
    }
    expect(existsSync(rulesFile)).toBe(true);
    const text = readFileSync(rulesFile, 'utf8');
    expect(schemaErrors('rules', JSON.parse(text))).toEqual([]);
    const rules = parseRules(text, rulesFile);
    expect(rules.file.job).toMatchObject({ ranks: 2, nodes: 1 });
    expect(rules.file.machine).toHaveProperty('hostname');
    // Full coverage of the measured shape: exactly one rule per collective matches each size.
    for (const coll of ['allgather', 'bcast'] as const) {
      for (const bytes of [8, 1024, 16384, 1 << 22]) {
        const total = coll === 'allgather' ? 2 * bytes : bytes;
        expect(rules.file.rules.filter((r) => matchesCall(r, { collective: coll, ranks: 2, blockBytes: bytes, totalBytes: total, nodes: 1, mpi: flavour }))).toHaveLength(1);
      }
    }

    // A Node job under the rules: 3 ints = 12 B per block.
    const expected = rules.file.rules.findIndex((r) => matchesCall(r, { collective: 'allgather', ranks: 2, blockBytes: 12, totalBytes: 24, nodes: 1, mpi: flavour }));
    const job = await mpirun({ flavour, np: 2, args: ['test/mpi/programs/engine-allgather.js', '3'], env: { TOPOCOLL_RULES: rulesFile, TOPOCOLL_VERBOSE: '1' }, timeoutMs: TIMEOUT });
    expectSuccess(job);
    for (const line of job.stdout.trim().split('\n')) expect(JSON.parse(line).bad).toEqual([]);
    expect(job.stderr).toContain(`allgather 12 B/block -> ${rules.file.rules[expected].algorithm} (rules file ${rulesFile}:${rules.lines[expected]}: tune: `);
  });
});

describe.each(FLAVOURS)('topocoll bench --timing window (%s)', (flavour: Flavour) => {
  // Whether a call from a common start outlasts one of a loop is a measurement, not a property a
  // test can hold on a loaded machine: `npm run bench:timing` compares them (docs/benchmarks.md).
  // Here: both timings run, and their reports are well formed.
  it('times calls from a common start: every cell measured or reported as overloaded, with its window and late calls', async () => {
    const sizes = [8, 65536];
    const args = ['bench', '--np', '2', '--mpi', flavour, '--collectives', 'bcast,barrier', '--algorithms', 'binomial,shm_hierarchical', '--sizes', sizes.join(','), '--repetitions', '3', '--time-ms', '2', '--quiet'];
    const reports: Record<'window' | 'loop', BenchReport> = {} as Record<'window' | 'loop', BenchReport>;
    for (const timing of ['window', 'loop'] as const) {
      const json = path.join(tmp, `${timing}-${flavour}.json`);
      expectSuccess(await topocoll([...args, '--timing', timing, '--json', json]));
      reports[timing] = JSON.parse(readFileSync(json, 'utf8')) as BenchReport;
    }
    for (const [timing, report] of Object.entries(reports)) {
      expect(schemaErrors('bench', report)).toEqual([]);
      expect(report.options.timing).toBe(timing);
      // Every cell is measured, or (window timing only) reported as not measured because every
      // call had a rank start late.
      const cells = [
        ...['native', 'binomial'].flatMap((algorithm) => sizes.map((bytes) => `bcast ${algorithm} ${bytes}`)),
        ...['native', 'shm_hierarchical'].map((algorithm) => `barrier ${algorithm} 0`),
      ].sort();
      const measured = report.records.map((r) => `${r.collective} ${r.algorithm} ${r.bytes}`);
      for (const s of report.skipped) {
        expect(timing).toBe('window');
        expect(s.why).toMatch(/^every timing window had a rank start late \(\d+ calls\): the machine is overloaded$/);
      }
      const skipped = report.skipped.flatMap((s) => (s.collective === 'barrier' ? [`barrier ${s.algorithm} 0`] : sizes.filter((b) => !measured.includes(`bcast ${s.algorithm} ${b}`)).map((b) => `bcast ${s.algorithm} ${b}`)));
      expect([...new Set([...measured, ...skipped])].sort()).toEqual(cells);
      for (const r of report.records) {
        expect(r.median_us).toBeGreaterThan(0);
        expect(r.min_us).toBeLessThanOrEqual(r.median_us);
        expect(r.median_us).toBeLessThanOrEqual(r.max_us);
        expect(r.times_us.length).toBe(r.repetitions);
        if (timing === 'loop') {
          expect(r.window_us).toBeUndefined();
          expect(r.late_calls).toBeUndefined();
        } else {
          // The window: 3 x the probe's time per call + 20 us.
          expect(r.window_us).toBeGreaterThan(20);
          expect(Number.isInteger(r.late_calls)).toBe(true);
          expect(r.late_calls).toBeGreaterThanOrEqual(0);
        }
      }
    }
  });
});

describe('bench/loaded.js', () => {
  it('measures a level\'s latency and LogGP gap with every pair talking at once', async () => {
    const run = await mpirun({ flavour: FLAVOURS[0], np: 2, args: [path.join(repoRoot, 'bench/loaded.js')], timeoutMs: TIMEOUT });
    expectSuccess(run);
    const { shm, network } = JSON.parse(run.stdout.trim().split('\n').pop()!);
    expect(network).toBeUndefined(); // one host: no pair across hosts
    // Two measured times; which is smaller (a burst's messages overlap, so the gap is normally
    // below the latency) is the benchmark's finding, not something a loaded machine keeps.
    expect(Object.keys(shm).sort()).toEqual(['gapUs', 'latencyUs']);
    for (const t of [shm.latencyUs, shm.gapUs]) expect(Number.isFinite(t) && t > 0).toBe(true);
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
      for (const kind of ['oneWay', 'exchange']) {
        expect(r.points[kind].map((p: number[]) => p[0])).toEqual([65536, 262144]);
        for (const [, us] of r.points[kind]) expect(Number.isFinite(us) && us > 0).toBe(true);
        // The slope between the two sizes, or null where noise made the larger size no slower.
        const [[n0, t0], [n1, t1]] = r.points[kind];
        const mibps = r[`${kind}MiBps`];
        if (t1 > t0) expect(mibps).toBeCloseTo((n1 - n0) / 1048576 / ((t1 - t0) * 1e-6), 6);
        else expect(mibps).toBeNull();
      }
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
    const level = /^node \(system, ranks 0 and 1\): latency [\d.]+ us, bandwidth \d+ MiB\/s, both ways at once (\d+ MiB\/s each|not measured \(the times did not grow with the size: too noisy a machine; the file leaves exchange_bandwidth out\))$/m.exec(run.stdout);
    expect(level).not.toBeNull();
    const t = loadTopology(out);
    expect(t.levels).toHaveLength(1);
    expect(t.levels[0]).toMatchObject({ name: 'node', scope: 'system' });
    expect(t.levels[0].latency).toBeGreaterThan(0);
    expect(t.levels[0].bandwidth).toBeGreaterThan(0);
    // Both ways at once, per direction: in the file where measured (how it compares with one way
    // is the finding), left out where the CLI says it was not.
    if (level![1].startsWith('not measured')) expect(t.levels[0].exchangeBandwidth).toBeUndefined();
    else expect(t.levels[0].exchangeBandwidth).toBeGreaterThan(0);
    expect(readFileSync(out, 'utf8')).toMatch(/# both ways at once \(bytes each way: us\): 262144: [\d.]+/);
    // γ, the engine's combine per byte, fitted over 64 KiB-4 MiB: a key the engine's model reads.
    const gamma = /^reduce ops \(float SUM, 64 KiB-4 MiB\): gamma ([\d.]+) ns per byte combined, (\d+) MiB\/s$/m.exec(run.stdout);
    expect(gamma).not.toBeNull();
    expect(Number(gamma![1])).toBeGreaterThan(0);
    expect(Number.isFinite(t.reduceBandwidth)).toBe(true);
    expect(t.reduceBandwidth).toBeGreaterThan(0);
  });

  it('--timing window times one message as the window benchmark does, and measures the engine\'s round overhead', async () => {
    const out = path.join(tmp, 'calibrated-window.yaml');
    const run = await topocoll(['bench', '--calibrate', '--quick', '--timing', 'window', '--np', '2', '--mpi', FLAVOURS[0], '--topology-out', out]);
    expectSuccess(run);
    const overhead = /^round overhead \(the engine's work per schedule round\): ([\d.]+) us; copy bandwidth (\d+) MiB\/s$/m.exec(run.stdout);
    expect(overhead).not.toBeNull();
    // Measured, not compared: how a round's overhead sets against a message is the finding.
    expect(Number(overhead![1])).toBeGreaterThanOrEqual(0);
    expect(Number(overhead![2])).toBeGreaterThan(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('from a common start until it is received');
    expect(text).toMatch(/round_overhead: [\d.e-]+ us/);
    expect(loadTopology(out).levels[0].latency).toBeGreaterThan(0);
  });
});
