// The YAML step of the file readers (src/config/document.ts yamlToJson): YAML becomes JSON with one
// key or value per line and a map from each JSON line to the YAML's, which the engine's readers
// use to name the YAML's lines (json::mapLines).
import { describe, expect, it } from 'vitest';
import { yamlToJson, type Fail } from '../../src/config/document';

const fail: Fail = (line, detail) => {
  throw new Error(`${line ?? '-'}: ${detail}`);
};

/** The YAML line of the JSON line that holds `needle`. */
function lineOf(doc: { json: string; lines: readonly number[] }, needle: string): number {
  const i = doc.json.split('\n').findIndex((l) => l.includes(needle));
  expect(i, needle).toBeGreaterThanOrEqual(0);
  return doc.lines[i];
}

describe('yamlToJson', () => {
  it('keeps the values and maps every key and value to its YAML line', () => {
    const yaml = ['# a comment', 'levels:', '  - name: net', '    latency: 15 us', '', '  - {name: node, bandwidth: 4e9}', 'groups:', '  a: r1', 'empty:', ''].join('\n');
    const doc = yamlToJson(yaml, fail)!;
    expect(JSON.parse(doc.json)).toEqual({ levels: [{ name: 'net', latency: '15 us' }, { name: 'node', bandwidth: 4e9 }], groups: { a: 'r1' }, empty: null });
    expect(doc.lines).toHaveLength(doc.json.split('\n').length - 1);
    expect([lineOf(doc, '"levels"'), lineOf(doc, '"net"'), lineOf(doc, '"latency"'), lineOf(doc, '"node"'), lineOf(doc, '"a"'), lineOf(doc, '"empty"')]).toEqual([2, 3, 4, 6, 8, 9]);
    // A mapping starts where its first key is (the comment before the document is not in it).
    const items = doc.json.split('\n').map((l, i) => [l, doc.lines[i]] as const).filter(([l]) => l.trim() === '{');
    expect(items.map(([, line]) => line)).toEqual([2, 3, 6]);
  });

  it('resolves aliases, writes keys as strings, and what JSON cannot hold as null', () => {
    const doc = yamlToJson('base: &b {latency: 1 us}\nother: *b\n1: one\ninf: .inf\n', fail)!;
    expect(JSON.parse(doc.json)).toEqual({ base: { latency: '1 us' }, other: { latency: '1 us' }, 1: 'one', inf: null });
  });

  it('reports syntax errors, duplicate keys and NUL bytes with their lines; nothing for an empty file', () => {
    expect(() => yamlToJson('a: 1\nb: [\n', fail)).toThrow(/^\d+: not valid YAML or JSON: /);
    expect(() => yamlToJson('a: 1\nb: 2\na: 3\n', fail)).toThrow('3: not valid YAML or JSON: duplicate key "a"');
    expect(() => yamlToJson('a: 1\nb: \0\n', fail)).toThrow('2: not valid YAML or JSON: NUL byte (0x00) at column 4');
    expect(yamlToJson('# only a comment\n', fail)).toBeUndefined();
  });

  it('stops an alias nested in itself', () => {
    expect(() => yamlToJson('a: &x\n  - *x\n', fail)).toThrow(/nested more than 64 deep|not valid YAML/);
  });
});
