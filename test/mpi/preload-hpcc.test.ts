// A program nobody here wrote: the HPC Challenge suite (Debian's hpcc, built against Open MPI,
// installed by scripts/setup.sh), launched with `topocoll mpirun`. Its MPIFFT moves the data
// with MPI_Alltoall, its set-up and HPL use MPI_Bcast and MPI_Barrier, and it checks its own
// results (HPL residual, FFT error, PTRANS residual, RandomAccess errors). Every job forces the
// i-th algorithm of every collective; the figures hpcc computes must equal, digit for digit,
// those of a job run entirely on the system MPI's collectives.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLLECTIVES } from '../../src/select/registry';
import { expectSuccess, FLAVOURS, repoRoot, runJob } from '../helpers/mpirun';
import { statsOf } from '../c/preload-helpers';

const HPCC = '/usr/bin/hpcc';
const NP = 3;
// hpcc's collectives; it calls no allgather.
const USED = COLLECTIVES.filter((c) => ['bcast', 'barrier', 'alltoall'].includes(c.name));
const JOBS = Math.max(...USED.map((c) => c.algorithms.length));
// The summary lines whose values come from the data the collectives moved.
const RESULTS = ['Success', 'HPL_RnormI', 'HPL_Xnorm1', 'HPL_AnormI', 'MPIFFT_maxErr', 'PTRANS_residual', 'MPIRandomAccess_Errors', 'MPIRandomAccess_LCG_Errors', 'StarRandomAccess_Errors'];

// HPL on a 1 × 3 grid, N = 500: a few seconds per job on two cores.
function inputFile(): string {
  const v = (value: number | string, what: string) => `${String(value).padEnd(13)}${what}`;
  return [
    'HPLinpack benchmark input file',
    'topocoll test: small, so that one job takes seconds',
    v('HPL.out', 'output file name (if any)'), v(8, 'device out (6=stdout,7=stderr,file)'),
    v(1, '# of problems sizes (N)'), v(500, 'Ns'), v(1, '# of NBs'), v(80, 'NBs'),
    v(0, 'PMAP process mapping (0=Row-,1=Column-major)'), v(1, '# of process grids (P x Q)'), v(1, 'Ps'), v(NP, 'Qs'),
    v('16.0', 'threshold'), v(1, '# of panel fact'), v(2, 'PFACTs (0=left, 1=Crout, 2=Right)'),
    v(1, '# of recursive stopping criterium'), v(4, 'NBMINs (>= 1)'), v(1, '# of panels in recursion'), v(2, 'NDIVs'),
    v(1, '# of recursive panel fact.'), v(1, 'RFACTs (0=left, 1=Crout, 2=Right)'), v(1, '# of broadcast'),
    v(1, 'BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)'), v(1, '# of lookahead depth'), v(1, 'DEPTHs (>=0)'),
    v(2, 'SWAP (0=bin-exch,1=long,2=mix)'), v(64, 'swapping threshold'), v(0, 'L1 in (0=transposed,1=no-transposed) form'),
    v(0, 'U  in (0=transposed,1=no-transposed) form'), v(1, 'Equilibration (0=no,1=yes)'), v(8, 'memory alignment in double (> 0)'),
    '##### This line (no. 32) is ignored (it serves as a separator). ######',
    v(0, 'Number of additional problem sizes for PTRANS'), v('1200', 'values of N'),
    v(0, 'number of additional blocking sizes for PTRANS'), v(40, 'values of NB'),
    '',
  ].join('\n');
}

describe.runIf(FLAVOURS.includes('openmpi') && existsSync(HPCC))('HPC Challenge (hpcc) under `topocoll mpirun` (openmpi)', () => {
  const dirs: string[] = [];
  let reference = new Map<string, string>();

  async function hpcc(env: Record<string, string>) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'topocoll-hpcc-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'hpccinf.txt'), inputFile());
    const cli = [path.join(repoRoot, 'bin/topocoll.js'), 'mpirun', '--mpi', 'openmpi', '--test-machine', '-np', String(NP), '--', HPCC];
    const run = await runJob(process.execPath, cli, { cwd: dir, env: { TOPOCOLL_STATS: '1', ...env }, timeoutMs: 60_000 });
    expectSuccess(run);
    const out = readFileSync(path.join(dir, 'hpccoutf.txt'), 'utf8');
    const summary = new Map([...out.matchAll(/^(\w+)=(.*)$/gm)].map((m) => [m[1], m[2]] as [string, string]));
    return { run, out, summary };
  }

  beforeAll(async () => {
    const { out, summary } = await hpcc(Object.fromEntries(USED.map((c) => [c.env, 'native'])));
    expect(out).not.toMatch(/FAILED/);
    expect(summary.get('Success')).toBe('1');
    expect(Number(summary.get('MPIFFT_maxErr'))).toBeLessThan(1e-10);
    reference = summary;
  }, 150_000);
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  const expectSameResults = (summary: Map<string, string>) => {
    for (const key of RESULTS) expect(summary.get(key), key).toBe(reference.get(key));
  };

  it('auto: hpcc passes its own checks with the same figures as the system MPI', async () => {
    const { out, summary } = await hpcc({});
    expect(out).toMatch(/PASSED/);
    expect(out).not.toMatch(/FAILED/);
    expectSameResults(summary);
  }, 150_000);

  it.each(Array.from({ length: JOBS }, (_, i) => i))('job %i: the i-th algorithm of bcast, barrier and alltoall forced, same figures', async (i) => {
    const forced = USED.map((c) => [c.name, c.env, c.algorithms[i % c.algorithms.length].name] as const);
    const { run, out, summary } = await hpcc(Object.fromEntries(forced.map(([, env, name]) => [env, name])));
    expect(out).not.toMatch(/FAILED/);
    expectSameResults(summary);
    const stats = statsOf(run.stderr);
    for (const [coll, , name] of forced) expect(stats.get(`${coll} ${name}`) ?? 0, `${coll} ${name} calls`).toBeGreaterThan(0);
  }, 150_000);
});
