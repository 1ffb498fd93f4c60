// `topocoll simulate` end to end (no MPI launch): table, JSON, sweep files, and errors that name
// what is wrong. Schedules are the real C++ builders'.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UsageError } from '../../src/config/args';
import { explainCall } from '../../src/cli/explain';
import { simulate } from '../../src/cli/simulate';
import { alltoallLongTime, loadProfile, registeredAlgorithms } from '../../src/model';

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
    lines.push(a.join(' '));
  });
  try {
    const code = await simulate.run(args);
    return { code, out: lines.join('\n') };
  } finally {
    spy.mockRestore();
  }
}

describe('topocoll simulate', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('--json says what was simulated and prints one row per registered algorithm with the documented fields', async () => {
    const { code, out } = await run(['--coll', 'allgather', '--np', '24', '--ppn', '8', '--bytes', '1K', '--json', '--quiet']);
    expect(code).toBe(0);
    const doc = JSON.parse(out);
    expect(doc).toMatchObject({ collective: 'allgather', ranks: 24, ppn: 8, nodes: 3, bytes: 1024, model: 'hockney' });
    expect(doc.machine).toMatchObject({ name: 'bxj', given: 'bxj', kind: 'profile' });
    const rows = doc.rows as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.algorithm)).toEqual(registeredAlgorithms('allgather'));
    for (const r of rows) {
      expect(r.predicted_us).toBeGreaterThan(0);
      expect(Number.isInteger(r.rounds)).toBe(true);
      expect(r.bytes).toBeGreaterThan(0);
      expect(typeof r.alcd).toBe('number');
    }
    const ring = rows.find((r) => r.algorithm === 'ring')!;
    // Every rank receives 23 blocks of 1 KiB, one at a time from its left neighbour.
    expect(ring.bytes).toBe(24 * 23 * 1024);
    expect(ring.alcd).toBeCloseTo(2 - 2 / 24, 12);
  });

  it('reproduces seed 002 eq. (2) for pairwise alltoall on BXJ (the old model)', async () => {
    const { out } = await run(['--coll', 'alltoall', '--algorithm', 'pairwise', '--np', '512', '--ppn', '8', '--bytes', '4K', '--json', '--quiet']);
    const [row] = JSON.parse(out).rows;
    const eq2 = alltoallLongTime(loadProfile('bxj'), { p: 512, blockBytes: 4096, ppn: 8 }) * 1e6;
    expect(row.predicted_us / eq2).toBeGreaterThan(0.97);
    expect(row.predicted_us / eq2).toBeLessThan(1.03);
  });

  it('prints a table that marks the fastest algorithm', async () => {
    const { code, out } = await run(['--coll', 'bcast', '--np', '16', '--bytes', '64K', '--machine', 'bxj', '--quiet']);
    expect(code).toBe(0);
    expect(out).toMatch(/^bcast on 16 ranks, 12 per node, 64 KiB message; machine bxj, hockney model/);
    expect(out).toMatch(/algorithm\s+predicted\s+rounds\s+bytes\s+messages\s+ALCD/);
    expect(out).toMatch(/binomial/);
    expect(out.split('\n').filter((l) => /^\S+ \*/.test(l))).toHaveLength(1);
  });

  it('--sweep writes the JSON and an SVG plot of every algorithm over the sizes', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'topocoll-sim-'));
    dirs.push(dir);
    const { code } = await run(['--coll', 'alltoall', '--algorithm', 'all', '--np', '8,32', '--ppn', '4', '--bytes', '16,1K,64K', '--sweep', '--out', dir, '--quiet']);
    expect(code).toBe(0);
    const doc = JSON.parse(readFileSync(path.join(dir, 'simulate-alltoall.json'), 'utf8'));
    const algorithms = registeredAlgorithms('alltoall');
    expect(doc.points).toHaveLength(2 * 3 * algorithms.length);
    expect(new Set(doc.points.map((p: { np: number }) => p.np))).toEqual(new Set([8, 32]));
    const svg = readFileSync(path.join(dir, 'simulate-alltoall.svg'), 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    for (const a of algorithms) expect(svg).toContain(`${a} (np 32)`);
    expect((svg.match(/<path /g) ?? []).length).toBe(2 * algorithms.length);
  });

  it('contention model: needs rho, and a higher load predicts a longer time', async () => {
    await expect(run(['--coll', 'alltoall', '--np', '64', '--model', 'contention'])).rejects.toThrow(/--model contention needs --rho/);
    const at = async (rho: string) =>
      JSON.parse((await run(['--coll', 'alltoall', '--algorithm', 'pairwise', '--np', '64', '--ppn', '8', '--bytes', '16K', '--model', 'contention', '--rho', rho, '--json', '--quiet'])).out).rows[0]
        .predicted_us as number;
    expect(await at('0.9')).toBeGreaterThan(await at('0.5'));
  });

  it('names the bad argument', async () => {
    await expect(run(['--coll', 'allgather', '--np', '8', '--algorithm', 'bogus'])).rejects.toThrow(/--algorithm: bogus names no allgather algorithm; valid choices: ring/);
    await expect(run(['--coll', 'allgather', '--np', '8', '--algorithm', 'ring,brück'])).rejects.toThrow(/--algorithm: brück names no allgather algorithm; did you mean bruck\?; valid choices: ring/);
    await expect(run(['--coll', 'allgather', '--np', '8', '--algorithm', 'ring,all'])).rejects.toThrow(/--algorithm=ring,all: all stands alone/);
    await expect(run(['--coll', 'allgather', '--np', '8', '--machine', '/nonexistent/m.yaml'])).rejects.toThrow(/\/nonexistent\/m.yaml: cannot read/);
    await expect(run(['--coll', 'allgather'])).rejects.toThrow(UsageError);
    await expect(run(['--coll', 'allgather', '--np', '8', '--rho', '1.5'])).rejects.toThrow(/--rho=1.5 must be a number in \[0, 1\)/);
  });

  it('--algorithm takes a list, in its order', async () => {
    const { out } = await run(['--coll', 'allgather', '--np', '16', '--ppn', '4', '--algorithm', 'bruck,ring', '--json', '--quiet']);
    expect(JSON.parse(out).rows.map((r: { algorithm: string }) => r.algorithm)).toEqual(['bruck', 'ring']);
  });

  it('--machine takes a topology file (with --ppn) and predicts what the same levels as a profile predict', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'topocoll-sim-'));
    dirs.push(dir);
    const topology = path.join(__dirname, '..', '..', 'examples', 'topology', 'two-level.yaml');
    await expect(run(['--coll', 'allgather', '--np', '16', '--machine', topology])).rejects.toThrow(/--machine=.*two-level.yaml is a topology file, which does not say how many ranks a node holds: give --ppn/);
    // The same machine written as a profile: the node's level copies at its bandwidth, as the conversion assumes.
    const profile = path.join(dir, 'two-level-profile.yaml');
    writeFileSync(
      profile,
      [
        'name: two-level',
        'node: {sockets: 1, cores_per_socket: 4}',
        'levels:',
        '  - {name: node, scope: node, latency: 2 us, bandwidth: 4 GB/s}',
        '  - {name: network, scope: system, latency: 15 us, bandwidth: 1 Gbit/s}',
        'copy_bandwidth: 4 GB/s',
      ].join('\n'),
    );
    const args = ['--coll', 'allgather', '--np', '16', '--ppn', '4', '--bytes', '4K', '--json', '--quiet'];
    const fromTopology = JSON.parse((await run([...args, '--machine', topology])).out);
    const fromProfile = JSON.parse((await run([...args, '--machine', profile])).out);
    expect(fromTopology.machine).toMatchObject({ name: 'two-level', kind: 'topology', given: topology });
    expect(fromProfile.machine.kind).toBe('profile');
    expect(fromTopology.rows.length).toBeGreaterThan(3);
    fromTopology.rows.forEach((r: { algorithm: string; predicted_us: number }, i: number) => {
      expect(r.algorithm).toBe(fromProfile.rows[i].algorithm);
      expect(r.predicted_us / fromProfile.rows[i].predicted_us).toBeCloseTo(1, 9);
    });
    const text = (await run(['--coll', 'allgather', '--np', '16', '--ppn', '4', '--machine', topology, '--quiet'])).out;
    expect(text).toMatch(/^allgather on 16 ranks, 4 per node, 8 B per rank block; machine two-level \(topology file .*two-level.yaml\), hockney model$/m);
  });

  it('reports progress on stderr when it is not a terminal: a line at the start, every few seconds, and at the end', () => {
    const cli = (extra: string[]) =>
      spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'bin', 'topocoll.js'), 'simulate', '--coll', 'allgather', '--np', '64', '--ppn', '8', '--bytes', '1K', ...extra], {
        encoding: 'utf8',
        timeout: 120_000,
      });
    const r = cli([]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stderr.trim().split('\n');
    // No carriage returns in a log: whole lines only.
    expect(r.stderr).not.toContain('\r');
    expect(lines[0]).toMatch(/^simulate: allgather on 64 ranks, 1 KiB: ring \(1\/\d+\), (checking the schedules|building schedules|timing)/);
    expect(lines[lines.length - 1]).toMatch(/^simulate: done in \d+ s$/);
    expect(r.stdout).toMatch(/^allgather on 64 ranks/);
    const quiet = cli(['--quiet']);
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
  });

  // Stored launches of `topocoll bench --json` on the emulated cluster (docs/models.md).
  const stored = (n: number) => path.join(__dirname, '..', '..', 'docs', 'data', 'model-compare', `cluster-4x2-${n}.json`);

  it('--compare puts every measured algorithm next to its prediction and counts the pairs ordered as measured', async () => {
    const { code, out } = await run(['--compare', `${stored(1)},${stored(2)}`, '--machine', 'emulated-cluster', '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(out);
    expect([result.np, result.ppn]).toEqual([8, 2]);
    const algorithms = new Set(result.cells.map((c: { algorithm: string }) => c.algorithm));
    for (const a of registeredAlgorithms('allgather')) expect(algorithms).toContain(a);
    expect(algorithms).not.toContain('native');
    for (const c of result.cells) {
      expect(c.launches).toBe(2);
      expect(c.predicted_us).toBeGreaterThan(0);
      expect(c.lowest_us).toBeLessThanOrEqual(c.measured_us);
    }
    const { same, reversed, tied, pairs } = result.agreement;
    expect(same + reversed + tied).toBe(pairs.length);
    expect(same).toBeGreaterThan(reversed);
    const text = (await run(['--compare', stored(3), '--machine', 'emulated-cluster'])).out;
    expect(text).toMatch(/^1 bench report \(loop timing\) of 8 ranks, 2 per node/);
    expect(text).toMatch(/pairs measured more than 20% apart: \d+; the model orders \d+ the same way/);
    expect(text).toMatch(/of them apart in the same order in every launch: \d+; the model orders \d+ the same way/);
  });

  it('--compare names a file that is not a bench report', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'topocoll-compare-'));
    dirs.push(dir);
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '{"records": []}');
    await expect(run(['--compare', bad])).rejects.toThrow(/bad.json is not a bench report/);
    await expect(run(['--compare', path.join(dir, 'missing.json')])).rejects.toThrow(/cannot read .*missing.json/);
  });
});

