// Shared-memory segments pooled across communicators (native/engine/shm/shm_pool.h): a C
// program under the preload library creates and frees hundreds of communicators with the shm
// algorithms forced, every byte checked, while the segments it maps and the names in /dev/shm
// stay flat; and the stale-segment cleanup removes only what it should of files planted in
// /dev/shm.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, FLAVOURS, mpirun, type Flavour } from '../helpers/mpirun';
// @ts-expect-error plain ESM helper shared with the C build
import { buildPrograms } from '../c/build.mjs';
import { preloadArgs, statsOf } from '../c/preload-helpers';
import { addon } from '../../src/mpi/native';

const SHM_FORCED = {
  TOPOCOLL_BARRIER_ALGORITHM: 'shm_hierarchical',
  TOPOCOLL_BCAST_ALGORITHM: 'shm_numa',
  TOPOCOLL_ALLGATHER_ALGORITHM: 'hierarchical',
};
// MPICH 4.0 busy-polls: 2 ranks, generous limits (design.md section 5).
const NP: Record<Flavour, number> = { openmpi: 3, mpich: 2 };
const timeoutMs = (flavour: Flavour) => (flavour === 'mpich' ? 180000 : 90000);
const prefix = (addon().shmNamePrefix() as string).slice(1); // "topocoll-<euid>-h<host id>-"
const ours = () => fs.readdirSync('/dev/shm').filter((n) => n.startsWith(prefix));

interface Churn {
  ranks: number;
  iterations: number;
  rss: number[];
  entries: number[];
  mapped: number[];
}

function churnLine(stdout: string): Churn {
  const m = stdout.match(
    /comm_churn: ok on (\d+) ranks iterations (\d+) mode \S+ seconds \S+ rss_kib (\d+) (\d+) (\d+) shm_entries (\d+) (\d+) (\d+) shm_mapped (\d+) (\d+) (\d+)/,
  );
  expect(m, stdout).not.toBeNull();
  const n = m!.slice(1).map(Number);
  return { ranks: n[0], iterations: n[1], rss: n.slice(2, 5), entries: n.slice(5, 8), mapped: n.slice(8, 11) };
}

describe.each(FLAVOURS)('communicators created and freed in a loop (%s)', (flavour) => {
  let bin = '';
  beforeAll(async () => {
    bin = await buildPrograms(flavour);
  });
  const churn = (iterations: number, env: Record<string, string>) =>
    mpirun({
      flavour,
      np: NP[flavour],
      args: [path.join(bin, 'comm_churn'), String(iterations), 'all', '4096'],
      mpirunArgs: preloadArgs(flavour),
      env,
      timeoutMs: timeoutMs(flavour),
    });

  it('a few hundred dups, splits and pairs with shm algorithms forced: bytes right, segments reused, /dev/shm flat and empty after', async () => {
    const np = NP[flavour];
    const iterations = flavour === 'mpich' ? 150 : 300;
    const run = await churn(iterations, { ...SHM_FORCED, TOPOCOLL_STATS: '2' });
    expectSuccess(run);
    const c = churnLine(run.stdout);
    expect(c).toMatchObject({ ranks: np, iterations });
    // The shm algorithms ran on every communicator (world's barrier before the loop, then
    // one call each per iteration and member: np for a dup or a split, 2 for a pair).
    const calls = (iterations / 3) * (2 * np + 2);
    const stats = statsOf(run.stderr);
    expect(stats.get('barrier shm_hierarchical')).toBe(calls + np);
    expect(stats.get('bcast shm_numa')).toBe(calls);
    expect(stats.get('allgather hierarchical')).toBe(calls);
    // The engine's side of a communicator (its MPI_Comm_dup and shared-memory lease) is made
    // once per group of ranks and taken over by the next communicator of that group: a few
    // made served all (ShadowComm's pool), and a few segments (one per layout) served those.
    const members = calls + np; // every communicator's barrier, and the world's
    const shadows = [...run.stderr.matchAll(/^topocoll stats: rank \d+ shadow comms created (\d+) reused (\d+)$/gm)];
    expect(shadows).toHaveLength(np);
    const made = shadows.reduce((n, m) => n + Number(m[1]), 0);
    const reused = shadows.reduce((n, m) => n + Number(m[2]), 0);
    expect(made + reused).toBe(members);
    expect(made).toBeLessThanOrEqual(np * 6); // the world, a dup of it, two halves, two pairs
    const pool = [...run.stderr.matchAll(/^topocoll stats: rank \d+ shm segments created (\d+) leased (\d+)$/gm)];
    expect(pool).toHaveLength(np);
    const created = pool.reduce((n, m) => n + Number(m[1]), 0);
    const leased = pool.reduce((n, m) => n + Number(m[2]), 0);
    expect(leased).toBeLessThanOrEqual(made);
    expect(created).toBeLessThanOrEqual(8);
    // Names exist only while ranks attach, and none is left behind.
    expect(c.entries).toEqual([0, 0, 0]);
    expect(ours()).toEqual([]);
    // What rank 0 maps stops growing, and so does its memory.
    expect(c.mapped[1]).toBeLessThanOrEqual(6);
    expect(c.mapped[2]).toBe(c.mapped[1]);
    expect(c.rss[2] - c.rss[1]).toBeLessThan(1024);
  });
});

