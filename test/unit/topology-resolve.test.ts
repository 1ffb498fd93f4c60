// A topology meets a job: modules per level, z(p, q), the tree. The resolver is the engine's,
// reached through resolveTopology (the file as read, with its lines) or resolveTopologyFile.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseHostList } from '../../src/cli/topology';
import { addon } from '../../src/mpi/native';
import {
  formatTree,
  leafModules,
  meetLevel,
  meetMatrix,
  normalizeTopology,
  TopologyError,
  type Topology,
} from '../../src/topology';
import { loadTopology, parseTopology, resolveTopology } from '../../src/mpi/files';

const native = addon();
const examples = path.resolve(__dirname, '../../examples/topology');
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-resolve-'));

/** The topology written as normalized JSON, for the engine to read. */
function jsonFile(t: Topology, name: string): string {
  const f = path.join(tmp, `${name}.json`);
  writeFileSync(f, JSON.stringify(normalizeTopology(t)));
  return f;
}

function topology(obj: Record<string, unknown>, name = 't.json'): Topology {
  return parseTopology(JSON.stringify(obj, null, 1), name);
}

const level = (name: string, scope: string, bandwidth = 1e9) => ({ name, scope, latency: 1e-6, bandwidth });

describe('resolving a topology for a job', () => {
  it("reproduces seed 004's figure 5: N = 16, L = 3 (cluster, rack, node), z(9, 14) = 2", () => {
    const t = topology({
      levels: [level('cluster', 'system'), level('rack', 'group'), level('node', 'host')],
      groups: { n1: 'r1', n2: 'r1', n3: 'r2', n4: 'r2' },
    });
    const r = resolveTopology(t, parseHostList('n1:4,n2:4,n3:4,n4:4'));
    // Seed 004 numbers processors from 1 and levels from 1 (the widest): ours are 0-based.
    expect(meetLevel(r, 9 - 1, 14 - 1) + 1).toBe(2);
    expect(meetLevel(r, 0, 3)).toBe(2); // same node
    expect(meetLevel(r, 0, 4)).toBe(1); // same rack
    expect(meetLevel(r, 0, 8)).toBe(0); // different racks
    expect(r.levels.map((l) => l.labels)).toEqual([['cluster'], ['r1', 'r2'], ['n1', 'n2', 'n3', 'n4']]);
    expect(Array.from(r.levels[2].parent)).toEqual([0, 0, 1, 1]);
    expect(leafModules(r).sizes).toEqual([4, 4, 4, 4]);
  });

  it('the rack-node-socket example on 4 nodes of 16 ranks: sockets are blocks of 8 within hosts', () => {
    const t = loadTopology(path.join(examples, 'rack-node-socket.yaml'));
    const hosts = parseHostList('n01:16,n02:16,n03:16,n04:16');
    const r = resolveTopology(t, hosts);
    const z = meetMatrix(r);
    expect(z[0][7]).toBe(3); // same socket
    expect(z[0][8]).toBe(2); // same node, other socket
    expect(z[0][16]).toBe(1); // same rack
    expect(z[0][32]).toBe(0); // other rack
    expect(z[32][47]).toBe(2);
    expect(z[40][63]).toBe(1);
    expect(r.levels[3].labels).toHaveLength(8);
    expect(formatTree(r)).toEqual([
      'spine: ranks 0-63  [system, 6 us, 1.25 GB/s]',
      '  rack rack-a: ranks 0-31  [group, 3 us, 3.125 GB/s]',
      '    node n01: ranks 0-15  [host, 800 ns, 12 GB/s]',
      '      socket n01/0: ranks 0-7  [virtual_node, 400 ns, 20 GB/s]',
      '      socket n01/1: ranks 8-15  [virtual_node, 400 ns, 20 GB/s]',
      '    node n02: ranks 16-31  [host, 800 ns, 12 GB/s]',
      '      socket n02/2: ranks 16-23  [virtual_node, 400 ns, 20 GB/s]',
      '      socket n02/3: ranks 24-31  [virtual_node, 400 ns, 20 GB/s]',
      '  rack rack-b: ranks 32-63  [group, 3 us, 3.125 GB/s]',
      '    node n03: ranks 32-47  [host, 800 ns, 12 GB/s]',
      '      socket n03/4: ranks 32-39  [virtual_node, 400 ns, 20 GB/s]',
      '      socket n03/5: ranks 40-47  [virtual_node, 400 ns, 20 GB/s]',
      '    node n04: ranks 48-63  [host, 800 ns, 12 GB/s]',
      '      socket n04/6: ranks 48-55  [virtual_node, 400 ns, 20 GB/s]',
      '      socket n04/7: ranks 56-63  [virtual_node, 400 ns, 20 GB/s]',
    ]);
  });

  it('ranks placed round-robin over hosts (--map-by node): modules follow the hosts, not rank order', () => {
    const t = loadTopology(path.join(examples, 'two-level.yaml'));
    const r = resolveTopology(t, ['a', 'b', 'c', 'a', 'b', 'c', 'a']);
    expect(Array.from(r.levels[1].moduleOf)).toEqual([0, 1, 2, 0, 1, 2, 0]);
    expect(leafModules(r).sizes).toEqual([3, 2, 2]);
    expect(meetLevel(r, 0, 6)).toBe(1);
    expect(meetLevel(r, 0, 1)).toBe(0);
    expect(meetLevel(r, 5, 5)).toBe(1);
    expect(formatTree(r)).toEqual(['network: ranks 0-6  [system, 15 us, 125 MB/s]', '  node a: ranks 0,3,6  [host, 2 us, 4 GB/s]', '  node b: ranks 1,4  [host, 2 us, 4 GB/s]', '  node c: ranks 2,5  [host, 2 us, 4 GB/s]']);
  });

  it('virtual nodes impose a hierarchy on one host, and never span hosts', () => {
    const t = topology({ levels: [level('net', 'system'), level('vn', 'virtual_node')], virtual_nodes: 'block:3' });
    const one = resolveTopology(t, Array(7).fill('h'));
    expect(Array.from(one.levels[1].moduleOf)).toEqual([0, 0, 0, 1, 1, 1, 2]);
    // block:3 puts ranks 0-2 on virtual node 0, but rank 2 is on another host: its own module.
    const two = resolveTopology(t, ['a', 'a', 'b', 'b']);
    expect(Array.from(two.levels[1].moduleOf)).toEqual([0, 0, 1, 2]);
    expect(two.levels[1].labels).toEqual(['a/0', 'b/0', 'b/1']);
    const cyclic = resolveTopology(topology({ levels: [level('net', 'system'), level('vn', 'virtual_node')], virtual_nodes: 'cyclic:2' }), Array(5).fill('h'));
    expect(Array.from(cyclic.levels[1].moduleOf)).toEqual([0, 1, 0, 1, 0]);
  });

  it('the widest level may be narrower than the system when every rank is in it', () => {
    const t = topology({ levels: [level('shm', 'host'), level('socket', 'virtual_node')], virtual_nodes: [0, 0, 1, 1] });
    const r = resolveTopology(t, Array(4).fill('h'));
    expect(meetMatrix(r)).toEqual([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]);
  });

  it('bad arguments are TypeErrors and RangeErrors', () => {
    const t = loadTopology(path.join(examples, 'two-level.yaml'));
    expect(() => resolveTopology(t, [])).toThrow(TypeError);
    expect(() => resolveTopology(t, ['a', ''])).toThrow('hosts[1] must be a non-empty hostname');
    const r = resolveTopology(t, ['a', 'b']);
    expect(() => meetLevel(r, 0, 2)).toThrow('rank 2 is out of range [0, 1]');
    expect(() => meetLevel(r, -1, 0)).toThrow(RangeError);
  });
});

