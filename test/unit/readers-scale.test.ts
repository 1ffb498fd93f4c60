// The file readers at the sizes of a large machine: a topology of 10^6 hosts and 400 000 rules
// through the engine's readers (what the preload runs at MPI_Init, and the Node path for .json
// files), smaller ones through the TypeScript (YAML) readers. A reader that scans every earlier
// key per key never finishes these; the watchdogs only catch that, the figures are in
// `npm run bench:readers`.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addon } from '../../src/mpi/native';
// @ts-expect-error plain ESM fixtures shared with bench/readers.mjs
import { hostName, rulesText, topologyText } from '../fixtures/large-files.mjs';
import { installRulesFromEnvironment, installTopologyFromEnvironment, loadRules, loadTopology, resolveTopology } from '../../src/mpi/files';

const native = addon();
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-scale-'));
const WATCHDOG = 60_000;

const file = (name: string, text: string) => {
  const f = path.join(tmp, name);
  writeFileSync(f, text);
  return f;
};

describe('the engine\'s readers are linear', () => {
  it('a topology of 10^6 hosts: read, installed by the Node path, resolved for a job on its last hosts', () => {
    const hosts = 1_000_000;
    const f = file('million.json', topologyText(hosts));
    // The Node path hands a .json file to the engine as it is; its reader is the preload's.
    installTopologyFromEnvironment(native, { TOPOCOLL_TOPOLOGY: f });
    const job = Array.from({ length: 64 }, (_, r) => hostName(hosts - 64 + r));
    const resolved = native.resolveTopologyFile(f, job);
    expect(resolved.levels[1].labels).toEqual([`rack${(hosts - 64) >> 5}`, `rack${(hosts - 32) >> 5}`]);
    expect(resolved.levels[2].labels).toHaveLength(64);
  }, WATCHDOG);

  it('a duplicate host among 10^6 is found, with its line', () => {
    const text = topologyText(200_000).replace(`"${hostName(150_000)}"`, `"${hostName(7)}"`);
    expect(() => native.parseTopologyText(text, 'dup.json')).toThrow(`dup.json:${150_000 + 9}: not valid JSON: duplicate key "${hostName(7)}"`);
  }, WATCHDOG);

  it('400 000 rules', () => {
    const f = file('rules.json', rulesText(400_000));
    installRulesFromEnvironment(native, { TOPOCOLL_RULES: f });
    // The last rule chooses a block of its byte range, named by its own line of the file.
    const c = native.selectAlgorithm('allgather', 4, 399_999 * 8, 4 * 399_999 * 8);
    expect(c.reason).toBe(`rules file ${f}:${399_999 + 4}: rule 399999`);
    expect(c.algorithm).toBe('neighbor_exchange');
  }, WATCHDOG);
});

describe('the TypeScript (YAML) readers are linear', () => {
  it('a topology of 10^5 hosts: read and resolved', () => {
    const hosts = 100_000;
    const t = loadTopology(file('hundred-thousand.json', topologyText(hosts)));
    expect(Object.keys(t.groups!)).toHaveLength(hosts);
    const r = resolveTopology(t, Array.from({ length: 1000 }, (_, i) => hostName(hosts - 1 - i)));
    expect(r.levels[2].labels).toHaveLength(1000);
  }, WATCHDOG);

  it('a duplicate host is found, with its line', () => {
    const text = topologyText(20_000).replace(`"${hostName(15_000)}"`, `"${hostName(7)}"`);
    expect(() => loadTopology(file('dup.json', text))).toThrow(`dup.json:${15_000 + 9}: not valid YAML or JSON: duplicate key "${hostName(7)}"`);
  }, WATCHDOG);

  it('10 000 rules', () => {
    const loaded = loadRules(file('rules-10k.json', rulesText(10_000)));
    expect(loaded.lines[9_999]).toBe(9_999 + 4);
  }, WATCHDOG);
});
