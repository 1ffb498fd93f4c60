import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Topology,
  blockPlacement,
  loadProfile,
  machineFromObject,
  machineFromTopology,
  placementFromNodes,
  roundRobinPlacement,
} from '../../src/model';
import { parseTopology } from '../../src/mpi/files';
import { TopologyError } from '../../src/topology';

// A machine is a topology file (widest level first) with the node's shape.
const twoLevel = `name: two-level
node:
  sockets: 2
  cores_per_socket: 4
  nics: 1
levels:
  - name: net
    scope: system
    latency: 2 us
    bandwidth: 1 GB/s
  - name: shm
    scope: host
    latency: 0.5 us
    bandwidth: 5 GB/s
network:
  switch_radix: 16
  hops: 3
  nodes_per_switch: 4
  clock: 1 GHz
  packet: 64 B
`;

const parseMachine = (text: string, file: string) => machineFromTopology(parseTopology(text, file)).machine;

function errorOf(text: string): string {
  try {
    parseMachine(text, 'm.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(TopologyError);
    return (err as Error).message;
  }
  throw new Error('no error');
}

describe('machine profiles', () => {
  it('ships BXJ from seed 002 Tables 1-2', () => {
    const bxj = loadProfile('bxj');
    expect(bxj.name).toBe('bxj');
    expect(bxj.levels).toHaveLength(1);
    const net = bxj.levels[0];
    expect(net.scope).toBe('system');
    expect(net.alpha).toBeCloseTo(2.37e-6, 15);
    expect(1 / net.beta).toBe(6343 * 2 ** 20);
    expect(net.usesNic).toBe(true);
    expect(bxj.node).toEqual({ sockets: 2, coresPerSocket: 6, nics: 1 });
    expect(bxj.network).toEqual({ switchRadix: 16, hops: 3, clockHz: 312.5e6, packetBytes: 32 });
    // No copy_bandwidth: copies at the narrowest level's rate, as the engine's model.
    expect(bxj.copyBeta).toBe(net.beta);
  });

  it('reads quantities with units (the engine reader\'s units)', () => {
    const m = machineFromObject({
      node: { sockets: 1, cores_per_socket: 2 },
      levels: [{ name: 'net', scope: 'system', latency: '3.2ns', bandwidth: '10 Gbit/s', overhead: '1 ns', gap: '0.5 ns', signal_latency: '2 ns' }],
      network: { switch_radix: 16, hops: 3, clock: '312.5 MHz', packet: '256 bit' },
      copy_bandwidth: '6343 MiB/s',
      reduce_bandwidth: '6343 MB/s',
    });
    expect(m.levels[0].alpha).toBeCloseTo(3.2e-9, 18);
    expect(m.levels[0].beta).toBe(1 / 1.25e9);
    expect(m.levels[0].overhead).toBeCloseTo(1e-9, 18);
    expect(m.levels[0].gap).toBeCloseTo(0.5e-9, 18);
    expect(m.levels[0].signalAlpha).toBeCloseTo(2e-9, 18);
    expect(m.network).toMatchObject({ clockHz: 312.5e6, packetBytes: 32 });
    expect(m.copyBeta).toBe(1 / (6343 * 1048576));
    expect(m.gamma).toBe(1 / 6343e6);
  });

  it('reads JSON and plain objects too', () => {
    const json = JSON.stringify({
      name: 'j',
      node: { sockets: 1, cores_per_socket: 2 },
      levels: [{ name: 'net', scope: 'system', latency: '1 us', bandwidth: '1 GB/s' }],
    });
    expect(parseMachine(json, 'j.json').levels[0].alpha).toBeCloseTo(1e-6, 15);
    expect(parseMachine(json, 'j.json').roundOverhead).toBe(0);
    expect(parseMachine(`${twoLevel}round_overhead: 30 ns\n`, 'm.yaml').roundOverhead).toBeCloseTo(30e-9, 18);
    // γ: the file's reduce_bandwidth, else the engine's default (0.2 ns per byte, docs/models.md).
    expect(parseMachine(json, 'j.json').gamma).toBe(0.2e-9);
    expect(parseMachine(`${twoLevel}reduce_bandwidth: 4 GB/s\n`, 'm.yaml').gamma).toBeCloseTo(0.25e-9, 21);
    expect(machineFromObject(JSON.parse(json)).node.nics).toBe(1);
  });

  it('names file, line and key in every error', () => {
    expect(errorOf(twoLevel.replace('  nics: 1', '  nics: 1\n  corez: 3'))).toBe('m.yaml:6: node.corez: unknown key; valid keys: sockets, cores_per_socket, nics');
    expect(errorOf(twoLevel.replace('latency: 2 us', 'latency: 2 parsecs'))).toMatch(/^m\.yaml:9: levels\[0\]\.latency: "2 parsecs" is not a time with a unit \(s, ms, us/);
    expect(errorOf(twoLevel.replace('    bandwidth: 1 GB/s\n', ''))).toMatch(/^m\.yaml:7: levels\[0\]\.bandwidth: is required/);
    expect(errorOf(twoLevel.replace('scope: host', 'scope: system'))).toMatch(/^m\.yaml:12: levels\[1\]\.scope: "system" cannot follow "system": levels go from the widest to the narrowest/);
    expect(errorOf(twoLevel.replace('scope: system', 'scope: warp'))).toMatch(/^m\.yaml:8: levels\[0\]\.scope: "warp" is not valid; valid choices: system, group, host, virtual_node$/);
    expect(errorOf(twoLevel.replace('    latency: 0.5 us', '    latency: 0.5 us\n    overhead: 0.3 us'))).toBe('m.yaml:14: levels[1].overhead: LogGP needs latency >= 2 x overhead');
    expect(errorOf(twoLevel.replace('    latency: 0.5 us', '    latency: 0.5 us\n    nic: yes please'))).toMatch(/^m\.yaml:14: levels\[1\]\.nic: must be true or false, got string "yes please"$/);
    expect(errorOf(twoLevel.replace('  switch_radix: 16', '  switch_radix: 1'))).toBe('m.yaml:16: network.switch_radix: must be a whole number >= 2, got number 1');
    expect(errorOf(twoLevel.replace('  clock: 1 GHz', '  clock: 1 GB'))).toMatch(/^m\.yaml:19: network\.clock: "1 GB" is not a frequency with a unit \(Hz, kHz, MHz, GHz\)$/);
    expect(errorOf(twoLevel.replace('  packet: 64 B', '  packet: 0 B'))).toBe('m.yaml:20: network.packet: must be a finite positive size, got "0 B"');
    expect(errorOf(`${twoLevel}  - [unclosed\n`)).toMatch(/^m\.yaml:21: not valid YAML or JSON: /);
    expect(errorOf(`${twoLevel}round_overhead: 30 parsecs\n`)).toMatch(/^m\.yaml:21: round_overhead: "30 parsecs" is not a time with a unit/);
    expect(errorOf(`${twoLevel}reduce_bandwidth: 0 GB/s\n`)).toBe('m.yaml:21: reduce_bandwidth: must be a finite positive bandwidth, got "0 GB/s"');
    expect(errorOf(`${twoLevel}reduce_bandwidth: 0.2 ns\n`)).toMatch(/^m\.yaml:21: reduce_bandwidth: "0\.2 ns" is not a bandwidth with a unit/);
    expect(errorOf(`${twoLevel}notes: free text\n`)).toBe('m.yaml:21: notes: must be a mapping (free-form remarks), got string "free text"');
    expect(errorOf(twoLevel.replace(/node:\n(  .*\n)+/, ''))).toMatch(/^m\.yaml: node: is not given, so the file does not say how many ranks a node holds/);
    expect(() => loadProfile('/nonexistent/profile.yaml')).toThrow(/^\/nonexistent\/profile\.yaml: cannot read the topology file \(ENOENT\)/);
  });

  it('loads a profile file by path', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'topocoll-machine-'));
    const file = path.join(dir, 'two.yaml');
    writeFileSync(file, twoLevel);
    const m = loadProfile(file);
    expect(m.source).toBe(file);
    expect(m.levels.map((l) => l.name)).toEqual(['shm', 'net']);
  });
});