describe('a topology that does not fit the job: file:line: key, the same both ways in', () => {
  function bothReject(t: Topology, hosts: string[]): string {
    let ts = '';
    try {
      resolveTopology(t, hosts);
    } catch (e) {
      expect(e).toBeInstanceOf(TopologyError);
      ts = (e as Error).message;
    }
    expect(ts).not.toBe('');
    expect(() => native.resolveTopologyFile(t.source, hosts)).toThrow(ts);
    return ts;
  }
  const write = (name: string, text: string) => {
    const f = path.join(tmp, name);
    writeFileSync(f, text);
    return parseTopology(text, f);
  };

  it('a host in no group', () => {
    const t = write('groups.json', JSON.stringify({ levels: [level('net', 'system'), level('rack', 'group')], groups: { a: 'r1', b: 'r2' } }, null, 1));
    expect(bothReject(t, ['a', 'c'])).toBe(`${t.source}:16: groups: host "c" (rank 1) is in no group; groups names the hosts a, b`);
  });

  it('a virtual node list shorter than the job', () => {
    const t = write('short.json', JSON.stringify({ levels: [level('net', 'system'), level('vn', 'virtual_node')], virtual_nodes: [0, 1] }, null, 1));
    expect(bothReject(t, ['h', 'h', 'h'])).toBe(`${t.source}:16: virtual_nodes: the list names 2 ranks but the job has 3; give one node per rank, or use block:K or cyclic:N`);
  });

  it('a widest level that does not hold every rank', () => {
    const t = write('widest.json', '{"levels": [\n{"name": "shm", "scope": "host", "latency": 0, "bandwidth": 1}\n]}');
    expect(bothReject(t, ['a', 'a', 'b'])).toBe(`${t.source}:2: levels[0].scope: the widest level "shm" (scope host) must hold every rank, but rank 0 is in a and rank 2 in b; add a wider level (scope system)`);
  });
});

