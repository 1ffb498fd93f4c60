// Rules files (TOPOCOLL_RULES): the reader's checks and messages (file:line: key; the engine's
// reader, given the YAML as JSON with a line map), the JSON form `tune` writes, agreement with
// schemas/rules.schema.json (ajv), and the tuner's
// decisions from a sweep (noise, merging, the defaults).
import { describe, expect, it } from 'vitest';
import type { BenchRecord, BenchReport } from '../../src/bench/sweep';
import { decide, defaultChoice, describeChanges, rulesFromDecisions, tune } from '../../src/bench/tune';
import { matchesCall, rulesToJson, RulesError } from '../../src/select/rules';
import { parseRules, rulesFromObject } from '../../src/mpi/files';
import { schemaErrors } from '../../src/config/schemas';

const GOOD_YAML = `# tuned
version: 1
created: "2026-11-23T16:00:00Z"
machine: { hostname: box }
rules:
  - collective: allgather
    algorithm: bruck
    basis: block
    maxBytes: 1024
    minRanks: 2
    maxRanks: 2
    why: small blocks
  - collective: bcast
    algorithm: native
`;

function errorOf(text: string): RulesError {
  try {
    parseRules(text, 'r.yaml');
  } catch (e) {
    if (e instanceof RulesError) return e;
    throw e;
  }
  throw new Error('expected a RulesError');
}

