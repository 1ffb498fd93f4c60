// The conventions every `topocoll` command shares (README.md, "Command line"), run as a user
// runs them (bin/topocoll.js over dist/, as test/unit/config-env does): `--version` and `help
// CMD` everywhere, unknown commands and options answered with the nearest valid one, stray
// arguments refused, and exit status 2 for a usage error, 1 for a runtime failure.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HelpRequest, parseOptions, UsageError, type OptionSpec } from '../../src/config/args';
import { COMMAND_NAMES } from '../../src/cli/main';
import { closest, editDistance } from '../../src/config/closest';
// @ts-expect-error plain ESM module shared with the project's scripts
import { builtMpis } from '../../scripts/mpi.mjs';

const repoRoot = path.resolve(__dirname, '../..');
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-cli-'));
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

function topocoll(args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('TOPOCOLL_') && !k.startsWith('OMPI_COMM_WORLD') && k !== 'PMI_RANK'));
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin/topocoll.js'), ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A usage error: status 2, nothing on stdout, the message on stderr. */
function expectUsageError(r: ReturnType<typeof topocoll>, message: string | RegExp) {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  if (typeof message === 'string') expect(r.stderr).toContain(message);
  else expect(r.stderr).toMatch(message);
}

describe('--version', () => {
  const manifests = builtMpis(path.join(repoRoot, 'lib', 'native')) as Array<{ flavour: string; title: string }>;

  it('names the package, its version and every MPI built, alone and after any command', () => {
    const top = topocoll(['--version']);
    expect(top.status).toBe(0);
    const lines = top.stdout.trim().split('\n');
    expect(lines[0]).toBe(`${pkg.name} ${pkg.version}`);
    for (const m of manifests) expect(lines.some((l) => l.includes(m.flavour) && l.includes(m.title))).toBe(true);
    if (manifests.length === 0) expect(lines[1]).toMatch(/built for no MPI/);
    for (const command of [...COMMAND_NAMES, 'help']) {
      const r = topocoll([command, '--version']);
      expect(r.status, command).toBe(0);
      expect(r.stdout, command).toBe(top.stdout);
    }
    // Wherever the command's own options are: after a subcommand, and before mpirun's launcher options.
    expect(topocoll(['cluster', 'status', '--version']).stdout).toBe(top.stdout);
    expect(topocoll(['mpirun', '--dry-run', '--version', '-np', '2', 'x']).stdout).toBe(top.stdout);
  });
});

describe('help', () => {
  it('`topocoll help CMD` prints what `topocoll CMD --help` does, for every command', () => {
    for (const command of COMMAND_NAMES) {
      const help = topocoll(['help', command]);
      expect(help.status, command).toBe(0);
      expect(help.stdout, command).toMatch(new RegExp(`^usage: (mpirun -np N )?topocoll ${command}`));
      expect(topocoll([command, '--help']).stdout, command).toBe(help.stdout);
      expect(topocoll([command, '-h']).stdout, command).toBe(help.stdout);
    }
  });

  it('`topocoll help`, `--help` and no command at all', () => {
    const help = topocoll(['help']);
    expect(help.status).toBe(0);
    for (const command of COMMAND_NAMES) expect(help.stdout).toContain(`  ${command} `);
    expect(topocoll(['--help']).stdout).toBe(help.stdout);
    // No command: a usage error, the help on stderr.
    const none = topocoll([]);
    expect(none.status).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(help.stdout);
  });

  it('help wins over an error before it; after `--` or a program it is not ours', () => {
    expect(topocoll(['bench', '--jsn', '--help']).status).toBe(0);
    expect(topocoll(['simulate', 'stray', '--help']).status).toBe(0);
    // A file named --help: a failure to read it, not help.
    const file = topocoll(['topology', '--', '--help']);
    expect(file.status).toBe(1);
    expect(file.stderr).toContain('--help: cannot read the topology file');
  });
});