describe('placement and topology', () => {
  const machine = parseMachine(twoLevel, 'two.yaml');

  it('fills sockets and NICs evenly by rank within a node', () => {
    const pl = blockPlacement(16, 8, machine);
    expect(pl.nodes).toBe(2);
    expect(Array.from(pl.node)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
    expect(Array.from(pl.socket.subarray(0, 8))).toEqual([0, 0, 0, 0, 1, 1, 1, 1]);
    expect(Array.from(pl.nic.subarray(6, 10))).toEqual([0, 0, 1, 1]);
    const rr = roundRobinPlacement(6, 3, machine);
    expect(Array.from(rr.node)).toEqual([0, 1, 2, 0, 1, 2]);
    expect(() => placementFromNodes([0, -1], machine)).toThrow(/rank 1 is on node -1/);
  });

  it('picks the level where two ranks meet, falling back outwards', () => {
    const topo = new Topology(machine, blockPlacement(32, 4, machine));
    // No socket level in this profile: same socket and same node both use `shm`.
    expect(topo.levelIndex(0, 1)).toBe(0);
    expect(topo.levelIndex(0, 3)).toBe(0);
    expect(topo.levelIndex(0, 4)).toBe(1);
  });

  it('counts one switch under a leaf, the network hops beyond', () => {
    const topo = new Topology(machine, blockPlacement(32, 2, machine)); // 16 nodes, 4 per leaf switch
    expect(topo.hops(0, 1)).toBe(0);
    expect(topo.hops(0, 2)).toBe(1);
    expect(topo.hops(0, 7)).toBe(1);
    expect(topo.hops(0, 8)).toBe(3);
  });
});
