// Topology files: one reader, the engine's, reached two ways on the same texts: parseTopology
// (the text as YAML, converted to JSON with a line map) and the addon's parseTopologyText (the text
// as JSON): valid files read the same, and every error names the file, line and key, the same both ways.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addon } from '../../src/mpi/native';
import { normalizeTopology, TopologyError, type Topology } from '../../src/topology';
import { loadTopology, parseTopology } from '../../src/mpi/files';

const native = addon();
const examples = path.resolve(__dirname, '../../examples/topology');
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-topology-'));

/** A JSON text with one member per line, so that errors have distinct lines. */
const lines = (...l: string[]) => l.join('\n');
const LEVEL_SYSTEM = '{"name": "network", "scope": "system", "latency": "15 us", "bandwidth": "1 Gbit/s"}';
const LEVEL_HOST = '{"name": "node", "scope": "host", "latency": 2e-6, "bandwidth": 4e9}';

function tsError(text: string, file = 'bad.json'): string {
  try {
    parseTopology(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(TopologyError);
    return (e as Error).message;
  }
  throw new Error('the TypeScript reader accepted it');
}

function nativeError(text: string, file = 'bad.json'): string {
  try {
    native.parseTopologyText(text, file);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the native reader accepted it');
}

/** Both readers, same message. */
function bothReject(text: string): string {
  const ts = tsError(text);
  expect(nativeError(text)).toBe(ts);
  return ts;
}

/** What the native reader returns, shaped like the TypeScript Topology for comparison. */
function comparable(t: Topology) {
  const digits = (x: number) => Number(x.toPrecision(12));
  return {
    name: t.name,
    description: t.description,
    levels: t.levels.map(({ name, scope, latency, bandwidth, exchangeBandwidth }) => ({
      name,
      scope,
      latency: digits(latency),
      bandwidth: digits(bandwidth),
      exchangeBandwidth: exchangeBandwidth === undefined ? undefined : digits(exchangeBandwidth),
    })),
    groups: t.groups,
    virtualNodes: t.virtualNodes,
  };
}

describe('topology files: valid', () => {
  it.each(['two-level.yaml', 'rack-node-socket.yaml', 'emulated-cluster.yaml'])('example %s reads, and its normalized JSON reads the same in the engine', (name) => {
    const t = loadTopology(path.join(examples, name));
    expect(t.levels[0].scope).toBe('system');
    const json = path.join(tmp, name.replace('.yaml', '.json'));
    writeFileSync(json, JSON.stringify(normalizeTopology(t)));
    const n = native.parseTopologyFile(json);
    const fromNative = { ...n, levels: n.levels.map(({ line: _, ...l }: { line: number }) => l) };
    delete fromNative.source;
    expect(comparable({ ...t, ...fromNative } as Topology)).toEqual(comparable(t));
    // ... and the TypeScript reader reads its own normalized output back to the same topology.
    expect(comparable(loadTopology(json))).toEqual(comparable(t));
  });

  it('two-level example: levels, units, lines', () => {
    const t = loadTopology(path.join(examples, 'two-level.yaml'));
    expect(t.levels.map((l) => [l.name, l.scope])).toEqual([['network', 'system'], ['node', 'host']]);
    expect(t.levels[0].latency).toBeCloseTo(15e-6, 15);
    expect(t.levels[0].bandwidth).toBe(125e6);
    expect(t.levels[1].bandwidth).toBe(4e9);
    expect(t.levels.map((l) => l.line)).toEqual([10, 14]);
    expect(t.groups).toBeUndefined();
    expect(t.virtualNodes).toBeUndefined();
  });

  it('rack-node-socket example: four levels, groups, block virtual nodes', () => {
    const t = loadTopology(path.join(examples, 'rack-node-socket.yaml'));
    expect(t.levels.map((l) => l.scope)).toEqual(['system', 'group', 'host', 'virtual_node']);
    expect(t.groups).toEqual({ n01: 'rack-a', n02: 'rack-a', n03: 'rack-b', n04: 'rack-b' });
    expect(t.virtualNodes).toEqual({ kind: 'block', ranksPerNode: 8 });
  });

  it('numbers in base units and every unit of both dimensions', () => {
    const units: Array<[string, number]> = [['1 s', 1], ['2 ms', 2e-3], ['3us', 3e-6], ['3 µs', 3e-6], ['3 μs', 3e-6], ['4 ns', 4e-9], [' .5 us ', 0.5e-6], ['1e3 ns', 1e-6]];
    const bws: Array<[string, number]> = [['1 B/s', 1], ['1 KB/s', 1e3], ['1 MB/s', 1e6], ['1 GB/s', 1e9], ['1 KiB/s', 1024], ['1 MiB/s', 1048576], ['1 GiB/s', 1073741824], ['8 bit/s', 1], ['8 Kbit/s', 1e3], ['8 Mbit/s', 1e6], ['10 Gbit/s', 1.25e9]];
    for (const [lat, want] of units) {
      const text = `{"levels": [{"name": "a", "scope": "system", "latency": ${JSON.stringify(lat)}, "bandwidth": 1}]}`;
      expect(parseTopology(text, 'u.json').levels[0].latency).toBeCloseTo(want, 20);
      expect(native.parseTopologyText(text, 'u.json').levels[0].latency).toBeCloseTo(want, 20);
    }
    for (const [bw, want] of bws) {
      const text = `{"levels": [{"name": "a", "scope": "system", "latency": 0, "bandwidth": ${JSON.stringify(bw)}}]}`;
      expect(parseTopology(text, 'u.json').levels[0].bandwidth).toBeCloseTo(want, 6);
      expect(native.parseTopologyText(text, 'u.json').levels[0].bandwidth).toBeCloseTo(want, 6);
    }
  });

  it('exchange_bandwidth: optional, read alike by both readers and kept by normalizing', () => {
    const text = '{"levels": [{"name": "net", "scope": "system", "latency": "30 us", "bandwidth": "114 MiB/s", "exchange_bandwidth": "59 MiB/s"}, ' + LEVEL_HOST + ']}';
    const t = parseTopology(text, 'x.json');
    expect(t.levels[0].exchangeBandwidth).toBe(59 * 1048576);
    expect(t.levels[1].exchangeBandwidth).toBeUndefined();
    expect(native.parseTopologyText(text, 'x.json').levels[0].exchangeBandwidth).toBe(59 * 1048576);
    expect(native.parseTopologyText(text, 'x.json').levels[1].exchangeBandwidth).toBeUndefined();
    expect(parseTopology(JSON.stringify(normalizeTopology(t)), 'n.json').levels[0].exchangeBandwidth).toBe(59 * 1048576);
  });

  it('reduce_bandwidth (the model\'s 1/γ): optional, read alike by both readers and kept by normalizing', () => {
    const text = '{"levels": [' + LEVEL_SYSTEM + '], "reduce_bandwidth": "4800 MiB/s"}';
    const t = parseTopology(text, 'g.json');
    expect(t.reduceBandwidth).toBe(4800 * 1048576);
    expect(native.parseTopologyText(text, 'g.json').reduceBandwidth).toBe(4800 * 1048576);
    expect(parseTopology(JSON.stringify(normalizeTopology(t)), 'n.json').reduceBandwidth).toBe(4800 * 1048576);
    const without = '{"levels": [' + LEVEL_SYSTEM + ']}';
    expect(parseTopology(without, 'g.json').reduceBandwidth).toBeUndefined();
    expect(native.parseTopologyText(without, 'g.json').reduceBandwidth).toBeUndefined();
    expect(normalizeTopology(parseTopology(without, 'g.json'))).not.toHaveProperty('reduce_bandwidth');
  });

  it('virtual nodes: block, cyclic, list as a string and as a list', () => {
    const withNodes = (v: string) =>
      `{"levels": [${LEVEL_SYSTEM}, {"name": "vn", "scope": "virtual_node", "latency": 0, "bandwidth": 1}], "virtual_nodes": ${v}}`;
    const cases: Array<[string, unknown]> = [
      ['"block:3"', { kind: 'block', ranksPerNode: 3 }],
      ['"cyclic:2"', { kind: 'cyclic', nodes: 2 }],
      ['"0,0,1,1,0"', { kind: 'list', nodes: [0, 0, 1, 1, 0] }],
      ['[2, 0, 1]', { kind: 'list', nodes: [2, 0, 1] }],
    ];
    for (const [v, want] of cases) {
      expect(parseTopology(withNodes(v), 'v.json').virtualNodes).toEqual(want);
      expect(native.parseTopologyText(withNodes(v), 'v.json').virtualNodes).toEqual(want);
    }
  });

  it('a YAML file with a $schema key, comments and flow lists reads', () => {
    const t = parseTopology(lines(
      '$schema: ../../schemas/topology.schema.json',
      '# comment',
      'levels:',
      '  - {name: net, scope: system, latency: 1 ms, bandwidth: 1 MB/s}',
      '  - {name: vn, scope: virtual_node, latency: 0, bandwidth: 1 GB/s}',
      'virtual_nodes: [0, 1, 0, 1]',
    ), 'flow.yaml');
    expect(t.levels[1].line).toBe(5);
    expect(t.virtualNodes).toEqual({ kind: 'list', nodes: [0, 1, 0, 1] });
  });
});

describe('topology files: errors name file:line: key, with the valid choices', () => {
  const cases: Array<[string, string, string]> = [
    ['not a mapping', '[1, 2]', 'bad.json:1: must be a mapping, got a list'],
    ['unknown top-level key', lines('{', `"levels": [${LEVEL_SYSTEM}],`, '"level": 1', '}'), 'bad.json:3: level: unknown key; valid keys: $schema, name, description, levels, groups, virtual_nodes, reduce_bandwidth'],
    ['levels missing', lines('{', '"name": "x"', '}'), 'bad.json:1: levels: is required: a list of levels, widest first'],
    ['levels not a list', lines('{', '"levels": {"a": 1}', '}'), 'bad.json:2: levels: must be a non-empty list of levels, widest first, got a mapping'],
    ['levels empty', lines('{', '"levels": []', '}'), 'bad.json:2: levels: must be a non-empty list of levels, widest first, got a list'],
    ['level not a mapping', lines('{', '"levels": [', '"network"', ']}'), 'bad.json:3: levels[0]: must be a mapping, got string "network"'],
    ['unknown level key', lines('{"levels": [{', '"name": "a", "scope": "system", "latency": 0, "bandwidth": 1,', '"speed": 3', '}]}'), 'bad.json:3: levels[0].speed: unknown key; valid keys: name, scope, latency, bandwidth, exchange_bandwidth'],
    ['level name missing', lines('{"levels": [', '{"scope": "system", "latency": 0, "bandwidth": 1}', ']}'), 'bad.json:2: levels[0].name: is required'],
    ['level name not a string', lines('{"levels": [', '{"name": 5, "scope": "system", "latency": 0, "bandwidth": 1}', ']}'), 'bad.json:2: levels[0].name: must be a non-empty string, got number 5'],
    ['level name empty', lines('{"levels": [', '{"name": " ", "scope": "system", "latency": 0, "bandwidth": 1}', ']}'), 'bad.json:2: levels[0].name: must be a non-empty string, got string " "'],
    ['duplicate level name', lines('{"levels": [', LEVEL_SYSTEM + ',', '{"name": "network", "scope": "host", "latency": 0, "bandwidth": 1}', ']}'), 'bad.json:3: levels[1].name: "network" names two levels; level names must differ'],
    ['scope missing', lines('{"levels": [', '{"name": "a", "latency": 0, "bandwidth": 1}', ']}'), 'bad.json:2: levels[0].scope: is required'],
    ['scope not valid', lines('{"levels": [', '{"name": "a",', '"scope": "rack", "latency": 0, "bandwidth": 1}', ']}'), 'bad.json:3: levels[0].scope: "rack" is not valid; valid choices: system, group, host, virtual_node'],
    ['scopes out of order', lines('{"levels": [', LEVEL_HOST + ',', LEVEL_SYSTEM, ']}'), 'bad.json:3: levels[1].scope: "system" cannot follow "host": levels go from the widest to the narrowest, each scope at most once, in the order system, group, host, virtual_node'],
    ['scope twice', lines('{"levels": [', LEVEL_SYSTEM + ',', '{"name": "b", "scope": "system", "latency": 0, "bandwidth": 1}', ']}'), 'bad.json:3: levels[1].scope: "system" cannot follow "system": levels go from the widest to the narrowest, each scope at most once, in the order system, group, host, virtual_node'],
    ['latency missing', lines('{"levels": [', '{"name": "a", "scope": "system", "bandwidth": 1}', ']}'), 'bad.json:2: levels[0].latency: is required (a number in seconds, or a string with a unit such as "15 us")'],
    ['latency without a known unit', lines('{"levels": [{"name": "a", "scope": "system",', '"latency": "15 usec",', '"bandwidth": 1}]}'), 'bad.json:2: levels[0].latency: "15 usec" is not a time with a unit (s, ms, us, µs, μs, ns)'],
    ['latency without any unit', lines('{"levels": [{"name": "a", "scope": "system",', '"latency": "15",', '"bandwidth": 1}]}'), 'bad.json:2: levels[0].latency: "15" is not a time with a unit (s, ms, us, µs, μs, ns)'],
    ['latency negative', lines('{"levels": [{"name": "a", "scope": "system",', '"latency": -1,', '"bandwidth": 1}]}'), 'bad.json:2: levels[0].latency: must be a finite non-negative time, got -1'],
    ['latency negative with a unit', lines('{"levels": [{"name": "a", "scope": "system",', '"latency": "-1 us",', '"bandwidth": 1}]}'), 'bad.json:2: levels[0].latency: must be a finite non-negative time, got "-1 us"'],
    ['latency a boolean', lines('{"levels": [{"name": "a", "scope": "system",', '"latency": true,', '"bandwidth": 1}]}'), 'bad.json:2: levels[0].latency: must be a number in seconds or a string with a unit such as "15 us", got boolean true'],
    ['bandwidth zero', lines('{"levels": [{"name": "a", "scope": "system", "latency": 0,', '"bandwidth": "0 Gbit/s"}]}'), 'bad.json:2: levels[0].bandwidth: must be a finite positive bandwidth, got "0 Gbit/s"'],
    ['bandwidth a time', lines('{"levels": [{"name": "a", "scope": "system", "latency": 0,', '"bandwidth": "1 us"}]}'), 'bad.json:2: levels[0].bandwidth: "1 us" is not a bandwidth with a unit (B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, bit/s, Kbit/s, Mbit/s, Gbit/s)'],
    ['exchange bandwidth zero', lines('{"levels": [{"name": "a", "scope": "system", "latency": 0, "bandwidth": 1,', '"exchange_bandwidth": 0}]}'), 'bad.json:2: levels[0].exchange_bandwidth: must be a finite positive bandwidth, got 0'],
    ['groups without a group level', lines('{', `"levels": [${LEVEL_SYSTEM}],`, '"groups": {"a": "r1"}', '}'), 'bad.json:3: groups: is given but no level has scope group; add one, or remove groups'],
    ['group level without groups', lines('{"levels": [', LEVEL_SYSTEM + ',', '{"name": "rack",', '"scope": "group", "latency": 0, "bandwidth": 1}', ']}'), 'bad.json:4: levels[1].scope: a level with scope group needs `groups` (hostname -> group name)'],
    ['groups not a mapping', lines('{', `"levels": [${LEVEL_SYSTEM}, {"name": "rack", "scope": "group", "latency": 0, "bandwidth": 1}],`, '"groups": ["a", "b"]', '}'), 'bad.json:3: groups: must be a mapping, got a list'],
    ['groups empty', lines('{', `"levels": [${LEVEL_SYSTEM}, {"name": "rack", "scope": "group", "latency": 0, "bandwidth": 1}],`, '"groups": {}', '}'), 'bad.json:3: groups: must map at least one hostname to its group'],
    ['group not a string', lines('{', `"levels": [${LEVEL_SYSTEM}, {"name": "rack", "scope": "group", "latency": 0, "bandwidth": 1}],`, '"groups": {', '"n01": 1', '}}'), 'bad.json:4: groups.n01: must be a non-empty string, got number 1'],
    ['virtual_nodes without a level', lines('{', `"levels": [${LEVEL_SYSTEM}],`, '"virtual_nodes": "block:2"', '}'), 'bad.json:3: virtual_nodes: is given but no level has scope virtual_node; add one, or remove virtual_nodes'],
    ['virtual_node level without a map', lines('{"levels": [', LEVEL_SYSTEM + ',', '{"name": "vn", "scope": "virtual_node", "latency": 0, "bandwidth": 1}', ']}'), 'bad.json:3: levels[1].scope: a level with scope virtual_node needs `virtual_nodes`: block:K (K consecutive ranks per node), cyclic:N (ranks dealt round-robin to N nodes), or a list with the node of each rank ([0, 0, 1, 1])'],
  ];
  const vnLevels = `"levels": [${LEVEL_SYSTEM}, {"name": "vn", "scope": "virtual_node", "latency": 0, "bandwidth": 1}],`;
  const forms = 'valid forms: block:K (K consecutive ranks per node), cyclic:N (ranks dealt round-robin to N nodes), or a list with the node of each rank ([0, 0, 1, 1])';
  cases.push(
    ['block:0', lines('{', vnLevels, '"virtual_nodes": "block:0"', '}'), `bad.json:3: virtual_nodes: "block:0" needs a whole number >= 1 after "block:"; ${forms}`],
    ['cyclic:x', lines('{', vnLevels, '"virtual_nodes": "cyclic:x"', '}'), `bad.json:3: virtual_nodes: "cyclic:x" needs a whole number >= 1 after "cyclic:"; ${forms}`],
    ['a bad list string', lines('{', vnLevels, '"virtual_nodes": "0,,1"', '}'), `bad.json:3: virtual_nodes: "0,,1" is not valid; ${forms}`],
    ['an empty list', lines('{', vnLevels, '"virtual_nodes": []', '}'), `bad.json:3: virtual_nodes: is an empty list; ${forms}`],
    ['a negative node', lines('{', vnLevels, '"virtual_nodes": [0,', '-1]', '}'), 'bad.json:4: virtual_nodes[1]: must be a virtual node number >= 0, got number -1'],
    ['a fractional node', lines('{', vnLevels, '"virtual_nodes": [0.5]', '}'), 'bad.json:3: virtual_nodes[0]: must be a virtual node number >= 0, got number 0.5'],
    ['a mapping', lines('{', vnLevels, '"virtual_nodes": {"a": 1}', '}'), `bad.json:3: virtual_nodes: must be a string or a list, got a mapping; ${forms}`],
    ['name not a string', lines('{', `"levels": [${LEVEL_SYSTEM}],`, '"name": [1]', '}'), 'bad.json:3: name: must be a non-empty string, got a list'],
    ['reduce_bandwidth zero', lines('{', `"levels": [${LEVEL_SYSTEM}],`, '"reduce_bandwidth": "0 MiB/s"', '}'), 'bad.json:3: reduce_bandwidth: must be a finite positive bandwidth, got "0 MiB/s"'],
    ['reduce_bandwidth a time', lines('{', `"levels": [${LEVEL_SYSTEM}],`, '"reduce_bandwidth": "0.2 ns"', '}'), 'bad.json:3: reduce_bandwidth: "0.2 ns" is not a bandwidth with a unit (B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, bit/s, Kbit/s, Mbit/s, Gbit/s)'],
  );

  it.each(cases)('%s', (_, text, message) => {
    expect(bothReject(text)).toBe(message);
  });

  it('YAML errors carry the YAML line of the key', () => {
    const yaml = lines('levels:', '  - name: a', '    scope: system', '    latency: 1 us', '    bandwidth: 1 GB/s', '    colour: red');
    expect(tsError(yaml, 'x.yaml')).toBe('x.yaml:6: levels[0].colour: unknown key; valid keys: name, scope, latency, bandwidth, exchange_bandwidth');
    expect(tsError(lines('levels:', '  - name: a', '    scope: rack'), 'x.yaml')).toBe('x.yaml:3: levels[0].scope: "rack" is not valid; valid choices: system, group, host, virtual_node');
    expect(tsError(lines('levels:', '  - name: a', '    scope: system', '    latency: 1 us'), 'x.yaml')).toMatch(/^x\.yaml:2: levels\[0\]\.bandwidth: is required/);
  });

  it('a YAML syntax error, a duplicate key and an empty file', () => {
    expect(tsError(lines('levels:', '  - name: a', ' bad: [', ''), 'x.yaml')).toMatch(/^x\.yaml:\d+: not valid YAML or JSON: /);
    expect(tsError(lines('name: a', 'name: b'), 'x.yaml')).toBe('x.yaml:2: not valid YAML or JSON: duplicate key "name"');
    expect(tsError('# nothing\n', 'x.yaml')).toBe('x.yaml: is empty; a topology needs at least `levels`');
  });

  it('an unreadable file names the file and the reason, in both readers', () => {
    const missing = path.join(tmp, 'missing.json');
    expect(() => loadTopology(missing)).toThrow(`${missing}: cannot read the topology file (ENOENT)`);
    expect(() => native.parseTopologyFile(missing)).toThrow(`${missing}: cannot read the topology file (No such file or directory)`);
  });

  it('the engine tells how to convert a YAML file', () => {
    expect(() => native.parseTopologyFile(path.join(examples, 'two-level.yaml'))).toThrow(
      /two-level\.yaml: this looks like YAML; .* convert it with `npx topocoll topology --json .*two-level\.yaml > topology\.json` and set TOPOCOLL_TOPOLOGY=topology\.json/,
    );
  });
});

describe('the engine\'s JSON reader is strict', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['trailing comma', '{"levels": [1,]}', /^bad\.json:1: not valid JSON: trailing comma before '\]'$/],
    ['trailing comma in an object', '{"name": "a",\n}', /^bad\.json:2: not valid JSON: trailing comma before '}'$/],
    ['comment', '{\n// hi\n"name": 1}', /^bad\.json:2: not valid JSON: unexpected '\/'; expected a key in double quotes$/],
    ['comment as a value', '{"name": /* x */ 1}', /^bad\.json:1: not valid JSON: comments are not JSON$/],
    ['single quotes', "{'name': 1}", /^bad\.json:1: not valid JSON: unexpected '''; expected a key in double quotes$/],
    ['duplicate key', '{"name": "a",\n"name": "b"}', /^bad\.json:2: not valid JSON: duplicate key "name"$/],
    ['NaN', '{"levels": NaN}', /^bad\.json:1: not valid JSON: unexpected 'N'; expected a value$/],
    ['leading zero', '{"levels": 01}', /^bad\.json:1: not valid JSON: numbers do not start with 0$/],
    ['bare decimal point', '{"levels": 1.}', /^bad\.json:1: not valid JSON: a decimal point must be followed by digits$/],
    ['exponent without digits', '{"levels": 1e}', /^bad\.json:1: not valid JSON: an exponent needs digits$/],
    ['huge number', '{"levels": 1e999}', /^bad\.json:1: not valid JSON: the number 1e999 is out of range$/],
    ['unterminated string', '{"name": "abc\n"}', /^bad\.json:1: not valid JSON: a string is not closed before the end of the line$/],
    ['control character', '{"name": "a\tb"}', /^bad\.json:1: not valid JSON: control character \(byte 0x09\) in a string; write it escaped$/],
    ['bad escape', '{"name": "a\\qb"}', /^bad\.json:1: not valid JSON: unknown escape \\ followed by 'q' in a string/],
    ['lone surrogate', '{"name": "\\udc00"}', /^bad\.json:1: not valid JSON: \\u escape is a lone low surrogate$/],
    ['half a surrogate pair', '{"name": "\\ud83d x"}', /^bad\.json:1: not valid JSON: \\u escape is a high surrogate without its low half$/],
    ['missing colon', '{"name" 1}', /^bad\.json:1: not valid JSON: unexpected '1'; expected ':' after key "name"$/],
    ['missing comma', '{"name": 1\n"levels": 2}', /^bad\.json:2: not valid JSON: unexpected '"'; expected ',' or '}' after the value of "name"$/],
    ['two values', '{} {}', /^bad\.json:1: not valid JSON: unexpected '{' after the end of the value$/],
    ['empty', ' \n ', /^bad\.json:2: not valid JSON: the file is empty; expected a JSON value$/],
    ['unclosed', '{"levels": [', /^bad\.json:1: not valid JSON: unexpected end of file; expected a value$/],
    ['too deep', '['.repeat(100) + ']'.repeat(100), /^bad\.json:1: not valid JSON: nested more than 64 levels deep$/],
  ];
  it.each(cases)('%s', (_, text, pattern) => {
    expect(nativeError(text)).toMatch(pattern);
  });

  // Byte-level cases go through files: a JS string cannot carry invalid UTF-8 or a raw BOM.
  const fileWith = (name: string, bytes: Buffer) => {
    const f = path.join(tmp, name);
    writeFileSync(f, bytes);
    return f;
  };
  const LEVELS = '"levels": [{"name": "n", "scope": "system", "latency": 0, "bandwidth": 1}]';

  it('invalid UTF-8 (a stray byte, an overlong form, a truncated sequence) is rejected', () => {
    for (const [name, bytes] of [['stray', [0xff]], ['overlong', [0xc0, 0xaf]], ['overlong3', [0xe0, 0x80, 0xaf]], ['truncated', [0xe2, 0x82]]] as const) {
      const f = fileWith(`${name}.json`, Buffer.concat([Buffer.from('{\n"name": "a'), Buffer.from(bytes), Buffer.from(`b", ${LEVELS}}`)]));
      expect(() => native.parseTopologyFile(f)).toThrow(new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2: not valid JSON: invalid UTF-8`));
    }
  });

  it('escapes, surrogate pairs, UTF-8 and a byte order mark read right', () => {
    const body = `{"name": "a\\"\\\\\\/\\n\\u00e9\\ud83d\\ude00 é€😀", "description": "\\b\\f\\r\\t", ${LEVELS}}`;
    const f = fileWith('escapes.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body, 'utf8')]));
    const t = native.parseTopologyFile(f);
    expect(t.name).toBe('a"\\/\n\u00e9\u{1f600} é€😀');
    expect(t.description).toBe('\b\f\r\t');
    expect(parseTopology(body, 'escapes.json').name).toBe(t.name);
  });
});
