// TOPOCOLL_STATS under real mpirun: one table for the whole job, printed once by rank 0 at
// MPI_Finalize, whose calls and bytes are those the program made (summed over its ranks), from a
// C program under the preload library and from Node (finalized at exit); TOPOCOLL_STATS=2 adds
// one line per rank; a program that never finalizes gets no report, and its job does not hang.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, type Flavour, type MpiRun } from '../helpers/mpirun';
// @ts-expect-error plain ESM helper shared with the C build
import { buildPrograms } from '../c/build.mjs';
import { preloadArgs, statsRows } from '../c/preload-helpers';

// MPICH 4.0 busy-polls: 2 ranks at most on our 2 cores.
const NP: Record<Flavour, number[]> = { openmpi: [1, 3], mpich: [2] };
const TIMEOUT: Record<Flavour, number> = { openmpi: 60_000, mpich: 120_000 };
const BARRIERS = 25;
const REPEATS = 7; // allreduces (C), allgathers (Node)

const headers = (run: MpiRun) => run.stderr.match(/^topocoll stats: job of \d+ ranks?;.*$/gm) ?? [];

/** The second collective of a program: C's MPI_Allreduce of 4 doubles, Node's allgather of 4 doubles a rank. */
interface Made {
  collective: string;
  /** Bytes one call counts on one rank: the vector, or a block collective's p blocks. */
  bytes: (np: number) => number;
}
const C_MADE: Made = { collective: 'allreduce', bytes: () => 32 };
const NODE_MADE: Made = { collective: 'allgather', bytes: (np) => 32 * np };

/** The table is there once, for `np` ranks, and its counts are the program's calls. */
function expectJobTable(run: MpiRun, np: number, made: Made) {
  expect(headers(run), run.stderr).toEqual([expect.stringContaining(`job of ${np} rank${np === 1 ? '' : 's'};`)]);
  const rows = statsRows(run.stderr);
  const of = (coll: string) => rows.filter((r) => r.collective === coll);
  const sum = (coll: string, key: 'calls' | 'bytes') => of(coll).reduce((n, r) => n + r[key], 0);
  // Every collective the program made, whichever algorithm ran it; nothing else.
  expect([...new Set(rows.map((r) => r.collective))].sort()).toEqual([made.collective, 'barrier', 'bcast'].sort());
  expect(sum('barrier', 'calls')).toBe(BARRIERS * np);
  expect(sum(made.collective, 'calls')).toBe(REPEATS * np);
  expect(sum(made.collective, 'bytes')).toBe(REPEATS * np * made.bytes(np));
  expect(sum('bcast', 'calls')).toBe(np);
  expect(sum('bcast', 'bytes')).toBe(16 * np);
  for (const r of rows) {
    expect(r.ranks, `${r.collective} ${r.algorithm}`).toBe(np);
    for (const t of r.times) expect(t, `${r.collective} ${r.algorithm}`).toMatch(/^\d+(\.\d+)? (us|ms|s)$/);
  }
  // Rank 0 prints it: from its header on, the table's lines come together.
  const lines = run.stderr.split('\n').filter((l) => l.startsWith('topocoll stats: '));
  const start = lines.findIndex((l) => l.startsWith('topocoll stats: job of'));
  expect(lines.slice(start, start + 2 + rows.length).every((l) => /^topocoll stats: (job of|collective|\S+ +\S+ +\d)/.test(l))).toBe(true);
}

function expectRanksAgree(run: MpiRun, np: number, what: string) {
  const lines = run.stdout.split('\n').filter((l) => l.startsWith(what));
  expect(lines.sort()).toEqual(Array.from({ length: np }, (_, r) => `${what}: rank ${r} of ${np}, 0 wrong`).sort());
}

describe.each(FLAVOURS)('TOPOCOLL_STATS: one table per job at MPI_Finalize (%s)', (flavour) => {
  let bin = '';
  beforeAll(async () => {
    bin = await buildPrograms(flavour);
  });
  const c = (np: number, env: Record<string, string>, extra: string[] = []) =>
    mpirun({ flavour, np, args: [path.join(bin, 'stats_calls'), String(BARRIERS), String(REPEATS), ...extra], mpirunArgs: preloadArgs(flavour), env, timeoutMs: TIMEOUT[flavour] });

  it.each(NP[flavour])('C under the preload library, p = %i: the table once, with the calls the program made', async (np) => {
    const run = await c(np, { TOPOCOLL_STATS: '1' });
    expectSuccess(run);
    expectRanksAgree(run, np, 'stats_calls');
    expectJobTable(run, np, C_MADE);
    expect(run.stderr).not.toMatch(/^topocoll stats: rank \d/m);
  });

  it.each(NP[flavour])('Node, p = %i: the table once at the exit, with the calls the program made', async (np) => {
    const run = await mpirun({ flavour, np, args: ['test/mpi/programs/stats-calls.js', String(BARRIERS), String(REPEATS)], env: { TOPOCOLL_STATS: '1' }, timeoutMs: TIMEOUT[flavour] });
    expectSuccess(run);
    expectRanksAgree(run, np, 'stats-calls');
    expectJobTable(run, np, NODE_MADE);
  });

  it('TOPOCOLL_STATS=2 adds one line per rank and algorithm, each with that rank\'s calls, and the table still once', async () => {
    const np = Math.max(...NP[flavour]);
    const run = await c(np, { TOPOCOLL_STATS: '2', TOPOCOLL_BARRIER_ALGORITHM: 'dissemination' });
    expectSuccess(run);
    expectJobTable(run, np, C_MADE);
    for (let r = 0; r < np; r++) {
      expect(run.stderr).toMatch(new RegExp(`^topocoll stats: rank ${r} barrier +dissemination +calls ${BARRIERS} bytes 0 time \\S+ (us|ms|s)$`, 'm'));
    }
    expect(statsRows(run.stderr).find((row) => row.collective === 'barrier')).toMatchObject({ algorithm: 'dissemination', calls: BARRIERS * np });
  });

  it('a program that never calls MPI_Finalize gets no report, and its job ends', async () => {
    const np = Math.max(...NP[flavour]);
    const run = await c(np, { TOPOCOLL_STATS: '1' }, ['--no-finalize']);
    expect(run.signal).toBeNull(); // ended by itself, not killed at the timeout
    // The program ran (the launcher may end the other ranks once one has exited unfinalized).
    expect(run.stdout).toMatch(/^stats_calls: rank \d+ of \d+, 0 wrong$/m);
    expect(run.stderr).not.toContain('topocoll stats');
  });
});
