// `topocoll explain` (no MPI launch; the real C++ builders): the schedule columns follow the
// node layout of --ppn, --topology and TOPOCOLL_TOPOLOGY give the model its levels (a missing or
// bad file is an error naming the variable or option and the file), and when rule and model
// choose differently the output says both and which runs.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { explain, explainCall } from '../../src/cli/explain';

const repoRoot = path.resolve(__dirname, '../..');
const TWO_LEVEL = path.join(repoRoot, 'examples/topology/two-level.yaml');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'topocoll-explain-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The CLI as a user runs it, without the TOPOCOLL_* of this process. */
function topocoll(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TOPOCOLL_') || k === 'TOPOCOLL_MPI'));
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/topocoll.js'), ...args], { env: { ...clean, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function run(args: string[]): Promise<string> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
    lines.push(a.join(' '));
  });
  try {
    expect(await explain.run(args)).toBe(0);
    return lines.join('\n');
  } finally {
    spy.mockRestore();
  }
}

describe('topocoll explain: the node layout', () => {
  it('--ppn changes the schedules of node-aware algorithms and counts the bytes that leave each node', () => {
    const oneNode = explainCall('allgather', 64, 8192);
    const eightNodes = explainCall('allgather', 64, 8192, { ppn: 8 });
    expect([oneNode.nodes, eightNodes.nodes]).toEqual([1, 8]);
    const of = (e: typeof oneNode, a: string) => e.candidates.find((c) => c.algorithm === a)!.summary;
    // Ring: every rank sends 63 blocks to its right neighbour; a node's last rank sends them off the node.
    expect(of(oneNode, 'ring').maxBytesSent).toBe(63 * 8192);
    expect(of(oneNode, 'ring').maxNodeBytesOut).toBe(0);
    expect(of(eightNodes, 'ring').maxNodeBytesOut).toBe(63 * 8192);
    expect(of(eightNodes, 'ring').offNodeMessages).toBe(8 * 63);
    // Hierarchical gathers in nodes and exchanges between leaders: its schedule follows the nodes.
    expect(of(eightNodes, 'hierarchical').maxBytesSent).not.toBe(of(oneNode, 'hierarchical').maxBytesSent);
    expect(of(eightNodes, 'hierarchical').rounds).not.toBe(of(oneNode, 'hierarchical').rounds);
    // The remapped Bruck keeps heavy steps inside nodes: fewer bytes leave a node than under plain Bruck.
    expect(of(eightNodes, 'bruck_reorder').maxNodeBytesOut).toBeLessThan(of(eightNodes, 'bruck').maxNodeBytesOut);
  });

  it('prints the per-node columns only when the ranks span nodes', async () => {
    const one = await run(['--coll', 'allgather', '--np', '16', '--bytes', '1K']);
    expect(one).toMatch(/^allgather on 16 ranks, one node, 1 KiB per rank block$/m);
    expect(one).not.toContain('max bytes out/node');
    const four = await run(['--coll', 'allgather', '--np', '16', '--ppn', '4', '--bytes', '1K']);
    expect(four).toMatch(/^allgather on 16 ranks, 4 per node on 4 nodes, 1 KiB per rank block$/m);
    expect(four).toMatch(/^algorithm +predicted +rounds +msgs\/rank +max bytes\/rank +max bytes out\/node +msgs between nodes/m);
    // ring: 15 blocks of 1 KiB leave each node, 4 x 15 messages cross nodes.
    expect(four).toMatch(/^ring\S* +[\d.]+ us +15 +15 +15 KiB +15 KiB +60 /m);
  });
});

