// One machine, two descriptions: a machine profile's levels (the models') converted into a
// topology file's (the engine's) and back, both ways, and what one side cannot say.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadMachineFile, loadProfile, machineFromObject, machineFromTopology, profileNames, topologyFromMachine, type Machine } from '../../src/model';
import { normalizeTopology } from '../../src/topology';
import { loadTopology, topologyFromObject } from '../../src/mpi/files';

const examples = path.resolve(__dirname, '../../examples/topology');

/** A profile with all three scopes: 2 sockets of 8 cores. */
const threeLevels = machineFromObject({
  name: 'three-levels',
  description: 'sockets, nodes, network',
  node: { sockets: 2, cores_per_socket: 8 },
  levels: [
    { name: 'socket', scope: 'socket', latency: '0.3 us', bandwidth: '20 GB/s' },
    { name: 'node', scope: 'node', latency: '0.8 us', bandwidth: '12 GB/s', exchange_bandwidth: '9 GB/s' },
    { name: 'network', scope: 'system', latency: '3 us', bandwidth: '25 Gbit/s' },
  ],
});

function expectSameLevels(a: Machine, b: Machine) {
  expect(b.levels.map((l) => [l.name, l.scope])).toEqual(a.levels.map((l) => [l.name, l.scope]));
  a.levels.forEach((l, i) => {
    expect(b.levels[i].alpha / l.alpha).toBeCloseTo(1, 12);
    expect(b.levels[i].beta / l.beta).toBeCloseTo(1, 12);
    expect(b.levels[i].exchangeBeta / l.exchangeBeta).toBeCloseTo(1, 12);
    expect(b.levels[i].usesNic).toBe(l.scope === 'system');
  });
}

describe('machine profile -> topology file -> machine profile', () => {
  it('keeps every level of every shipped profile, and the cores of a node', () => {
    for (const name of profileNames()) {
      const m = loadProfile(name);
      const t = topologyFromObject(topologyFromMachine(m), name);
      const cores = m.node.sockets * m.node.coresPerSocket;
      const back = machineFromTopology(t, cores);
      expect(back.leftOut, name).toEqual([]);
      expectSameLevels(m, back.machine);
      expect(back.machine.node.sockets * back.machine.node.coresPerSocket, name).toBe(cores);
    }
  });

  it('turns sockets into virtual nodes of block:cores_per_socket, and back', () => {
    const t = topologyFromObject(topologyFromMachine(threeLevels));
    expect(t.levels.map((l) => l.scope)).toEqual(['system', 'host', 'virtual_node']);
    expect(t.virtualNodes).toEqual({ kind: 'block', ranksPerNode: 8 });
    expect(t.levels[1].exchangeBandwidth).toBeCloseTo(9e9, 3);
    const back = machineFromTopology(t, 16).machine;
    expectSameLevels(threeLevels, back);
    expect(back.node).toEqual({ sockets: 2, coresPerSocket: 8, nics: 1 });
  });
});

describe('topology file -> machine profile -> topology file', () => {
  it('gives back the same file for two levels', () => {
    const t = loadTopology(path.join(examples, 'two-level.yaml'));
    const { machine, leftOut } = machineFromTopology(t, 4);
    expect(leftOut).toEqual([]);
    expect(machine.levels.map((l) => [l.name, l.scope])).toEqual([
      ['node', 'node'],
      ['network', 'system'],
    ]);
    expect(machine.levels[1].beta).toBeCloseTo(8 / 1e9, 20);
    expect(normalizeTopology(topologyFromObject(topologyFromMachine(machine)))).toEqual(normalizeTopology(t));
  });

  it('leaves a group level out, saying so, and keeps the rest', () => {
    const t = loadTopology(path.join(examples, 'rack-node-socket.yaml'));
    const { machine, leftOut } = machineFromTopology(t, 16);
    expect(leftOut).toEqual(['level rack (scope group): a machine profile has one level between nodes, the widest (spine)']);
    expect(machine.levels.map((l) => l.scope)).toEqual(['socket', 'node', 'system']);
    expect(machine.node).toEqual({ sockets: 2, coresPerSocket: 8, nics: 1 });
    const again = normalizeTopology(topologyFromObject(topologyFromMachine(machine)));
    const original = normalizeTopology(t) as { levels: Array<{ scope: string }> };
    expect(again.levels).toEqual(original.levels.filter((l) => l.scope !== 'group'));
    expect(again.virtual_nodes).toBe('block:8');
  });

  it('refuses what a profile cannot say, naming the file and key', () => {
    const cyclic = topologyFromObject(
      { levels: [{ name: 'net', scope: 'system', latency: 1e-6, bandwidth: 1e9 }, { name: 'half', scope: 'virtual_node', latency: 1e-7, bandwidth: 1e10 }], virtual_nodes: 'cyclic:2' },
      'cyclic.yaml',
    );
    expect(() => machineFromTopology(cyclic, 4)).toThrow(/^cyclic\.yaml: virtual_nodes: cyclic maps to no machine profile: only block:K \(sockets of K cores\) does$/);
    const hostOnly = topologyFromObject({ levels: [{ name: 'node', scope: 'host', latency: 1e-6, bandwidth: 1e9 }] }, 'host.yaml');
    expect(() => machineFromTopology(hostOnly, 4)).toThrow(/^host\.yaml: levels: no level joins hosts/);
  });
});

describe('loadMachineFile', () => {
  it('tells a topology file from a machine profile', () => {
    expect(loadMachineFile(path.join(examples, 'two-level.yaml')).kind).toBe('topology');
    expect(loadMachineFile(path.resolve(__dirname, '../../profiles/bxj.yaml')).kind).toBe('profile');
    expect(() => loadMachineFile('/nonexistent/m.yaml')).toThrow(/\/nonexistent\/m\.yaml: cannot read the machine file \(ENOENT\)/);
  });
});
