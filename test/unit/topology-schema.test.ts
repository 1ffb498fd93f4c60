// The published JSON Schema (schemas/topology.schema.json) and the reader agree: the examples and
// normalized files validate, and documents the schema can judge are accepted or rejected by both.
// The schema is read by ajv (src/config/schemas.ts), a real validator of draft 2020-12: its
// allOf/if/contains included. The reader is the engine's, through the addon.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { normalizeTopology } from '../../src/topology';
import { topologyFromObject } from '../../src/mpi/files';
import { schemaErrors } from '../../src/config/schemas';

const root = path.resolve(__dirname, '../..');
const SCHEMA = JSON.parse(readFileSync(path.join(root, 'schemas/topology.schema.json'), 'utf8')) as { description: string };

const schemaValid = (doc: unknown) => schemaErrors('topology', doc).length === 0;
function readerValid(doc: unknown): boolean {
  try {
    topologyFromObject(doc);
    return true;
  } catch {
    return false;
  }
}

const L = (over: Record<string, unknown> = {}) => ({ name: 'net', scope: 'system', latency: '15 us', bandwidth: '1 Gbit/s', ...over });
const H = (over: Record<string, unknown> = {}) => ({ name: 'node', scope: 'host', latency: 2e-6, bandwidth: 4e9, ...over });
const G = { name: 'rack', scope: 'group', latency: '3 us', bandwidth: '25 Gbit/s' };
const V = { name: 'socket', scope: 'virtual_node', latency: 0, bandwidth: '20 GB/s' };