describe.each(FLAVOURS)('the stale-segment cleanup (%s)', (flavour) => {
  const planted: string[] = [];
  const root = process.getuid?.() === 0;
  let bin = '';
  beforeAll(async () => {
    bin = await buildPrograms(flavour);
  });
  afterAll(() => {
    for (const n of planted) fs.rmSync(path.join('/dev/shm', n), { force: true, recursive: true });
  });

  it('removes a segment of ours whose creator died, and nothing else', async () => {
    // A pid that was just alive and is no longer; one that is alive (this test's process).
    const dead = spawnSync('true').pid!;
    expect(fs.existsSync(`/proc/${dead}`)).toBe(false);
    const nonce = (n: number) => n.toString(16).padStart(16, '0');
    const plant = (name: string, how: 'file' | 'dir' | 'link' = 'file') => {
      const p = path.join('/dev/shm', name);
      if (how === 'file') fs.writeFileSync(p, 'x', { mode: 0o600 });
      else if (how === 'dir') fs.mkdirSync(p);
      else fs.symlinkSync('/dev/null', p);
      planted.push(name);
      return name;
    };
    const orphan = plant(`${prefix}${dead}-0-${nonce(1)}`);
    const keep = [
      plant(`${prefix}${dead}-1-${nonce(2)}x`), // trailing junk
      plant(`${prefix}${dead}junk`),
      plant(`${prefix}${dead}-2`),
      plant(`${prefix}${process.pid}-0-${nonce(3)}`), // creator alive
      plant(`topocoll-${os.userInfo().uid}-h0123456789abcdef-${dead}-0-${nonce(4)}`), // another host (or pid namespace)
      plant(`${prefix}${dead}-3-${nonce(5)}`, 'dir'),
      plant(`${prefix}${dead}-4-${nonce(6)}`, 'link'),
    ];
    if (root) {
      // Of our pattern, but another user's file.
      const p = plant(`${prefix}${dead}-5-${nonce(7)}`);
      fs.chownSync(path.join('/dev/shm', p), 65534, 65534);
      keep.push(p);
    }
    const run = await mpirun({
      flavour,
      np: 2,
      args: [path.join(bin, 'comm_churn'), '2', 'dup', '64'],
      mpirunArgs: preloadArgs(flavour),
      env: SHM_FORCED,
      timeoutMs: timeoutMs(flavour),
    });
    expectSuccess(run);
    const left = fs.readdirSync('/dev/shm');
    expect(left).not.toContain(orphan);
    for (const n of keep) expect(left, n).toContain(n);
  });
});
