// C programs under LD_PRELOAD=libtopocoll.so (test/c/conformance.c): every algorithm the library
// has (it lists them itself, so new ones are covered here without an edit), native and auto, on
// every collective, blocking and nonblocking, counts 0/1/7/large, in place, four element kinds
// (bytes, a strided vector, a struct with holes, an indexed type with lb > 0), packed bytes
// against a derived receive type; then completion calls, communicators of every kind,
// intercommunicators, a create/free loop and the `_c` entry points. Every byte is compared with
// the system MPI's result. TOPOCOLL_STATS proves the calls ran through the library.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, type Flavour } from '../helpers/mpirun';
import { preloadArgs, statsOf } from '../c/preload-helpers';
// @ts-expect-error plain ESM helper shared with the C build
import { buildPrograms } from '../c/build.mjs';

const NP: Record<Flavour, number[]> = { openmpi: [1, 2, 3, 4, 5, 8], mpich: [2, 3] };
// Sizes and loop lengths per job: oversubscribed jobs (more ranks than the 2 cores) and MPICH 4.0,
// which busy-polls, pay milliseconds per message, so they get smaller large blocks and fewer
// communicators in the create/free loop (still far above what a leak needs to show).
const ARGS = (flavour: Flavour, np: number): string[] =>
  flavour === 'openmpi' && np <= 4
    ? ['--large', '12000', '--max-bytes', '16384', '--comms', '100']
    : ['--large', '4000', '--max-bytes', '8192', '--comms', flavour === 'mpich' && np > 2 ? '30' : '50'];
const TIMEOUT = 120_000;

describe.each(FLAVOURS)('C conformance under the preload library (%s)', (flavour) => {
  let bin = '';
  beforeAll(async () => {
    bin = await buildPrograms(flavour);
  });

  it.each(NP[flavour])('p = %i: every algorithm x kind x count x in-place x blocking/nonblocking, bytes equal to the system MPI', async (np) => {
    const run = await mpirun({
      flavour,
      np,
      args: [path.join(bin, 'conformance'), '--require-topocoll', ...ARGS(flavour, np)],
      mpirunArgs: preloadArgs(flavour),
      env: { TOPOCOLL_STATS: '1' },
      timeoutMs: TIMEOUT,
    });
    expectSuccess(run);
    expect(run.stdout).toMatch(new RegExp(`conformance: \\d+ cases on ${np} ranks, 0 failures`));
    const listed = new Map<string, string[]>();
    for (const m of run.stdout.matchAll(/^algorithms (\w+): (.*)$/gm)) listed.set(m[1], m[2].split(','));
    expect([...listed.keys()].sort()).toEqual(['allgather', 'alltoall', 'barrier', 'bcast']);
    // The library ran every algorithm it listed (auto resolves to one of them).
    const stats = statsOf(run.stderr);
    for (const [coll, names] of listed) {
      expect(names.slice(0, 2)).toEqual(['native', 'auto']);
      expect(names.length, `${coll}: the library lists no algorithm of its own`).toBeGreaterThan(2);
      for (const name of names.filter((n) => n !== 'auto')) {
        expect(stats.get(`${coll} ${name}`) ?? 0, `${coll} ${name} calls`).toBeGreaterThan(0);
      }
    }
  });
});