describe('schemas/topology.schema.json', () => {
  it('accepts a minimal file', () => {
    expect(schemaErrors('topology', { levels: [L()] })).toEqual([]);
  });

  it.each(['two-level.yaml', 'rack-node-socket.yaml'])('examples/topology/%s validates, and so does its normalized JSON', (name) => {
    const text = readFileSync(path.join(root, 'examples/topology', name), 'utf8');
    const doc = parseYaml(text);
    expect(schemaErrors('topology', doc)).toEqual([]);
    expect(schemaErrors('topology', normalizeTopology(topologyFromObject(doc)))).toEqual([]);
  });

  it.each(['bxj', 'dev-vm', 'emulated-cluster', 'emulated-cluster-2x2'])('profiles/%s.yaml (a machine profile) validates, and so does its normalized JSON', (name) => {
    const doc = parseYaml(readFileSync(path.join(root, 'profiles', `${name}.yaml`), 'utf8'));
    expect(schemaErrors('topology', doc)).toEqual([]);
    expect(schemaErrors('topology', normalizeTopology(topologyFromObject(doc)))).toEqual([]);
  });

  const NODE = { sockets: 2, cores_per_socket: 6 };
  const NETWORK = { switch_radix: 16, hops: 3, clock: '312.5 MHz', packet: '256 bit' };
  // Documents the schema judges: both must agree.
  const accepted: Array<[string, unknown]> = [
    ['numbers in base units', { levels: [L({ latency: 0, bandwidth: 1 }), H()] }],
    ['every scope, with groups and virtual nodes', { levels: [L(), G, H(), V], groups: { a: 'r' }, virtual_nodes: 'block:2' }],
    ['cyclic virtual nodes', { levels: [L(), V], virtual_nodes: 'cyclic:3' }],
    ['a virtual node list as a string', { levels: [L(), V], virtual_nodes: '0,1,0' }],
    ['a virtual node list', { levels: [L(), V], virtual_nodes: [0, 1, 0] }],
    ['a description, a name and $schema', { $schema: 'x', name: 'n', description: 'd', levels: [L()] }],
    [
      'every key of the models',
      {
        levels: [L({ overhead: '1 us', gap: '0.5 us', nic: true }), H({ signal_latency: '0.1 us', nic: false })],
        node: { ...NODE, nics: 2 },
        network: { ...NETWORK, nodes_per_switch: 4 },
        copy_bandwidth: '24 GB/s',
        round_overhead: '25 ns',
        notes: { anything: [1, 'x'] },
      },
    ],
    ['a network in base units', { levels: [L()], network: { ...NETWORK, clock: 1e9, packet: 64 } }],
  ];
  const rejected: Array<[string, unknown]> = [
    ['no levels', { name: 'x' }],
    ['empty levels', { levels: [] }],
    ['an unknown top-level key', { levels: [L()], level: 1 }],
    ['an unknown level key', { levels: [L({ speed: 1 })] }],
    ['a level without a name', { levels: [{ scope: 'system', latency: 0, bandwidth: 1 }] }],
    ['an empty name', { levels: [L({ name: ' ' })] }],
    ['a bad scope', { levels: [L({ scope: 'rack' })] }],
    ['a latency without a unit', { levels: [L({ latency: '15' })] }],
    ['a latency in bandwidth units', { levels: [L({ latency: '15 MB/s' })] }],
    ['a negative latency', { levels: [L({ latency: -1 })] }],
    ['a negative latency with a unit', { levels: [L({ latency: '-1 us' })] }],
    ['a zero bandwidth', { levels: [L({ bandwidth: 0 })] }],
    ['a zero bandwidth with a unit', { levels: [L({ bandwidth: '0.0 Gbit/s' })] }],
    ['a bandwidth in time units', { levels: [L({ bandwidth: '1 us' })] }],
    ['a boolean latency', { levels: [L({ latency: true })] }],
    ['groups without a group level', { levels: [L()], groups: { a: 'r' } }],
    ['a group level without groups', { levels: [L(), G] }],
    ['empty groups', { levels: [L(), G], groups: {} }],
    ['a group that is not a string', { levels: [L(), G], groups: { a: 1 } }],
    ['virtual nodes without a level', { levels: [L()], virtual_nodes: 'block:2' }],
    ['a virtual node level without a map', { levels: [L(), V] }],
    ['block:0', { levels: [L(), V], virtual_nodes: 'block:0' }],
    ['cyclic:x', { levels: [L(), V], virtual_nodes: 'cyclic:x' }],
    ['a bad list string', { levels: [L(), V], virtual_nodes: '0,,1' }],
    ['an empty list', { levels: [L(), V], virtual_nodes: [] }],
    ['a negative node', { levels: [L(), V], virtual_nodes: [0, -1] }],
    ['a fractional node', { levels: [L(), V], virtual_nodes: [0.5] }],
    ['a virtual node mapping', { levels: [L(), V], virtual_nodes: { a: 1 } }],
    ['a node without cores_per_socket', { levels: [L()], node: { sockets: 1 } }],
    ['a node of 0 sockets', { levels: [L()], node: { ...NODE, sockets: 0 } }],
    ['an unknown node key', { levels: [L()], node: { ...NODE, cores: 4 } }],
    ['a switch radix of 1', { levels: [L()], network: { ...NETWORK, switch_radix: 1 } }],
    ['a clock in bytes', { levels: [L()], network: { ...NETWORK, clock: '1 GB' } }],
    ['a packet in hertz', { levels: [L()], network: { ...NETWORK, packet: '1 GHz' } }],
    ['a network without hops', { levels: [L()], network: { switch_radix: 16, clock: 1e9, packet: 64 } }],
    ['a nic that is not a boolean', { levels: [L({ nic: 'yes' })] }],
    ['a gap in bandwidth units', { levels: [L({ gap: '1 GB/s' })] }],
    ['a zero copy bandwidth', { levels: [L()], copy_bandwidth: 0 }],
    ['a round overhead without a unit', { levels: [L()], round_overhead: '25' }],
    ['notes that are not a mapping', { levels: [L()], notes: 'text' }],
  ];
  it.each(accepted)('accepts %s, as the reader does', (_, doc) => {
    expect(schemaErrors('topology', doc)).toEqual([]);
    expect(readerValid(doc)).toBe(true);
  });
  it.each(rejected)('rejects %s, as the reader does', (_, doc) => {
    expect(schemaValid(doc)).toBe(false);
    expect(readerValid(doc)).toBe(false);
  });

  it('every unit the reader accepts passes the schema pattern, and the reverse', () => {
    for (const latency of ['1 s', '2 ms', '3 us', '3 µs', '3 μs', '4 ns', ' .5 us ', '1e3 ns', '1.5E-2 s']) {
      const doc = { levels: [L({ latency })] };
      expect([latency, schemaValid(doc)]).toEqual([latency, readerValid(doc)]);
      expect(schemaValid(doc)).toBe(true);
    }
    for (const bandwidth of ['1 B/s', '1 KB/s', '1 MB/s', '1 GB/s', '1 KiB/s', '1 MiB/s', '1 GiB/s', '8 bit/s', '1 Kbit/s', '1 Mbit/s', '10 Gbit/s', '0.5 GB/s']) {
      const doc = { levels: [L({ bandwidth })] };
      expect(schemaValid(doc)).toBe(true);
      expect(readerValid(doc)).toBe(true);
    }
    for (const bad of ['1 sec', '1 Gbps', '1 gbit/s', 'fast', '1 us us']) {
      expect(schemaValid({ levels: [L({ latency: bad, bandwidth: bad })] })).toBe(false);
      expect(readerValid({ levels: [L({ latency: bad, bandwidth: bad })] })).toBe(false);
    }
  });

  it('rules only the reader checks are stated in the schema description', () => {
    // Scope order and distinct names are beyond JSON Schema: the reader rejects what the schema lets through.
    const outOfOrder = { levels: [H(), L()] };
    const sameNames = { levels: [L(), H({ name: 'net' })] };
    for (const doc of [outOfOrder, sameNames]) {
      expect(schemaValid(doc)).toBe(true);
      expect(readerValid(doc)).toBe(false);
    }
    expect(SCHEMA.description).toMatch(/order system, group, host, virtual_node/);
    expect(SCHEMA.description).toMatch(/level names differ/);
  });
});
