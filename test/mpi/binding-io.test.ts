// MPI-IO under real mpirun with both MPIs: test/mpi/programs/binding-io.mjs writes files in a
// fresh directory (removed afterwards), checks their bytes as Node's fs reads them and as MPI
// reads them back, and the errors; each rank prints one JSON line.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, rankReports, type Flavour } from '../helpers/mpirun';

// MPICH busy-polls: two ranks on this machine.
const SIZES: Record<Flavour, number[]> = { openmpi: [1, 2, 3], mpich: [2] };

interface RankReport {
  rank: number;
  size: number;
  checks: number;
  failures: { name: string; detail?: unknown }[];
}

describe.each(FLAVOURS)('MPI-IO (%s)', (flavour) => {
  it.each(SIZES[flavour])('collective blocks, vector and subarray views, the file pointer and the errors write and read the right bytes at np=%i', async (np) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'topocoll-io-'));
    try {
      const run = await mpirun({ flavour, np, args: ['test/mpi/programs/binding-io.mjs', dir], timeoutMs: 120_000 });
      expectSuccess(run);
      for (const r of rankReports<RankReport>(run, np)) {
        expect(r.failures, `rank ${r.rank}`).toEqual([]);
        expect(r.size).toBe(np);
        expect(r.checks).toBeGreaterThanOrEqual(55);
      }
      // What deleteOnClose and File.delete removed is gone; the shared files remain.
      expect(readdirSync(dir).sort()).toEqual(['blocks.bin', 'columns.bin', 'interleaved.bin', 'sparse.bin']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
