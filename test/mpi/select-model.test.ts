// TOPOCOLL_SELECT=model: `auto` picks by the engine's cost model for the real communicator and
// placement (virtual nodes here), and what it picks delivers the right bytes.
import { describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun } from '../helpers/mpirun';

describe.each(FLAVOURS)('TOPOCOLL_SELECT=model (%s)', (flavour) => {
  const np = flavour === 'mpich' ? 3 : 4;
  it(`chooses by predicted time on ${np} ranks over two virtual nodes, bytes right`, async () => {
    const run = await mpirun({
      flavour,
      np,
      args: ['test/mpi/programs/select-model.js'],
      env: { TOPOCOLL_SELECT: 'model', TOPOCOLL_VERBOSE: '1', TOPOCOLL_VIRTUAL_NODES: 'block:2' },
      timeoutMs: 120_000,
    });
    expectSuccess(run);
    const ranks = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(ranks).toHaveLength(np);
    for (const rank of ranks) expect(rank.bad).toEqual([]);
    const traced = run.stderr.split('\n').filter((l) => l.startsWith('topocoll: comm'));
    for (const coll of ['allgather', 'bcast', 'alltoall']) {
      const lines = traced.filter((l) => l.includes(` ${coll} `));
      expect(lines.length, `${coll} traced:\n${run.stderr}`).toBeGreaterThan(0);
      for (const l of lines) expect(l).toMatch(/model: smallest predicted time/);
    }
  });
});
