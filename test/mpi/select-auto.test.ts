// What `auto` picks beyond the size rules: placement-aware default rules (ranks spread over
// nodes) and TOPOCOLL_SELECT=model; whatever it picks must deliver the right bytes.
import { describe, expect, it } from 'vitest';
import { statsOf } from '../c/preload-helpers';
import { expectSuccess, FLAVOURS, mpirun, rankReports, type Flavour } from '../helpers/mpirun';

/** Runs test/mpi/programs/select-model.js with TOPOCOLL_VERBOSE=1; returns the trace lines per collective. */
async function tracedRun(flavour: Flavour, np: number, env: Record<string, string>) {
  const run = await mpirun({ flavour, np, args: ['test/mpi/programs/select-model.js'], env: { TOPOCOLL_VERBOSE: '1', ...env }, timeoutMs: 120_000 });
  expectSuccess(run);
  const ranks = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
  expect(ranks).toHaveLength(np);
  for (const rank of ranks) expect(rank.bad).toEqual([]);
  const traced = run.stderr.split('\n').filter((l) => l.startsWith('topocoll: comm'));
  return (coll: string) => traced.filter((l) => l.includes(` ${coll} `));
}

describe.each(FLAVOURS)('auto selection (%s)', (flavour) => {
  const np = flavour === 'mpich' ? 3 : 4;

  it(`TOPOCOLL_SELECT=model chooses by predicted time on ${np} ranks over two virtual nodes`, async () => {
    const traced = await tracedRun(flavour, np, { TOPOCOLL_SELECT: 'model', TOPOCOLL_VIRTUAL_NODES: 'block:2' });
    for (const coll of ['allgather', 'bcast', 'alltoall']) {
      expect(traced(coll).length).toBeGreaterThan(0);
      for (const l of traced(coll)) expect(l).toMatch(/model: smallest predicted time/);
    }
    // 40 duplicates of the world, each freed after one allgather: every one chose by the model.
    const comms = new Set(traced('allgather').map((l) => /topocoll: comm (\d+)/.exec(l)![1]));
    expect(comms.size).toBeGreaterThanOrEqual(41);
  });

  it('ranks spread over nodes: allgather blocks >= 8 KiB go to bruck_reorder, and not on one node', async () => {
    const spread = await tracedRun(flavour, np, { TOPOCOLL_VIRTUAL_NODES: 'block:2' });
    expect(spread('allgather').find((l) => l.includes(' 160000 B/block'))).toMatch(/-> bruck_reorder \(default rule: seed 004/);
    expect(spread('allgather').find((l) => l.includes(' 400 B/block'))).not.toMatch(/bruck_reorder/);
    const oneNode = await tracedRun(flavour, np, {});
    expect(oneNode('allgather').find((l) => l.includes(' 160000 B/block'))).not.toMatch(/bruck_reorder/);
  });

  it('2 ranks: an 8 B allreduce goes to Open MPI\'s own when blocking, and to shared memory when nonblocking (rule `nonblocking`)', async () => {
    const run = await mpirun({ flavour, np: 2, args: ['test/mpi/programs/call-form.js'], env: { TOPOCOLL_STATS: '1' }, timeoutMs: 120_000 });
    expectSuccess(run);
    for (const rank of rankReports<{ rank: number; bad: unknown[] }>(run, 2)) expect(rank.bad).toEqual([]);
    // Calls summed over both ranks: 1 KiB once, 8 B three times blocking and five times nonblocking.
    const calls = statsOf(run.stderr);
    if (flavour === 'openmpi') {
      expect(calls.get('allreduce native')).toBe(2 * 3);
      expect(calls.get('allreduce hierarchical')).toBe(2 * (1 + 5));
    } else {
      expect(calls.get('allreduce native')).toBeUndefined();
      expect(calls.get('allreduce hierarchical')).toBe(2 * (1 + 3 + 5));
    }
  });

  it('2 ranks: a 4 KiB bcast takes one shared copy under Open MPI and stays with MPICH\'s eager path under MPICH', async () => {
    const traced = await tracedRun(flavour, 2, {});
    const bcast4k = traced('bcast').find((l) => l.includes(' 4096 B'));
    if (flavour === 'mpich') expect(bcast4k).toMatch(/-> native \(default rule: .*MPICH's eager/);
    else expect(bcast4k).toMatch(/-> hierarchical \(default rule/);
  });
});
