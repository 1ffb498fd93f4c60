// A client we did not write: mpi4py (Debian's python3-mpi4py, installed by scripts/setup.sh)
// issues its collectives through the preload library, buffer and pickled-object forms, in place,
// nonblocking, with a derived datatype, the reductions (sums of ints, and a user-defined op on
// allreduce) (test/python/mpi4py_collectives.py checks every value). Each job forces the i-th algorithm of every collective, so that all of them run.
// Debian builds mpi4py against Open MPI only, so MPICH is not tried.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COLLECTIVES } from '../../src/select/registry';
import { expectSuccess, FLAVOURS, mpirun, repoRoot } from '../helpers/mpirun';
import { preloadArgs, statsOf } from '../c/preload-helpers';

// The system's interpreter, where apt put mpi4py (a pyenv or venv python3 on PATH may lack it).
const PYTHON = '/usr/bin/python3';
const SCRIPT = path.join(repoRoot, 'test/python/mpi4py_collectives.py');
// The collectives with algorithms of ours (the others are the system MPI's whatever is forced).
const OURS = COLLECTIVES.filter((c) => c.algorithms.length > 0);
const JOBS = Math.max(...OURS.map((c) => c.algorithms.length));

describe.runIf(FLAVOURS.includes('openmpi'))('mpi4py programs under the preload library (openmpi)', () => {
  const run = (env: Record<string, string>) =>
    mpirun({ flavour: 'openmpi', np: 3, args: [PYTHON, SCRIPT], mpirunArgs: preloadArgs('openmpi'), env: { TOPOCOLL_STATS: '1', ...env }, timeoutMs: 60_000 });

  it.each(['native', 'auto'])('%s: every value mpi4py receives is right', async (choice) => {
    const env = Object.fromEntries(COLLECTIVES.map((c) => [c.env, choice]));
    const r = await run(env);
    expectSuccess(r);
    expect(r.stdout).toContain('mpi4py collectives: all correct');
  });

  it.each(Array.from({ length: JOBS }, (_, i) => i))('job %i: the i-th algorithm of every collective forced, every value right', async (i) => {
    const forced = OURS.map((c) => [c.name, c.env, c.algorithms[i % c.algorithms.length]] as const);
    // An allreduce that does not combine in rank order refuses a non-commutative op (TOPOCOLL_FALLBACK=error).
    const allreduce = forced.find(([coll]) => coll === 'allreduce')![2];
    const r = await run({ ...Object.fromEntries(forced.map(([, env, a]) => [env, a.name])), ALLREDUCE_RANK_ORDERED: allreduce.rankOrdered ? '1' : '0' });
    expectSuccess(r);
    expect(r.stdout).toContain('mpi4py collectives: all correct');
    const stats = statsOf(r.stderr);
    for (const [coll, , { name }] of forced) expect(stats.get(`${coll} ${name}`) ?? 0, `${coll} ${name} calls`).toBeGreaterThan(0);
  });
});
