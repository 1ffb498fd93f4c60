// TOPOCOLL_* variables and files as the engine and the TypeScript side read them: one rule for
// whitespace (trimmed, every variable), a misspelled variable reported once with the closest
// name, and files that are not files (a directory, binary bytes) named as such by both readers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addon } from '../../src/mpi/native';
import { PARAMETERS, TOOL_VARIABLES } from '../../src/select/registry';
import { loadRules, loadTopology, parseRules, parseTopology } from '../../src/mpi/files';

const native = addon();
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-config-'));
const repoRoot = path.resolve(__dirname, '../..');

/** Runs loadConfig() twice in a fresh Node (the warnings are once per process); its stderr and status. */
function loadConfigIn(env: Record<string, string>) {
  const script = `const { addon } = require(${JSON.stringify(path.join(repoRoot, 'dist/mpi/native.js'))}); addon().loadConfig(); addon().loadConfig();`;
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TOPOCOLL_') && !k.startsWith('OMPI_COMM_WORLD') && k !== 'PMI_RANK'));
  const r = spawnSync(process.execPath, ['-e', script], { env: { ...clean, ...env }, encoding: 'utf8', timeout: 30_000 });
  return { stderr: r.stderr, status: r.status };
}

describe('unknown TOPOCOLL_* variables', () => {
  it('a misspelled one is reported once, naming the closest variable', () => {
    const r = loadConfigIn({ TOPOCOLL_ALLGATHER_ALGORITM: 'ring', TOPOCOLL_VERBSE: '1' });
    expect(r.status).toBe(0);
    expect(r.stderr.trim().split('\n').sort()).toEqual([
      'topocoll: warning: TOPOCOLL_ALLGATHER_ALGORITM is not a topocoll variable and is ignored; did you mean TOPOCOLL_ALLGATHER_ALGORITHM?',
      'topocoll: warning: TOPOCOLL_VERBSE is not a topocoll variable and is ignored; did you mean TOPOCOLL_VERBOSE?',
    ]);
  });

  it('one far from every name gets the list of them', () => {
    const r = loadConfigIn({ TOPOCOLL_COLOUR: 'red' });
    const tools = TOOL_VARIABLES.map((v) => v.env).join(', ');
    expect(r.stderr).toMatch(new RegExp(`^topocoll: warning: TOPOCOLL_COLOUR is not a topocoll variable and is ignored; valid variables: TOPOCOLL_ALLGATHER_ALGORITHM, .*TOPOCOLL_VERBOSE, .*${tools}\n$`));
  });

  it('every variable of the registry, the tools\' included, is known', () => {
    const env = Object.fromEntries([...PARAMETERS.map((p) => [p.env, p.default]), ...TOOL_VARIABLES.map((v) => [v.env, ''])]);
    env.TOPOCOLL_MPI = 'openmpi';
    expect(loadConfigIn(env)).toEqual({ stderr: '', status: 0 });
  });

  it('only the first rank warns: the launcher\'s rank before MPI_Init (Node reads its configuration first)', () => {
    expect(loadConfigIn({ TOPOCOLL_SHMM: '0', OMPI_COMM_WORLD_RANK: '1' }).stderr).toBe('');
    expect(loadConfigIn({ TOPOCOLL_SHMM: '0', OMPI_COMM_WORLD_RANK: '0' }).stderr).toContain('did you mean TOPOCOLL_SHM?');
  });
});