describe('rules file reader', () => {
  it('reads YAML with the line of every rule', () => {
    const r = parseRules(GOOD_YAML, 'r.yaml');
    expect(r.file.rules).toHaveLength(2);
    expect(r.lines).toEqual([6, 13]);
    expect(r.file.rules[0]).toMatchObject({ collective: 'allgather', algorithm: 'bruck', basis: 'block', maxBytes: 1024 });
  });

  it('names file, line and key of a bad value, with the valid choices', () => {
    const bad = errorOf(GOOD_YAML.replace('algorithm: bruck', 'algorithm: brook'));
    expect(bad.line).toBe(7);
    expect(bad.message).toMatch(/^r\.yaml:7: rules\[0\]\.algorithm: "brook" is not an algorithm of allgather; valid choices: native, native:<name>, ring, /);
    const unknown = errorOf(GOOD_YAML.replace('    why: small blocks', '    wy: small blocks'));
    expect(unknown.message).toMatch(/^r\.yaml:12: rules\[0\]\.wy: unknown key; valid keys: collective, algorithm, basis, minBytes, maxBytes, minRanks, maxRanks, powerOfTwo, multiNode, nonblocking, minNodes, maxNodes, minRanksPerNode, maxRanksPerNode, mpi, why$/);
    const top = errorOf(GOOD_YAML.replace('created:', 'crated:'));
    expect(top.message).toMatch(/^r\.yaml:3: crated: unknown key/);
  });

  it('demands an explicit size basis with byte bounds, and version 1', () => {
    // Unified with the engine's form: the missing key is the key of the message (was "rules[0]: basis: missing").
    expect(errorOf(GOOD_YAML.replace('    basis: block\n', '')).message).toMatch(/^r\.yaml:6: rules\[0\]\.basis: missing: a rule with minBytes or maxBytes must say/);
    expect(errorOf(GOOD_YAML.replace('version: 1', 'version: 2')).message).toBe('r.yaml:2: version: must be 1 (the only version this topocoll reads)');
    expect(errorOf(GOOD_YAML.replace('maxBytes: 1024', 'maxBytes: -1')).message).toMatch(/^r\.yaml:9: rules\[0\]\.maxBytes: must be a whole number in \[0, /);
    expect(errorOf('rules: [\n').message).toMatch(/^r\.yaml:\d+: not valid YAML or JSON/);
  });

  it('writes JSON that reads back the same and matches the schema', () => {
    const r = parseRules(GOOD_YAML, 'r.yaml');
    const json = rulesToJson(r.file);
    const back = parseRules(json, 'r.json');
    expect(back.file).toEqual(r.file);
    expect(schemaErrors('rules', JSON.parse(json))).toEqual([]);
    // One rule per line, so the engine's lines point at rules.
    expect(json.split('\n').filter((l) => l.includes('"collective"'))).toHaveLength(2);
    expect(back.lines[1]).toBe(json.split('\n').findIndex((l) => l.includes('"bcast"')) + 1);
  });

  it('reads the placement and MPI conditions, and native:<name> with its MPI', () => {
    const r = parseRules(
      [
        'version: 1',
        'rules:',
        '  - {collective: allgather, algorithm: ring, multiNode: true, minNodes: 2, maxNodes: 8, minRanksPerNode: 2, maxRanksPerNode: 4, mpi: mpich}',
        '  - {collective: bcast, algorithm: "native:scatter_ring_allgather", mpi: mpich}',
        '',
      ].join('\n'),
      'p.yaml',
    );
    expect(r.file.rules[0]).toEqual({ collective: 'allgather', algorithm: 'ring', multiNode: true, minNodes: 2, maxNodes: 8, minRanksPerNode: 2, maxRanksPerNode: 4, mpi: 'mpich' });
    expect(schemaErrors('rules', JSON.parse(rulesToJson(r.file)))).toEqual([]);
    const bad = (rule: string) => errorOf(`version: 1\nrules:\n  - ${rule}\n`).message;
    // The engine's messages (test/native/rules_test.cc), word for word.
    expect(bad('{collective: allgather, algorithm: ring, minNodes: 4, maxNodes: 2}')).toBe('r.yaml:3: rules[0].maxNodes: must not be less than minNodes');
    expect(bad('{collective: allgather, algorithm: ring, maxRanksPerNode: 0}')).toBe('r.yaml:3: rules[0].maxRanksPerNode: must be a whole number in [1, 1073741824]');
    expect(bad('{collective: allgather, algorithm: ring, multiNode: "yes"}')).toBe('r.yaml:3: rules[0].multiNode: must be true or false (got a string)');
    expect(bad('{collective: allgather, algorithm: ring, mpi: intelmpi}')).toBe('r.yaml:3: rules[0].mpi: "intelmpi" is not an MPI; valid choices: openmpi, mpich');
    expect(bad('{collective: allgather, algorithm: "native:ring"}')).toMatch(/^r\.yaml:3: rules\[0\]\.mpi: missing: a rule choosing native:ring must say whose algorithm it is \("openmpi" or "mpich"\)$/);
    expect(bad('{collective: allgather, algorithm: "native:Ring", mpi: openmpi}')).toBe(
      'r.yaml:3: rules[0].algorithm: "native:Ring": native:<name> names one of the MPI\'s own algorithms in lowercase letters, digits and _ (native:ring)',
    );
  });

  it('matches calls as the engine does: nodes, ranks per node (rounded up), multiNode, MPI, the call\'s form', () => {
    const call = (ranks: number, nodes: number, mpi: 'openmpi' | 'mpich' = 'openmpi') => ({ collective: 'allgather' as const, ranks, blockBytes: 8, totalBytes: 8 * ranks, nodes, mpi });
    const rule = { collective: 'allgather' as const, algorithm: 'ring', minNodes: 2, maxNodes: 4, minRanksPerNode: 3, maxRanksPerNode: 4 };
    expect([call(8, 4), call(9, 4), call(16, 4), call(17, 4), call(9, 1), call(9, 2), call(12, 3)].map((c) => matchesCall(rule, c))).toEqual([false, true, true, false, false, false, true]);
    const multi = { collective: 'allgather' as const, algorithm: 'ring', multiNode: true };
    expect([call(8, 2), call(8, 1), call(8, 8)].map((c) => matchesCall(multi, c))).toEqual([true, false, false]);
    const mpich = { collective: 'allgather' as const, algorithm: 'ring', mpi: 'mpich' as const };
    expect([matchesCall(mpich, call(4, 1, 'mpich')), matchesCall(mpich, call(4, 1, 'openmpi'))]).toEqual([true, false]);
    const nonblocking = { collective: 'allgather' as const, algorithm: 'ring', nonblocking: true };
    expect([matchesCall(nonblocking, { ...call(4, 1), nonblocking: true }), matchesCall(nonblocking, call(4, 1))]).toEqual([true, false]);
    expect(matchesCall({ ...nonblocking, nonblocking: false }, call(4, 1))).toBe(true);
  });

  it('agrees with the schema on what is invalid', () => {
    const cases: unknown[] = [
      { version: 1, rules: [{ collective: 'allgather', algorithm: 'ring', maxBytes: 8 }] },
      { version: 1, rules: [{ collective: 'scan', algorithm: 'ring' }] },
      { version: 1, rules: [{ collective: 'bcast', algorithm: 'binomial', colour: 'red' }] },
      { version: 1, rules: [{ collective: 'bcast', algorithm: 'native:binomial' }] },
      { version: 1, rules: [{ collective: 'bcast', algorithm: 'binomial', mpi: 'lam' }] },
      { version: 1, rules: [{ collective: 'bcast', algorithm: 'binomial', minNodes: 0 }] },
      { version: 1, rules: [{ collective: 'bcast', algorithm: 'binomial', nonblocking: 'yes' }] },
      { version: 2, rules: [] },
      { version: 1 },
    ];
    for (const c of cases) {
      expect(schemaErrors('rules', c).length, JSON.stringify(c)).toBeGreaterThan(0);
      expect(() => rulesFromObject(c), JSON.stringify(c)).toThrow(RulesError);
    }
    expect(schemaErrors('rules', { version: 1, rules: [] })).toEqual([]);
  });
});

function record(collective: BenchRecord['collective'], algorithm: string, bytes: number, median: number, spread = 0.01): BenchRecord {
  return {
    collective, algorithm, bytes, basis: 'block', ranks: 4, iterations: 10, repetitions: 3, times_us: [median, median, median],
    min_us: median, median_us: median, max_us: median, relative_spread: spread, speedup_vs_native: null, check: 'off', errors: 0,
  };
}

// 4 ranks: the defaults pick our algorithms there (on 2 they pick native for small messages).
function report(records: BenchRecord[], ranks = 4): BenchReport {
  return {
    format: 'topocoll-bench', version: 1, created: '2026-11-23T16:00:00Z', generator: 'topocoll test',
    machine: { hostname: 'box', cpuModel: 'cpu', cpus: 2, memoryBytes: 1, os: 'linux', node: 'v20', loadAverage: 0 },
    mpi: { flavour: 'openmpi', library: 'Open MPI' }, job: { ranks, nodes: 1, ranksPerNode: [ranks] },
    options: { collectives: ['allgather'], algorithms: [], sizes: [], repetitions: 3, targetUs: 1000, rotateBytes: 0, check: false, root: 0 },
    records, skipped: [],
  };
}

describe('tune', () => {
  it('mirrors the default rules (p = 2 is a power of two: recursive doubling below 512 KiB total)', () => {
    const all = ['ring', 'recursive_doubling', 'bruck'];
    expect(defaultChoice('allgather', 2, 1024, all)).toBe('recursive_doubling');
    expect(defaultChoice('allgather', 2, 1 << 20, all)).toBe('native');  // 2 ranks, blocks > 512 KiB
    expect(defaultChoice('allgather', 4, 1 << 20, all)).toBe('ring');
    expect(defaultChoice('allgather', 3, 1024, all)).toBe('bruck');
    expect(defaultChoice('allgather', 2, 1024, ['ring'])).toBe('ring');
  });

  it('applies a rule for one MPI only under that MPI', () => {
    const all = ['hierarchical', 'shm_numa', 'binomial'];
    expect(defaultChoice('bcast', 2, 4096, all, 1, 'openmpi')).toBe('hierarchical');
    expect(defaultChoice('bcast', 2, 4096, all, 1, 'mpich')).toBe('native');
    expect(defaultChoice('bcast', 2, 65536, all, 1, 'mpich')).toBe('hierarchical');
  });

  it('keeps the default within the noise, takes a clear winner, merges neighbours', () => {
    const recs = [
      // 8 B: ring 2% faster than the default: noise, keep recursive_doubling.
      record('allgather', 'native', 8, 10), record('allgather', 'recursive_doubling', 8, 5.1), record('allgather', 'ring', 8, 5.0),
      // 1 KiB and 4 KiB: ring clearly faster: one merged range.
      record('allgather', 'native', 1024, 10), record('allgather', 'recursive_doubling', 1024, 8), record('allgather', 'ring', 1024, 6),
      record('allgather', 'native', 4096, 20), record('allgather', 'recursive_doubling', 4096, 16), record('allgather', 'ring', 4096, 12),
      // 64 KiB: native wins by far.
      record('allgather', 'native', 65536, 50), record('allgather', 'recursive_doubling', 65536, 90), record('allgather', 'ring', 65536, 80),
      record('allgather', 'auto', 65536, 1),
    ];
    const decisions = decide(report(recs), { noiseFloor: 0.03 });
    expect(decisions.map((d) => d.chosen)).toEqual(['recursive_doubling', 'ring', 'ring', 'native']);
    const rules = rulesFromDecisions(decisions, { minRanks: 2, maxRanks: 2 });
    expect(rules).toEqual([
      expect.objectContaining({ collective: 'allgather', algorithm: 'recursive_doubling', basis: 'block', maxBytes: 1024, minRanks: 2, maxRanks: 2 }),
      expect.objectContaining({ algorithm: 'ring', minBytes: 1024, maxBytes: 65536 }),
      expect.objectContaining({ algorithm: 'native', minBytes: 65536 }),
    ]);
    expect(rules[0].minBytes).toBeUndefined();
    expect(rules[2].maxBytes).toBeUndefined();
    expect(describeChanges(decisions)).toEqual(['allgather 1 KiB..4 KiB: recursive_doubling -> ring (1.33x faster)', 'allgather 64 KiB: recursive_doubling -> native (1.80x faster)']);
    const { file } = tune(report(recs), { noiseFloor: 0.03 });
    expect(() => rulesFromObject(file)).not.toThrow();
    expect(schemaErrors('rules', JSON.parse(rulesToJson(file)))).toEqual([]);
  });

  it('reports changes per run of neighbouring sizes, never across a size that keeps the default', () => {
    const recs = [8, 64, 512].flatMap((b, i) => [
      record('allgather', 'native', b, 10),
      record('allgather', 'recursive_doubling', b, i === 1 ? 4 : 8),
      record('allgather', 'ring', b, i === 1 ? 9 : 4),
    ]);
    const decisions = decide(report(recs), { noiseFloor: 0.03 });
    expect(decisions.map((d) => d.chosen)).toEqual(['ring', 'recursive_doubling', 'ring']);
    expect(describeChanges(decisions)).toEqual(['allgather 8 B: recursive_doubling -> ring (2.00x faster)', 'allgather 512 B: recursive_doubling -> ring (2.00x faster)']);
  });

  it('treats a noisy cell\'s spread as the tolerance', () => {
    const recs = [record('allgather', 'native', 8, 10), record('allgather', 'recursive_doubling', 8, 11), record('allgather', 'ring', 8, 9, 0.3)];
    expect(decide(report(recs), { noiseFloor: 0.03 })[0].chosen).toBe('recursive_doubling');
    expect(decide(report(recs.map((r) => ({ ...r, relative_spread: 0.01 }))), { noiseFloor: 0.03 })[0].chosen).toBe('ring');
  });

  it('keeps a noisy default that the winner beats by less than the default\'s own spread', () => {
    // ring 7% faster than recursive_doubling (the default), whose repetitions spread 20%.
    const recs = [record('allgather', 'native', 8, 10), record('allgather', 'recursive_doubling', 8, 10.7, 0.2), record('allgather', 'ring', 8, 10)];
    expect(decide(report(recs), { noiseFloor: 0.03 })[0].chosen).toBe('recursive_doubling');
    expect(decide(report(recs.map((r) => ({ ...r, relative_spread: 0.01 }))), { noiseFloor: 0.03 })[0].chosen).toBe('native');
  });
});