describe('unknown commands and options: the nearest valid one', () => {
  it('a command', () => {
    expectUsageError(topocoll(['benhc']), 'topocoll: unknown command "benhc"; did you mean bench?');
    expectUsageError(topocoll(['help', 'simualte']), 'unknown command "simualte"; did you mean simulate?');
    expectUsageError(topocoll(['frobnicate']), `unknown command "frobnicate"; commands: ${COMMAND_NAMES.join(', ')}`);
    expectUsageError(topocoll(['--verison']), '"--verison" is not a command; did you mean --version?');
    expectUsageError(topocoll(['cluster', 'stauts']), 'topocoll cluster: unknown subcommand "stauts"; did you mean status?');
  });

  it('an option, for every command', () => {
    const cases: Array<[string[], string]> = [
      [['info', '--jsno'], '--json'],
      [['explain', '--colll', 'bcast'], '--coll'],
      [['simulate', '--machin', 'bxj'], '--machine'],
      [['bench', '--quik'], '--quick'],
      [['tune', '--nosie', '5'], '--noise'],
      [['preload', '--mppi', 'openmpi'], '--mpi'],
      [['mpirun', '--dryrun', '-np', '2', 'x'], '--dry-run'],
      [['topology', '--hots', 'a', 'f.yaml'], '--hosts'],
      [['cluster', 'status', '--jsn'], '--json'],
      [['cluster', 'run', '--mapby', 'node', 'x'], '--map-by'],
    ];
    expect(new Set(cases.map(([[c]]) => c))).toEqual(new Set(COMMAND_NAMES));
    for (const [args, near] of cases) {
      const r = topocoll(args);
      expectUsageError(r, `topocoll ${args[0]}: unknown option ${args[args[0] === 'cluster' ? 2 : 1]}; did you mean ${near}?`);
      expect(r.stderr).toContain(`Run \`topocoll help ${args[0]}\` for its options.`);
    }
    // Nothing near: the valid options. A one-dash spelling is named as such.
    expectUsageError(topocoll(['preload', '--zzzzzz']), 'unknown option --zzzzzz; valid options: --mpi');
    expectUsageError(topocoll(['bench', '-np', '2']), 'unknown option -np; did you mean --np?');
  });
});

describe('arguments', () => {
  it('a stray positional argument is refused by every command that takes none', () => {
    for (const args of [['info'], ['explain', '--coll', 'bcast', '--np', '2'], ['simulate'], ['bench'], ['tune'], ['preload'], ['cluster', 'status'], ['cluster', 'down']]) {
      expectUsageError(topocoll([...args, 'stray']), `topocoll ${args[0]}: unexpected argument "stray"`);
    }
    expectUsageError(topocoll(['topology', 'a.yaml', 'b.yaml']), 'topocoll topology: unexpected argument "b.yaml"');
    expectUsageError(topocoll(['help', 'bench', 'tune']), 'topocoll help: unexpected argument "tune"');
    // An option's name without its dashes.
    expectUsageError(topocoll(['info', 'json']), 'unexpected argument "json"; did you mean --json?');
  });

  it('--opt=VALUE is --opt VALUE; a flag takes no value; a missing value is named', () => {
    const a = topocoll(['simulate', '--coll=bcast', '--np=8', '--bytes=1K', '--algorithm=binomial', '--json']);
    const b = topocoll(['simulate', '--coll', 'bcast', '--np', '8', '--bytes', '1K', '--algorithm', 'binomial', '--json']);
    expect(a.status, a.stderr).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expectUsageError(topocoll(['info', '--json=yes']), 'topocoll info: --json takes no value (got --json=yes)');
    expectUsageError(topocoll(['explain', '--coll', '--np', '4']), '--coll needs a value');
    expectUsageError(topocoll(['explain', '--coll=bcst', '--np', '4']), '--coll=bcst is not valid; valid choices: allgather, bcast, barrier, alltoall');
  });
});

describe('exit status: 2 for usage errors, 1 for runtime failures, alike in every command', () => {
  const missing = path.join(tmp, 'missing.yaml');
  const broken = path.join(tmp, 'broken.yaml');
  writeFileSync(broken, 'levels: [\n');

  it('a file that cannot be read or is not valid is a failure (1); a value that names nothing is a usage error (2)', () => {
    for (const file of [missing, broken]) {
      expect(topocoll(['topology', file]).status).toBe(1);
      const r = topocoll(['simulate', '--coll', 'bcast', '--np', '4', '--machine', file]);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/^topocoll simulate: /);
      expect(topocoll(['tune', '--convert', file]).status).toBe(1);
      expect(topocoll(['simulate', '--compare', file]).status).toBe(1);
    }
    expectUsageError(topocoll(['simulate', '--coll', 'bcast', '--np', '4', '--machine', 'bxk']), '--machine=bxk is neither a machine profile nor a file (a path with / or .yaml/.json); did you mean bxj?');
    expectUsageError(topocoll(['topology']), 'give exactly one topology file');
  });

  it('`cluster status` of a cluster that is not up: 1, as text and as JSON', () => {
    const text = topocoll(['cluster', 'status', '--name', 'zq9']);
    expect(text.status).toBe(1);
    expect(text.stdout.trim()).toBe('cluster "zq9" is not up');
    const json = topocoll(['cluster', 'status', '--name', 'zq9', '--json']);
    expect(json.status).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ name: 'zq9', up: false });
  });
});

