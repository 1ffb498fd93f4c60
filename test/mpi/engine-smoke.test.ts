import { describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun } from '../helpers/mpirun';

describe.each(FLAVOURS)('engine smoke (%s)', (flavour) => {
  it.each(['ring'])('allgather %s delivers every block in rank order', async (algorithm) => {
    const np = flavour === 'mpich' ? 2 : 3;
    const run = await mpirun({ flavour, np, args: ['test/mpi/programs/engine-allgather.js', '5'], env: { TOPOCOLL_ALLGATHER_ALGORITHM: algorithm } });
    expectSuccess(run);
    const lines = run.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(np);
    for (const l of lines) expect(l.bad).toEqual([]);
  });
});