describe('topocoll explain: the engine model', () => {
  it('shows a prediction per candidate and, under TOPOCOLL_SELECT=model, chooses the fastest', () => {
    const saved = process.env.TOPOCOLL_SELECT;
    try {
      delete process.env.TOPOCOLL_SELECT;
      const byRules = explainCall('alltoall', 16, 8, { ppn: 8 });
      expect(byRules.chosen.reason).not.toMatch(/^model:/);
      expect(byRules.ppn).toBe(8);
      for (const c of byRules.candidates) expect(c.predicted_us, c.algorithm).toBeGreaterThan(0);
      const fastest = byRules.candidates.reduce((a, b) => (b.predicted_us! < a.predicted_us! ? b : a));

      process.env.TOPOCOLL_SELECT = 'model';
      const byModel = explainCall('alltoall', 16, 8, { ppn: 8 });
      expect(byModel.chosen.algorithm).toBe(fastest.algorithm);
      expect(byModel.chosen.reason).toMatch(/^model: smallest predicted time/);
    } finally {
      if (saved === undefined) delete process.env.TOPOCOLL_SELECT;
      else process.env.TOPOCOLL_SELECT = saved;
    }
  });

  it('rejects a bad TOPOCOLL_SELECT naming the valid choices', () => {
    const saved = process.env.TOPOCOLL_SELECT;
    try {
      process.env.TOPOCOLL_SELECT = 'fastest';
      expect(() => explainCall('bcast', 4, 8)).toThrow(/TOPOCOLL_SELECT.*rules, model|rules.*model/);
    } finally {
      if (saved === undefined) delete process.env.TOPOCOLL_SELECT;
      else process.env.TOPOCOLL_SELECT = saved;
    }
  });
});