describe('parseOptions', () => {
  const spec: Record<string, OptionSpec> = { np: { type: 'int', min: 1 }, root: { type: 'int' }, name: { type: 'string' }, json: { type: 'flag' } };

  it('takes both forms, the last of a repeated option, negative numbers as values, and `--` as the end of options', () => {
    expect(parseOptions(['--np=4', '--name', 'a', '--np', '8', '--json'], spec)).toEqual({ options: { np: 8, name: 'a', json: true }, rest: [] });
    expect(parseOptions(['--name', '--x y'], spec).options.name).toBe('--x y');
    expect(parseOptions(['--name', '-1'], spec).options.name).toBe('-1');
    expect(parseOptions(['--', '--json'], spec, { positionals: 1 }).rest).toEqual(['--json']);
    expect(() => parseOptions(['--', 'x'], spec)).toThrow('unexpected argument "x"');
  });

  it('refuses what is not an integer, and a value that is one of our options', () => {
    for (const v of ['', '1.5', '0x10', '2e3', 'four']) expect(() => parseOptions([`--root=${v}`], spec), v).toThrow(UsageError);
    expect(() => parseOptions(['--np', '0'], spec)).toThrow('--np=0 must be an integer >= 1');
    expect(() => parseOptions(['--name', '--json'], spec)).toThrow('--name needs a value');
    expect(() => parseOptions(['--name'], spec)).toThrow('--name needs a value');
  });

  it('stops at a program (cluster run) or at an option not ours (mpirun), leaving the rest as it is', () => {
    expect(parseOptions(['--np', '2', 'prog', '--json', 'x'], spec, { stopAt: 'positional' })).toEqual({ options: { np: 2 }, rest: ['prog', '--json', 'x'] });
    expect(parseOptions(['--json', '--', 'prog', '--help'], spec, { stopAt: 'positional' }).rest).toEqual(['--', 'prog', '--help']);
    expect(parseOptions(['--json', '-np', '2', '--map-by', 'x', '--help'], spec, { stopAt: 'unknown' }).rest).toEqual(['-np', '2', '--map-by', 'x', '--help']);
    // One edit from one of ours is a slip, not a launcher's option.
    expect(() => parseOptions(['--jsn', 'x'], spec, { stopAt: 'unknown' })).toThrow('unknown option --jsn; did you mean --json?');
  });

  it('--help, -h and --version win over any error', () => {
    for (const args of [['--help'], ['--bogus', '-h'], ['--np', 'x', '--version'], ['stray', '--help']]) {
      expect(() => parseOptions(args, spec), args.join(' ')).toThrow(HelpRequest);
    }
    // Not after `--`, nor as a value given with `=`.
    expect(parseOptions(['--name=--help'], spec).options.name).toBe('--help');
    expect(parseOptions(['--', '--help'], spec, { positionals: 1 }).rest).toEqual(['--help']);
  });
});

describe('closest (the engine\'s rule, native/engine/config.cc)', () => {
  it('counts a swap of neighbours as one edit and names only a near miss', () => {
    expect(editDistance('jsno', 'json')).toBe(1);
    expect(editDistance('ALGORITM', 'ALGORITHM')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(closest('benhc', ['bench', 'tune'])).toBe('bench');
    expect(closest('np', ['mpi'])).toBeUndefined();
    expect(closest('frobnicate', ['bench', 'tune'])).toBeUndefined();
    expect(closest('launcer', ['launcher', 'mpi'], 1)).toBe('launcher');
    expect(closest('mca', ['mpi'], 1)).toBeUndefined();
  });
});
