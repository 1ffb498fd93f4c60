// The topology section of `topocoll info`: levels, tree and z(p, q) of a resolved topology, from
// the engine's own resolution (the addon's resolveTopologyFile, as worldTopology() at init).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineWorldTopology } from '../../src/mpi/addon';
import { addon } from '../../src/mpi/native';
import { describeTopology, meetMatrix, normalizeTopology } from '../../src/topology';
import { resolvedFromEngine } from '../../src/cli/topology-info';
import { loadTopology, resolveTopology } from '../../src/mpi/files';

const native = addon();
const examples = path.resolve(__dirname, '../../examples/topology');
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-describe-'));

/** What worldTopology() would return for this file and job: the engine's parse and resolution. */
function engineView(file: string, hosts: string[]): EngineWorldTopology {
  const json = path.join(tmp, `${path.basename(file)}.json`);
  writeFileSync(json, JSON.stringify(normalizeTopology(loadTopology(file))));
  return { topology: { ...native.parseTopologyFile(json), source: file }, resolved: native.resolveTopologyFile(json, hosts) };
}

describe('describeTopology (topocoll info)', () => {
  it('two-level example, 4 hosts x 2 ranks placed round-robin: tree, z matrix and pairs per level', () => {
    const file = path.join(examples, 'two-level.yaml');
    const hosts = Array.from({ length: 8 }, (_, r) => `h${r % 4}`);
    const resolved = resolvedFromEngine(engineView(file, hosts), hosts);
    // The engine's resolution is the TypeScript one.
    expect(meetMatrix(resolved)).toEqual(meetMatrix(resolveTopology(loadTopology(file), hosts)));
    const lines = describeTopology(resolved);
    expect(lines[0]).toBe(`${file}: "two-level" (nodes joined by a 1 Gbit/s network)`);
    expect(lines).toContain('  0  network  system        latency 15 us      bandwidth 125 MB/s     1 module');
    expect(lines).toContain('  1  node     host          latency 2 us       bandwidth 4 GB/s       4 modules');
    expect(lines).toContain('    node h1: ranks 1,5  [host, 2 us, 4 GB/s]');
    expect(lines).toContain('z(p, q), the level where ranks p and q meet (0 = network, 1 = node):');
    expect(lines).toContain('  p\\q 0 1 2 3 4 5 6 7');
    // Rank 2 shares its host with rank 6 only.
    expect(lines).toContain('    2 0 0 1 0 0 0 1 0');
    // 28 pairs: 4 within a host, 24 across.
    expect(lines[lines.length - 1]).toBe('  rank pairs per level: network 24, node 4');
  });

  it('rack-node-socket example: groups and virtual nodes appear in the tree', () => {
    const file = path.join(examples, 'rack-node-socket.yaml');
    const hosts = Array.from({ length: 64 }, (_, r) => `n0${1 + Math.floor(r / 16)}`);
    const lines = describeTopology(resolvedFromEngine(engineView(file, hosts), hosts));
    expect(lines).toContain('tree (64 ranks):');
    expect(lines).toContain('    rack rack-b: ranks 32-63  [group, 3 us, 3.125 GB/s]');
    expect(lines).toContain('        socket n03/5: ranks 40-47  [virtual_node, 400 ns, 20 GB/s]');
    // 64 ranks is above the matrix limit: the pairs per level only.
    expect(lines.some((l) => l.startsWith('  p\\q'))).toBe(false);
    expect(lines).toContain('  (64 ranks: matrix omitted above 32; `topocoll topology FILE --hosts ... --json` prints it)');
    // Pairs: same socket 8 x C(8,2) = 224; same node, other socket 4 x 64 = 256;
    // same rack, other node 2 x 256 = 512; across racks 32 x 32 = 1024.
    expect(lines[lines.length - 1]).toBe('  rank pairs per level: spine 1024, rack 512, node 256, socket 224');
  });

  it('refuses an engine resolution for another job size', () => {
    const file = path.join(examples, 'two-level.yaml');
    expect(() => resolvedFromEngine(engineView(file, ['a', 'b']), ['a', 'b', 'c'])).toThrow(/another size than 3 ranks/);
  });
});