describe('surrounding whitespace is trimmed, for every variable', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const k of Object.keys(process.env)) if (k.startsWith('TOPOCOLL_') && !(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    native.loadConfig();
  });

  it.each([
    ['TOPOCOLL_ALLGATHER_ALGORITHM', ' ring ', 'forced by TOPOCOLL_ALLGATHER_ALGORITHM'],
    ['TOPOCOLL_ALLGATHER_ALGORITHM', '\tnative\n', 'forced by TOPOCOLL_ALLGATHER_ALGORITHM'],
  ])('%s="%s"', (name, value, reason) => {
    process.env[name] = value;
    native.loadConfig();
    expect(native.selectAlgorithm('allgather', 4, 64, 256).reason).toBe(reason);
  });

  it.each([['TOPOCOLL_VERBOSE', ' 1'], ['TOPOCOLL_VERBOSE', '0 '], ['TOPOCOLL_SHM', ' off '], ['TOPOCOLL_FALLBACK', 'warn\n'], ['TOPOCOLL_VIRTUAL_NODES', ' block:2 ']])(
    '%s="%s" is accepted',
    (name, value) => {
      process.env[name] = value;
      expect(() => native.loadConfig()).not.toThrow();
    },
  );

  it('TypeScript reads the values the engine parsed (parameter()), not the environment again', () => {
    process.env.TOPOCOLL_SHM = ' off ';
    process.env.TOPOCOLL_SELECT = 'model\n';
    process.env.TOPOCOLL_RULES = '';
    native.loadConfig();
    expect([native.parameter('TOPOCOLL_SHM'), native.parameter('TOPOCOLL_SELECT'), native.parameter('TOPOCOLL_RULES')]).toEqual([0, 'model', '']);
    expect(() => native.parameter('TOPOCOLL_SHMM')).toThrow('parameter(name): name "TOPOCOLL_SHMM" is not a parameter; valid choices: TOPOCOLL_VERBOSE, ');
  });

  it('a bad value is still named, trimmed, with the valid choices', () => {
    process.env.TOPOCOLL_BCAST_ALGORITHM = ' fastest ';
    expect(() => native.loadConfig()).toThrow('topocoll: TOPOCOLL_BCAST_ALGORITHM="fastest" names no bcast algorithm; valid choices: auto, native, binomial');
  });
});

describe('files that are not text files', () => {
  it('a directory is named as one, by both readers and through the environment', () => {
    expect(() => native.parseTopologyFile(tmp)).toThrow(`${tmp}: is a directory, not a topology file`);
    expect(() => loadTopology(tmp)).toThrow(`${tmp}: is a directory, not a topology file`);
    expect(() => loadRules(tmp)).toThrow(`${tmp}: is a directory, not a rules file`);
    const saved = process.env.TOPOCOLL_RULES;
    process.env.TOPOCOLL_RULES = tmp;
    try {
      expect(() => native.loadConfig()).toThrow(`topocoll: TOPOCOLL_RULES: ${tmp}: is a directory, not a rules file`);
    } finally {
      if (saved === undefined) delete process.env.TOPOCOLL_RULES;
      else process.env.TOPOCOLL_RULES = saved;
      native.loadConfig();
    }
  });

  const nul = 'NUL byte (0x00) at column 13: a text file has none; is it binary or damaged?';
  it('a NUL byte is named with its line and column, not taken for YAML', () => {
    const text = '{\n  "name": "a\0b"\n}\n';
    expect(() => native.parseTopologyText(text, 'x.json')).toThrow(`x.json:2: not valid JSON: ${nul}`);
    expect(() => parseTopology(text, 'x.json')).toThrow(`x.json:2: not valid YAML or JSON: ${nul}`);
    expect(() => parseRules(text, 'r.json')).toThrow(`r.json:2: not valid YAML or JSON: ${nul}`);
    // A file of zeros (a damaged copy) does not start like JSON: still not "looks like YAML".
    const zeros = path.join(tmp, 'zeros.json');
    writeFileSync(zeros, Buffer.alloc(64));
    expect(() => native.parseTopologyFile(zeros)).toThrow(`${zeros}:1: not valid JSON: NUL byte (0x00) at column 1`);
    process.env.TOPOCOLL_RULES = zeros;
    try {
      expect(() => native.loadConfig()).toThrow(`topocoll: TOPOCOLL_RULES: ${zeros}:1: not valid JSON: NUL byte (0x00) at column 1`);
    } finally {
      delete process.env.TOPOCOLL_RULES;
      native.loadConfig();
    }
  });
});
