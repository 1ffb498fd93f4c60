// One description of a machine: topology files (the engine's format) give the models their
// levels, innermost first; the shipped profiles are topology files with the node's shape, and
// what the models' levels cannot say (a group level) is reported.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProfile, machineFromObject, machineFromTopology, profileNames, profilePath } from '../../src/model';
import { normalizeTopology } from '../../src/topology';
import { loadTopology, topologyFromObject } from '../../src/mpi/files';

const examples = path.resolve(__dirname, '../../examples/topology');

/** All three scopes: 2 sockets of 8 cores. */
const threeLevels = {
  name: 'three-levels',
  description: 'sockets, nodes, network',
  node: { sockets: 2, cores_per_socket: 8 },
  levels: [
    { name: 'network', scope: 'system', latency: '3 us', bandwidth: '25 Gbit/s' },
    { name: 'node', scope: 'host', latency: '0.8 us', bandwidth: '12 GB/s', exchange_bandwidth: '9 GB/s' },
    { name: 'socket', scope: 'virtual_node', latency: '0.3 us', bandwidth: '20 GB/s' },
  ],
  virtual_nodes: 'block:8',
};

/** `value` with every number to 12 digits: the normalized JSON keeps 15, which leaves unit conversion's noise. */
const rounded = (value: unknown): unknown => JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'number' ? Number(v.toPrecision(12)) : v)));

describe('shipped profiles', () => {
  it('are topology files with a node, their levels innermost first for the models', () => {
    expect(profileNames()).toEqual(['bxj', 'dev-vm', 'emulated-cluster', 'emulated-cluster-2x2']);
    for (const name of profileNames()) {
      const t = loadTopology(profilePath(name));
      expect(t.node, name).toBeDefined();
      const m = loadProfile(name);
      expect(m.levels.map((l) => l.name), name).toEqual(t.levels.map((l) => l.name).reverse());
      expect(m.levels[m.levels.length - 1].scope, name).toBe('system');
    }
  });

  it('survive `topology --json` (the normalized JSON the engine reads) with every key', () => {
    for (const name of profileNames()) {
      const m = loadProfile(name);
      const again = machineFromTopology(topologyFromObject(normalizeTopology(loadTopology(profilePath(name))), name)).machine;
      expect(rounded({ ...again, source: m.source, name: m.name }), name).toEqual(rounded(m));
    }
  });
});

describe('topology file -> the models\' machine', () => {
  it('turns virtual nodes of block:cores_per_socket into sockets', () => {
    const m = machineFromObject(threeLevels);
    expect(m.levels.map((l) => [l.name, l.scope])).toEqual([
      ['socket', 'socket'],
      ['node', 'node'],
      ['network', 'system'],
    ]);
    expect(m.levels[1].exchangeBeta).toBeCloseTo(1 / 9e9, 20);
    expect(m.levels.map((l) => l.usesNic)).toEqual([false, false, true]);
    expect(m.node).toEqual({ sockets: 2, coresPerSocket: 8, nics: 1 });
    expect(() => machineFromObject({ ...threeLevels, virtual_nodes: 'block:4' }, 'v.yaml')).toThrow(/^v\.yaml: virtual_nodes: block:4 disagrees with node\.cores_per_socket \(8\)$/);
  });

  it('shapes the node from the ranks per node when the file has no node', () => {
    const t = loadTopology(path.join(examples, 'two-level.yaml'));
    const { machine, leftOut } = machineFromTopology(t, 4);
    expect(leftOut).toEqual([]);
    expect(machine.levels.map((l) => [l.name, l.scope])).toEqual([
      ['node', 'node'],
      ['network', 'system'],
    ]);
    expect(machine.levels[1].beta).toBeCloseTo(8 / 1e9, 20);
    expect(machine.node).toEqual({ sockets: 1, coresPerSocket: 4, nics: 1 });
    // No copy_bandwidth: copies at the narrowest level's rate, as the engine's model.
    expect(machine.copyBeta).toBe(machine.levels[0].beta);
    expect(() => machineFromTopology(t)).toThrow(/two-level\.yaml: node: is not given, so the file does not say how many ranks a node holds/);
  });

  it('leaves a group level out, saying so, and keeps the rest', () => {
    const t = loadTopology(path.join(examples, 'rack-node-socket.yaml'));
    const { machine, leftOut } = machineFromTopology(t, 16);
    expect(leftOut).toEqual(['level rack (scope group): the models have one level between nodes, the widest (spine)']);
    expect(machine.levels.map((l) => l.scope)).toEqual(['socket', 'node', 'system']);
    expect(machine.node).toEqual({ sockets: 2, coresPerSocket: 8, nics: 1 });
  });

  it('refuses what the models cannot say, naming the file and key', () => {
    const cyclic = topologyFromObject(
      { levels: [{ name: 'net', scope: 'system', latency: 1e-6, bandwidth: 1e9 }, { name: 'half', scope: 'virtual_node', latency: 1e-7, bandwidth: 1e10 }], virtual_nodes: 'cyclic:2' },
      'cyclic.yaml',
    );
    expect(() => machineFromTopology(cyclic, 4)).toThrow(/^cyclic\.yaml: virtual_nodes: cyclic maps to no sockets of the models: only block:K \(sockets of K cores\) does$/);
    const hostOnly = topologyFromObject({ levels: [{ name: 'node', scope: 'host', latency: 1e-6, bandwidth: 1e9 }] }, 'host.yaml');
    expect(() => machineFromTopology(hostOnly, 4)).toThrow(/^host\.yaml: levels: no level joins hosts/);
  });

  it('takes nic, overhead, gap and signal_latency per level', () => {
    const m = machineFromObject({
      node: { sockets: 1, cores_per_socket: 4, nics: 2 },
      levels: [
        { name: 'net', scope: 'system', latency: '4 us', bandwidth: '1 GB/s', overhead: '1 us', gap: '2 us', nic: false },
        { name: 'shm', scope: 'host', latency: '1 us', bandwidth: '5 GB/s', signal_latency: '0.1 us', nic: true },
      ],
    });
    expect(m.node.nics).toBe(2);
    expect(m.levels.map((l) => l.usesNic)).toEqual([true, false]);
    expect(m.levels[0].signalAlpha).toBeCloseTo(0.1e-6, 18);
    expect(m.levels[1].signalAlpha).toBeCloseTo(4e-6, 18);
    expect([m.levels[1].overhead, m.levels[1].gap]).toEqual([1e-6, 2e-6]);
  });
});
