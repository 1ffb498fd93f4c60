// `topocoll tune` without measuring: --from saved reports (several job shapes), --rules with
// --export, and what it refuses (usage errors exit 2, a file that is not what it should be 1,
// naming the file); and the plan of a native sweep (`--algorithms native:...`): its launches and
// what it cannot measure. No MPI job: the launches themselves are test/mpi/tune-export.test.ts's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/config/args';
import { nativeLaunches } from '../../src/bench/native-sweep';
import type { BenchRecord, BenchReport, SweepOptions } from '../../src/bench/sweep';
import { parseRules } from '../../src/mpi/files';

const repoRoot = path.resolve(__dirname, '../..');
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-tune-cli-'));
const file = (name: string, text: string) => {
  const f = path.join(tmp, name);
  writeFileSync(f, text);
  return f;
};
const tune = (args: string[]) => spawnSync(process.execPath, [path.join(repoRoot, 'bin/topocoll.js'), 'tune', ...args], { cwd: tmp, encoding: 'utf8' });

function report(ranks: number, nodes: number, fastest: string): BenchReport {
  const rec = (algorithm: string, bytes: number, m: number): BenchRecord => ({
    collective: 'allgather', algorithm, bytes, basis: 'block', ranks, iterations: 10, repetitions: 3, times_us: [m, m, m],
    min_us: m, median_us: m, max_us: m, relative_spread: 0.01, speedup_vs_native: null, check: 'off', errors: 0,
  });
  return {
    format: 'topocoll-bench', version: 1, created: '2026-11-26T08:00:00Z', generator: 'topocoll test',
    machine: { hostname: 'box', cpuModel: 'cpu', cpus: 2, memoryBytes: 1, os: 'linux', node: 'v20', loadAverage: 0 },
    mpi: { flavour: 'openmpi', library: 'Open MPI v4.1.4' }, job: { ranks, nodes, ranksPerNode: Array.from({ length: nodes }, () => ranks / nodes) },
    options: { collectives: ['allgather'], algorithms: [], sizes: [64, 4096], repetitions: 3, targetUs: 1000, rotateBytes: 0, check: false, root: 0 },
    records: [64, 4096].flatMap((b) => ['native', 'ring', 'bruck', 'hierarchical'].map((a) => rec(a, b, a === fastest ? 5 : 20))),
    skipped: [],
  };
}

