// `topocoll tune --export` proved by the MPIs themselves, without the preload library: a C
// program (test/c/exported_calls.c, checking every byte it receives) runs one collective under
// the command line `tune` prints, and each MPI shows which of its algorithms ran; and without the
// file, another one runs (so these checks can fail).
//
// Neither MPI prints its choice: Open MPI 4.1's coll/tuned writes its decisions only in a debug
// build (`--mca coll_base_verbose 100` prints the components chosen per communicator, never an
// algorithm), MPICH 4.0 has no verbose output for its selection. So:
// - Open MPI: coll/tuned (mca_coll_tuned.so) calls the algorithm functions of libmpi through the
//   PLT, bound at their first call: glibc's LD_DEBUG=bindings records which one.
// - MPICH: its collectives send through UCX's ucp_tag_send_nbx, which a preloaded witness
//   (test/c/profiler/ucp_witness.c) sees with the peer of each message; MPIR_CVAR_NOLOCAL=1 sends
//   every message through UCX. The peers of rank 0 tell the algorithms apart: 3 ranks, allgather
//   ring sends to rank 1 twice, Bruck to rank 2 then 1; alltoall Bruck sends to 1 and 2, MPICH's
//   scattered also to itself.
// Also: `bench --algorithms native:...` runs the MPI's own algorithms a launch each, and
// `tune --from` on its report recommends one (MPI-side, short: 2 ranks, one size).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchRecord, BenchReport } from '../../src/bench/sweep';
import { expectSuccess, FLAVOURS, mpirun, repoRoot, type Flavour } from '../helpers/mpirun';
// @ts-expect-error plain ESM build script
import { buildPrograms } from '../c/build.mjs';
import { parseRules } from '../../src/mpi/files';

const TIMEOUT = 120_000;
const RANKS = 3;
const tmp = mkdtempSync(path.join(tmpdir(), 'topocoll-export-'));
const cli = path.join(repoRoot, 'bin/topocoll.js');

/**
 * A saved sweep of 3 ranks on one node in which, clearly: allgather ring is fastest below 64 KiB
 * blocks and Bruck from there; alltoall Bruck; barrier dissemination; bcast binomial.
 */
function sweep(mpi: Flavour): BenchReport {
  const rec = (collective: BenchRecord['collective'], algorithm: string, bytes: number, m: number): BenchRecord => ({
    collective, algorithm, bytes, basis: collective === 'bcast' ? 'message' : collective === 'barrier' ? 'none' : 'block', ranks: RANKS, iterations: 10, repetitions: 3,
    times_us: [m, m, m], min_us: m, median_us: m, max_us: m, relative_spread: 0.01, speedup_vs_native: null, check: 'off', errors: 0,
  });
  const sizes = [8, 1024, 65536];
  const records = [
    ...sizes.flatMap((b) => ['native', 'ring', 'bruck', 'recursive_doubling'].map((a) => rec('allgather', a, b, a === (b < 65536 ? 'ring' : 'bruck') ? 5 : 20))),
    ...sizes.flatMap((b) => ['native', 'bruck', 'isend_irecv', 'pairwise'].map((a) => rec('alltoall', a, b, a === 'bruck' ? 5 : 20))),
    ...['native', 'dissemination', 'recursive_doubling'].map((a) => rec('barrier', a, 0, a === 'dissemination' ? 5 : 20)),
    ...sizes.flatMap((b) => ['native', 'binomial', 'scatter_allgather'].map((a) => rec('bcast', a, b, a === 'binomial' ? 5 : 20))),
  ];
  return {
    format: 'topocoll-bench', version: 1, created: '2026-11-26T08:00:00Z', generator: 'topocoll test',
    machine: { hostname: 'box', cpuModel: 'cpu', cpus: 2, memoryBytes: 1, os: 'linux', node: 'v20', loadAverage: 0 },
    mpi: { flavour: mpi, library: mpi }, job: { ranks: RANKS, nodes: 1, ranksPerNode: [RANKS] },
    options: { collectives: ['allgather', 'alltoall', 'barrier', 'bcast'], algorithms: [], sizes, repetitions: 3, targetUs: 1000, rotateBytes: 0, check: false, root: 0 },
    records, skipped: [],
  };
}