describe('topocoll explain: rule and model', () => {
  // bcast of 64 KiB on 8 ranks, 2 per node: the rules pick scatter_allgather, the model binomial.
  const args = ['explain', '--coll', 'bcast', '--np', '8', '--ppn', '2', '--bytes', '64K'];

  it('says both choices and which runs, under either TOPOCOLL_SELECT', () => {
    const rules = topocoll(args);
    expect(rules.status, rules.stderr).toBe(0);
    expect(rules.stdout).toMatch(/^rule: {2}scatter_allgather \(/m);
    expect(rules.stdout).toMatch(/^model: binomial \(smallest predicted time/m);
    expect(rules.stdout).toMatch(/^runs: {2}scatter_allgather, the rule's choice \(TOPOCOLL_SELECT=rules, the default\); TOPOCOLL_SELECT=model would run binomial$/m);
    expect(rules.stdout).toMatch(/^scatter_allgather \*/m);
    const model = topocoll(args, { TOPOCOLL_SELECT: 'model' });
    expect(model.status, model.stderr).toBe(0);
    expect(model.stdout).toMatch(/^runs: {2}binomial, the model's choice \(TOPOCOLL_SELECT=model\); under the rules .* scatter_allgather would run$/m);
    expect(model.stdout).toMatch(/^binomial \*/m);
  });

  it('--json carries both choices and who decides', () => {
    const e = explainCall('bcast', 8, 65536, { ppn: 2 });
    expect(e.rule.algorithm).toBe('scatter_allgather');
    expect(e.model.choice?.algorithm).toBe('binomial');
    expect(e.select).toBe('rules');
    expect(e.chosen).toEqual(e.rule);
  });

  it('says when they agree', async () => {
    const out = await run(['--coll', 'bcast', '--np', '4', '--ppn', '2', '--bytes', '8']);
    expect(out).toMatch(/^rule: {2}binomial \(/m);
    expect(out).toMatch(/^model: binomial \(/m);
    expect(out).toMatch(/^runs: {2}binomial \(rule and model agree\)$/m);
  });

  it('--nonblocking takes the rules of the nonblocking form', () => {
    const file = path.join(tmp, 'form.json');
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        rules: [
          { collective: 'allreduce', algorithm: 'ring', nonblocking: true, why: 'the nonblocking form' },
          { collective: 'allreduce', algorithm: 'recursive_doubling', nonblocking: false, why: 'the blocking form' },
        ],
      }),
    );
    const call = ['explain', '--coll', 'allreduce', '--np', '4', '--bytes', '8'];
    const nonblocking = topocoll([...call, '--nonblocking'], { TOPOCOLL_RULES: file });
    expect(nonblocking.status, nonblocking.stderr).toBe(0);
    expect(nonblocking.stdout).toMatch(/^nonblocking allreduce on 4 ranks/m);
    expect(nonblocking.stdout).toMatch(/^rule: {2}ring \(rules file .*form\.json:\d+: the nonblocking form\)$/m);
    const blocking = topocoll(call, { TOPOCOLL_RULES: file });
    expect(blocking.status, blocking.stderr).toBe(0);
    expect(blocking.stdout).toMatch(/^rule: {2}recursive_doubling \(rules file .*form\.json:\d+: the blocking form\)$/m);
  });
});

describe('topocoll explain: the model\'s levels', () => {
  it('--topology FILE prices messages with the file\'s levels', () => {
    const byDefault = explainCall('allgather', 16, 65536, { ppn: 4 });
    const byFile = explainCall('allgather', 16, 65536, { ppn: 4, topology: { file: TWO_LEVEL, from: 'option' } });
    expect(byFile.model.levels.source).toBe(TWO_LEVEL);
    // 1 Gbit/s between nodes against the default's 10 GB/s: every prediction grows.
    const ring = (e: typeof byDefault) => e.candidates.find((c) => c.algorithm === 'ring')!.predicted_us!;
    expect(ring(byFile)).toBeGreaterThan(5 * ring(byDefault));
    expect(byFile.model.levels.inter!.alpha).toBeCloseTo(15e-6, 15);
    expect(byFile.model.levels.inter!.beta).toBeCloseTo(8 / 1e9, 18);
    expect(byFile.model.levels.intra!.beta).toBeCloseTo(1 / 4e9, 18);
  });

  it('says which levels of a deeper file its two-level model leaves out', async () => {
    const file = path.join(repoRoot, 'examples/topology/rack-node-socket.yaml');
    const out = await run(['--coll', 'allgather', '--np', '32', '--ppn', '16', '--bytes', '1K', '--topology', file]);
    expect(out).toContain(`levels of ${file}`);
    expect(out).toMatch(/^not modelled: level rack \(scope group\): the models have one level between nodes, the widest \(spine\)$/m);
    expect(out).toMatch(/^not modelled: level socket \(within a node\): explain's model has one level within a node, node$/m);
  });

  it('reads TOPOCOLL_TOPOLOGY, and names the variable and the file when it is missing or bad', () => {
    const ok = topocoll(['explain', '--coll', 'allgather', '--np', '8', '--ppn', '4', '--bytes', '1K'], { TOPOCOLL_TOPOLOGY: TWO_LEVEL });
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`levels of ${TWO_LEVEL}`);

    const missing = path.join(tmp, 'missing.yaml');
    const gone = topocoll(['explain', '--coll', 'bcast', '--np', '4'], { TOPOCOLL_TOPOLOGY: missing });
    expect(gone.status).toBe(1);
    expect(gone.stdout).toBe('');
    expect(gone.stderr).toContain(`TOPOCOLL_TOPOLOGY=${missing}: ${missing}: cannot read the topology file (ENOENT)`);

    const bad = path.join(tmp, 'bad.yaml');
    writeFileSync(bad, 'levels:\n  - name: net\n    scope: rack\n    latency: 1 us\n    bandwidth: 1 GB/s\n');
    const wrong = topocoll(['explain', '--coll', 'bcast', '--np', '4'], { TOPOCOLL_TOPOLOGY: bad });
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain(`TOPOCOLL_TOPOLOGY=${bad}: ${bad}:3: levels[0].scope: "rack" is not valid; valid choices: system, group, host, virtual_node`);

    // --topology wins over the variable, and its errors name the option.
    const option = topocoll(['explain', '--coll', 'bcast', '--np', '4', '--topology', missing], { TOPOCOLL_TOPOLOGY: TWO_LEVEL });
    expect(option.status).toBe(1);
    expect(option.stderr).toContain(`--topology=${missing}: ${missing}: cannot read`);
  });
});