// One resolver (the engine's); these hold its two ways in to one answer (a normalized JSON file read
// by the engine, the YAML with its line map through resolveTopology), and meetMatrix to the engine's z.
describe('a file and its normalized JSON resolve alike', () => {
  // A small deterministic generator: the same layouts on every run.
  let seed = 12345;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const topologies: Array<[string, Topology]> = [
    ['two-level', loadTopology(path.join(examples, 'two-level.yaml'))],
    ['rack-node-socket', loadTopology(path.join(examples, 'rack-node-socket.yaml'))],
    ['groups and a vnode list', topology({
      levels: [level('net', 'system'), level('rack', 'group'), level('vn', 'virtual_node')],
      groups: { n01: 'x', n02: 'y', n03: 'x', n04: 'y' },
      virtual_nodes: Array.from({ length: 40 }, (_, i) => (i * 7) % 3),
    })],
    ['cyclic virtual nodes under hosts', topology({ levels: [level('net', 'system'), level('host', 'host'), level('vn', 'virtual_node')], virtual_nodes: 'cyclic:3' })],
  ];
  it.each(topologies)('%s, on 20 random layouts of 1 to 40 ranks', (name, t) => {
    const file = jsonFile(t, name.replace(/\W+/g, '-'));
    for (let trial = 0; trial < 20; trial++) {
      const n = 1 + random(40);
      const hosts = Array.from({ length: n }, () => `n0${1 + random(4)}`);
      const ts = resolveTopology(t, hosts);
      const nat = native.resolveTopologyFile(file, hosts);
      expect(nat.z).toEqual(meetMatrix(ts));
      expect(nat.levels.map((l) => Array.from(l.moduleOf))).toEqual(ts.levels.map((l) => Array.from(l.moduleOf)));
      expect(nat.levels.map((l) => l.labels)).toEqual(ts.levels.map((l) => l.labels));
      expect(nat.levels.map((l) => Array.from(l.parent))).toEqual(ts.levels.map((l) => Array.from(l.parent)));
    }
  });
});

describe('--hosts lists', () => {
  it('names per rank and hosts with rank counts', () => {
    expect(parseHostList('a,b,a')).toEqual(['a', 'b', 'a']);
    expect(parseHostList('a:2,b:1,c')).toEqual(['a', 'a', 'b', 'c']);
    expect(() => parseHostList('a:0')).toThrow('--hosts: "a:0" is not valid');
    expect(() => parseHostList('a,,b')).toThrow('--hosts: "" is not valid');
  });
});