/** Runs `topocoll tune --from` on the sweep with --export and returns the line saying how to use the file. */
function exported(flavour: Flavour): { file: string; use: string } {
  const report = path.join(tmp, `${flavour}.report.json`);
  writeFileSync(report, JSON.stringify(sweep(flavour)));
  const file = path.join(tmp, flavour === 'openmpi' ? 'tuned.conf' : 'tuned.json');
  const r = spawnSync(process.execPath, [cli, 'tune', '--from', report, '--export', flavour, '--export-output', file, '--output', path.join(tmp, `${flavour}.rules.json`)], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const lines = r.stdout.split('\n');
  const use = lines[lines.indexOf('use it without the preload library:') + 1];
  expect(use).toContain(file);
  return { file, use: use.trim() };
}

const run = (flavour: Flavour, args: string[], mpirunArgs: string[], env: Record<string, string> = {}) =>
  mpirun({ flavour, np: RANKS, args: [path.join(repoRoot, 'test/c/bin', flavour, 'exported_calls'), ...args], mpirunArgs, env, timeoutMs: TIMEOUT });

function expectAllOk(job: Awaited<ReturnType<typeof run>>): void {
  expectSuccess(job);
  expect(job.stdout.trim().split('\n').sort()).toEqual(Array.from({ length: RANKS }, (_, r) => `ok ${r}`));
}

describe.each(FLAVOURS.filter((f) => f === 'openmpi'))('tune --export %s: Open MPI runs the algorithms the file names', () => {
  let mca: string[] = [];
  beforeAll(async () => {
    await buildPrograms('openmpi');
    const { use } = exported('openmpi');
    // "mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE PROGRAM"
    const words = use.split(' ');
    expect(words[0]).toBe('mpirun');
    expect(words.at(-1)).toBe('PROGRAM');
    mca = words.slice(1, -1);
  }, TIMEOUT);

  /** The ompi_coll_base_<coll>_intra_* functions coll/tuned called in each rank, from glibc's record of its bindings. */
  async function called(coll: string, args: string[], withFile: boolean): Promise<string[]> {
    const dir = mkdtempSync(path.join(tmp, 'ld-'));
    const job = await run('openmpi', args, ['-x', 'LD_DEBUG=bindings', '-x', `LD_DEBUG_OUTPUT=${dir}/ld`, ...(withFile ? mca : [])]);
    expectAllOk(job);
    const perRank = readdirSync(dir).map((f) => {
      const text = readFileSync(path.join(dir, f), 'utf8');
      const names = [...text.matchAll(new RegExp(`mca_coll_tuned\\.so .* normal symbol \`(ompi_coll_base_${coll}_intra_\\w+)'`, 'g'))].map((m) => m[1]);
      return [...new Set(names)].sort().join(' ');
    });
    // One record per process that loaded coll/tuned: the ranks (mpirun and its daemon load no coll component).
    const ranks = perRank.filter((n) => n !== '');
    expect(ranks).toHaveLength(RANKS);
    return [...new Set(ranks)];
  }

  it.each([
    ['allgather', ['allgather', '64'], 'ompi_coll_base_allgather_intra_ring', 'ompi_coll_base_allgather_intra_recursivedoubling'],
    ['allgather', ['allgather', '65536'], 'ompi_coll_base_allgather_intra_bruck', 'ompi_coll_base_allgather_intra_recursivedoubling'],
    ['alltoall', ['alltoall', '64'], 'ompi_coll_base_alltoall_intra_bruck', 'ompi_coll_base_alltoall_intra_linear_sync'],
    // Open MPI's "bruck" barrier is dissemination.
    ['barrier', ['barrier', '0'], 'ompi_coll_base_barrier_intra_bruck', 'ompi_coll_base_barrier_intra_recursivedoubling'],
    ['bcast', ['bcast', '1000'], 'ompi_coll_base_bcast_intra_binomial', 'ompi_coll_base_bcast_intra_knomial ompi_coll_base_bcast_intra_pipeline'],
  ])('%s %s: the file\'s algorithm in every rank, Open MPI\'s own without it', async (coll, args, withFile, without) => {
    expect(await called(coll, args, true)).toEqual([withFile]);
    expect(await called(coll, args, false)).toEqual([without]);
  }, TIMEOUT);
});

describe.each(FLAVOURS.filter((f) => f === 'mpich'))('tune --export %s: MPICH runs the algorithms the file names', () => {
  let env: Record<string, string> = {};
  const witness = path.join(repoRoot, 'test/c/bin/mpich/libucp_witness.so');
  beforeAll(async () => {
    await buildPrograms('mpich');
    const { use } = exported('mpich');
    // "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE MPIR_CVAR_..._DEVICE_COLLECTIVE=0 ... mpiexec PROGRAM"
    const words = use.split(' ');
    expect(words.slice(-2)).toEqual(['mpiexec', 'PROGRAM']);
    env = Object.fromEntries(words.slice(0, -2).map((w) => w.split('=') as [string, string]));
    expect(Object.keys(env)).toEqual(['MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE', 'MPIR_CVAR_ALLGATHER_DEVICE_COLLECTIVE', 'MPIR_CVAR_BCAST_DEVICE_COLLECTIVE', 'MPIR_CVAR_BARRIER_DEVICE_COLLECTIVE', 'MPIR_CVAR_ALLTOALL_DEVICE_COLLECTIVE']);
  }, TIMEOUT);

  /** The peers rank 0 sent the collective's messages to, in order, as the witness saw them. */
  async function peers(args: string[], withFile: boolean): Promise<number[]> {
    const job = await run('mpich', args, ['-genv', 'LD_PRELOAD', witness], { MPIR_CVAR_NOLOCAL: '1', ...(withFile ? env : {}) });
    expectAllOk(job);
    const sends = [...job.stderr.matchAll(/^ucp-witness rank (\d+) ep (-?\d+) bytes (\d+) tag ([0-9a-f]+)$/gm)].map((m) => ({ rank: +m[1], ep: +m[2], tag: BigInt(`0x${m[4]}`) }));
    // The ring of MPI_Send (tag 99) maps the witness's endpoints to ranks: endpoint r is rank r.
    const ring = sends.filter((s) => (s.tag & 0xffffffffn) === 99n);
    expect(ring.map((s) => [s.rank, s.ep]).sort()).toEqual([[0, 1], [1, 2], [2, 0]]);
    return sends.filter((s) => s.rank === 0 && (s.tag & 0xffffffffn) !== 99n).map((s) => s.ep);
  }

  it.each([
    ['allgather', ['allgather', '64'], [1, 1], [2, 1], 'ring (the file), Bruck (MPICH below 80 KiB in all)'],
    ['allgather', ['allgather', '100000'], [2, 1], [1, 1], 'Bruck (the file), ring (MPICH from 80 KiB)'],
    ['alltoall', ['alltoall', '64'], [1, 2], [0, 2, 1], 'Bruck (the file), scattered, itself included (MPICH)'],
  ])('%s %s: rank 0 sends to %j, without the file to %j: %s', async (_coll, args, withFile, without) => {
    expect(await peers(args, true)).toEqual(withFile);
    expect(await peers(args, false)).toEqual(without);
  }, TIMEOUT);
});

describe.each(FLAVOURS)('bench and tune with the MPI\'s own algorithms (%s)', (flavour: Flavour) => {
  it('measures native:NAME a launch each, and tune recommends one from the report', async () => {
    const own = flavour === 'openmpi' ? ['ring', 'bruck'] : ['ring', 'brucks'];
    const report = path.join(tmp, `${flavour}.native.json`);
    const bench = spawnSync(process.execPath, [
      cli, 'bench', '--np', '2', '--mpi', flavour, '--test-machine', '--collectives', 'allgather', '--algorithms', `ring,${own.map((n) => `native:${n}`).join(',')}`,
      '--sizes', '64', '--repetitions', '2', '--time-ms', '1', '--check', '--quiet', '--json', report,
    ], { encoding: 'utf8', cwd: tmp, timeout: TIMEOUT });
    expect(bench.status, bench.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(report, 'utf8')) as BenchReport;
    // Ours and native in the main launch; the MPI's own, a launch each, in the order of its table (Bruck before ring).
    expect(saved.records.map((r) => [r.algorithm, r.launch ?? 0, r.check])).toEqual([
      ['native', 0, 'ok'], ['ring', 0, 'ok'], [`native:${own[1]}`, 1, 'ok'], [`native:${own[0]}`, 2, 'ok'],
    ]);
    expect(bench.stdout).toMatch(new RegExp(`# Size +native +ring +native:${own[1]} +native:${own[0]} +best`));
    // The MPI's own ring, made the fastest: tune keeps it as native:ring for this MPI, and exports it.
    const doctored = { ...saved, records: saved.records.map((r) => ({ ...r, median_us: r.algorithm === `native:${own[0]}` ? 1 : 100, relative_spread: 0 })) };
    writeFileSync(report, JSON.stringify(doctored));
    const rules = path.join(tmp, `${flavour}.native.rules.json`);
    const tune = spawnSync(process.execPath, [cli, 'tune', '--from', report, '--output', rules], { encoding: 'utf8', cwd: tmp });
    expect(tune.status, tune.stderr).toBe(0);
    expect(parseRules(readFileSync(rules, 'utf8'), rules).file.rules).toEqual([expect.objectContaining({ collective: 'allgather', algorithm: `native:${own[0]}`, mpi: flavour, minRanks: 2, maxRanks: 2 })]);
    expect(tune.stdout).toContain(`-> native:${own[0]} (100.00x faster) (${flavour === 'openmpi' ? 'Open MPI' : 'MPICH'}'s own: apply it with --export ${flavour})`);
  }, TIMEOUT);
});