describe('tune --from', () => {
  const two = file('two.json', JSON.stringify(report(2, 1, 'ring')));
  const four = file('four.json', JSON.stringify(report(4, 1, 'bruck')));

  it('tunes several job shapes into rules over ranks ranges, and exports them', () => {
    const out = path.join(tmp, 'rules.json');
    const run = tune(['--from', two, four, '--output', out, '--export', 'openmpi', '--export-output', 'o.conf']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('topocoll tune: 2 ranks on 1 node, Open MPI; 4 ranks on 1 node, Open MPI (2 reports); Open MPI v4.1.4\n');
    expect(run.stdout).toContain('  4 ranks on 1 node, Open MPI: allgather 4 KiB: hierarchical -> bruck (4.00x faster)\n');
    const rules = parseRules(readFileSync(out, 'utf8'), out).file.rules;
    expect(rules.map((r) => `${r.algorithm} ${r.minRanks}..${r.maxRanks}`)).toEqual(['ring 2..3', 'bruck 4..4']);
    expect(run.stdout).toContain(`wrote ${path.join(tmp, 'o.conf')}: Open MPI's own tuning, allgather (4 communicator-size ranges); communicators judged over 1 node (--nodes)\n`);
    expect(run.stdout).toContain(`  mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename ${path.join(tmp, 'o.conf')} PROGRAM\n`);
    expect(readFileSync(path.join(tmp, 'o.conf'), 'utf8')).toMatch(/^2 {2}# 2\.\.3 ranks\n1 {2}# message-size ranges\n0 4 4 0 {2}# 0 B and up: ring$/m);
  });

  it('names a file that is not a bench report (failure, 1) and refuses what measures (usage, 2)', () => {
    const rules = file('r.json', '{"version": 1, "rules": []}\n');
    const notReport = tune(['--from', two, rules]);
    expect(notReport.status).toBe(1);
    expect(notReport.stderr).toBe(`topocoll tune: --from ${rules} is a rules file, not a bench report: give a report \`topocoll bench --json\` (or \`tune --json\`) wrote\n`);
    const garbage = file('g.json', '{"format": "other"}');
    expect(tune(['--from', garbage]).stderr).toMatch(new RegExp(`^topocoll tune: --from ${garbage} is not a bench report \\(schemas/bench.schema.json\\): \\$: missing `));
    expect(tune(['--from', path.join(tmp, 'missing.json')]).stderr).toBe(`topocoll tune: --from: cannot read ${path.join(tmp, 'missing.json')} (ENOENT)\n`);
    const usage = (args: string[], message: string) => {
      const r = tune(args);
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toContain(message);
    };
    usage(['--from', two, '--np', '4'], 'topocoll tune: --from measures nothing: --np does not go with it');
    usage([two], 'topocoll tune: unexpected argument "');
    usage(['--from', two, '--nodes', '2'], '--nodes goes with --export openmpi|mpich');
    usage(['--rules', rules], '--rules goes with --export openmpi|mpich');
    usage(['--from', two, '--export', 'openmpi', '--mpich-defaults', rules], '--mpich-defaults goes with --export mpich');
  });
});

describe('tune --rules FILE --export', () => {
  const defaults = file('defaults.json', JSON.stringify({
    'collective=barrier': { 'comm_type=intra': { 'algorithm=MPIR_Barrier_intra_dissemination': {} } },
    'collective=allreduce': { 'comm_type=intra': { 'algorithm=MPIR_Allreduce_intra_recursive_doubling': {} } },
  }));

  it('writes MPICH\'s file from a rules file, with MPICH\'s own tree around it, and the variables to use it', () => {
    const rules = file('mpich.yaml', 'version: 1\njob: {nodes: 1}\nrules:\n  - {collective: barrier, algorithm: "native:nb", mpi: mpich, maxRanks: 4}\n');
    const run = tune(['--rules', rules, '--export', 'mpich', '--export-output', 'm.json', '--mpich-defaults', defaults]);
    expect(run.status, run.stderr).toBe(0);
    const tree = JSON.parse(readFileSync(path.join(tmp, 'm.json'), 'utf8'));
    expect(tree).toEqual({
      'collective=barrier': { 'comm_type=intra': { 'comm_size<=4': { 'algorithm=MPIR_Barrier_allcomm_nb': {} }, 'comm_size=any': { 'algorithm=MPIR_Barrier_intra_dissemination': {} } } },
      'collective=allreduce': { 'comm_type=intra': { 'algorithm=MPIR_Allreduce_intra_recursive_doubling': {} } },
    });
    expect(run.stdout).toContain(`  MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=${path.join(tmp, 'm.json')} MPIR_CVAR_BARRIER_DEVICE_COLLECTIVE=0 mpiexec PROGRAM\n`);
    expect(run.stdout).toContain(`  note: MPICH's own choices (every collective and range not tuned) from ${defaults}\n`);
  });

  it('names the rules file when a native:<name> is not the MPI\'s', () => {
    const rules = file('bad-native.json', '{"version": 1, "rules": [{"collective": "bcast", "algorithm": "native:fastest", "mpi": "openmpi"}]}');
    const run = tune(['--rules', rules, '--export', 'openmpi', '--export-output', 'x.conf']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^topocoll tune: ${rules}: rules\\[0\\]: native:fastest is not a bcast algorithm of Open MPI; valid choices: native:basic_linear, `));
  });
});

describe('the launches of a native sweep', () => {
  const sweep = (algorithms: string[], collectives: SweepOptions['collectives'] = ['allgather', 'barrier', 'alltoall']): SweepOptions => ({
    collectives, algorithms, sizes: [64], repetitions: 3, targetUs: 1000, rotateBytes: 0, check: false, root: 0,
  });

  it('forces one algorithm of every collective per launch, as many launches as the longest list', () => {
    const { launches, skipped } = nativeLaunches(sweep(['ring', 'native:all']), 'openmpi', 3);
    // Open MPI: allgather 5 (two_proc is for 2 ranks), barrier 5, alltoall 4.
    expect(launches).toHaveLength(5);
    expect(launches[0]).toEqual({
      names: { allgather: 'linear', barrier: 'linear', alltoall: 'linear' },
      env: { OMPI_MCA_coll_tuned_use_dynamic_rules: '1', OMPI_MCA_coll_tuned_allgather_algorithm: '1', OMPI_MCA_coll_tuned_barrier_algorithm: '1', OMPI_MCA_coll_tuned_alltoall_algorithm: '1' },
    });
    expect(launches[4].names).toEqual({ allgather: 'neighbor', barrier: 'tree' });
    expect(skipped.map((s) => `${s.collective} ${s.algorithm}`)).toEqual(['allgather native:two_proc', 'barrier native:two_proc', 'alltoall native:two_proc']);
    expect(skipped[0].why).toBe("Open MPI's two_proc runs on 2 ranks only");
  });

  it('takes MPICH\'s names, at the MPIR level, an unusable choice an error', () => {
    const { launches, skipped } = nativeLaunches(sweep(['native:brucks', 'native:pairwise_sendrecv_replace']), 'mpich', 2);
    expect(launches).toEqual([
      { names: { allgather: 'brucks', alltoall: 'brucks' }, env: {
        MPIR_CVAR_ALLGATHER_DEVICE_COLLECTIVE: '0', MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM: 'brucks', MPIR_CVAR_COLLECTIVE_FALLBACK: 'error',
        MPIR_CVAR_ALLTOALL_DEVICE_COLLECTIVE: '0', MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM: 'brucks',
      } },
    ]);
    expect(skipped).toEqual([{ collective: 'alltoall', algorithm: 'native:pairwise_sendrecv_replace', why: "MPICH's pairwise_sendrecv_replace runs on in-place calls only (bench measures others)" }]);
  });

  it('refuses a name the MPI has for none of the collectives measured', () => {
    expect(() => nativeLaunches(sweep(['native:tree'], ['allgather']), 'openmpi', 2)).toThrow(UsageError);
    expect(() => nativeLaunches(sweep(['native:tree'], ['allgather']), 'openmpi', 2)).toThrow(
      '--algorithms: "native:tree" is not an algorithm of Open MPI for allgather; valid choices: native:linear, native:bruck, native:recursive_doubling, native:ring, native:neighbor, native:two_proc, native:all',
    );
  });
});
