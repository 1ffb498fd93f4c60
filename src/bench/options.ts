// Options shared by `topocoll bench` and `topocoll tune`, and the self-launch under mpirun.
import path from 'node:path';
import { envValue } from '../config/env';
import { parseBytes, UsageError, type OptionSpec, type ParsedOptions } from '../config/args';
import { launcherModule } from '../mpi/launcher';
import { launcherFlavour, packageRoot, type Flavour } from '../mpi/native';
import { AUTO, COLLECTIVES, MPI_FLAVOURS, NATIVE, type CollectiveName } from '../select/registry';
import { NATIVE_PREFIX } from '../select/rules';
import { lastLevelCacheBytes } from './machine';
import type { SweepOptions, Timing } from './sweep';

export const SWEEP_OPTIONS: Record<string, OptionSpec> = {
  np: { type: 'int', min: 1 },
  mpi: { type: 'string', choices: MPI_FLAVOURS },
  'test-machine': { type: 'flag' },
  collectives: { type: 'string' },
  algorithms: { type: 'string' },
  sizes: { type: 'string' },
  repetitions: { type: 'int', min: 1 },
  'time-ms': { type: 'string' },
  timing: { type: 'string', choices: ['loop', 'window'] },
  rotate: { type: 'string' },
  root: { type: 'int', min: 0 },
  check: { type: 'flag' },
  quick: { type: 'flag' },
  quiet: { type: 'flag' },
};

/** Benchmarked unless --collectives says otherwise: those with algorithms of ours (the others only run native). */
const DEFAULT_COLLECTIVES = COLLECTIVES.filter((c) => c.algorithms.length > 0).map((c) => c.name);

export const SWEEP_USAGE = [
  '  --np N               launch N ranks with mpirun (default 2 when not started by mpirun)',
  '  --mpi openmpi|mpich  the MPI to launch with (default: TOPOCOLL_MPI, else the first built)',
  '  --test-machine       with --np: oversubscription, Open MPI as root, ranks yielding when idle if they outnumber the CPUs (as `topocoll mpirun --test-machine`, which always yields)',
  `  --collectives LIST   comma-separated (default: ${DEFAULT_COLLECTIVES.join(',')})`,
  '  --algorithms LIST    algorithms to run besides native (default: every registered one, and auto);\n' +
  '                       native:NAME the MPI\'s own algorithm NAME, native:all all of them (with --np: a launch each)',
  '  --sizes SPEC         MIN..MAX (powers of two) or a list: 1..4M (default), 8,8K,120K',
  '  --repetitions N      repetitions per cell, interleaved across algorithms (default 5; --quick 3)',
  '  --time-ms T          time one repetition of a cell aims at, iterations adapt (default 10; --quick 2)',
  '  --timing loop|window loop: mean time per call of back-to-back calls (default); window: one call from a\n'+
  '                       common start on a synchronised clock, until the last rank finishes (what `simulate` predicts)',
  '  --rotate BYTES       rotate buffers over a pool of BYTES so caches do not flatter (default 2 x LLC, at most 64M; 0 = off)',
  '  --root R             root of bcast and reduce (default 0)',
  '  --check              validate every received byte of the first call of each cell',
  '  --quick              small sizes (1, 64, 4K, 64K), 3 repetitions: for CI',
  '  --quiet              no progress (a bar on a terminal, else a line every 5 s on stderr)',
].join('\n');

/** Sizes: "1..4M" (every power of two between) or "8,8K,120K". */
function parseSizes(spec: string): number[] {
  const range = /^(.+)\.\.(.+)$/.exec(spec);
  if (range) {
    const lo = parseBytes(range[1], '--sizes');
    const hi = parseBytes(range[2], '--sizes');
    if (lo < 1 || hi < lo) throw new UsageError(`--sizes=${spec}: need 1 <= MIN <= MAX`);
    const out: number[] = [];
    for (let s = lo; s <= hi; s *= 2) out.push(s);
    return out;
  }
  const list = spec.split(',').map((s) => parseBytes(s, '--sizes'));
  if (list.some((s) => s < 1)) throw new UsageError(`--sizes=${spec}: sizes must be at least 1 byte`);
  return [...new Set(list)].sort((a, b) => a - b);
}

function parseCollectives(text: string | undefined): CollectiveName[] {
  const valid = COLLECTIVES.map((c) => c.name);
  if (!text) return [...DEFAULT_COLLECTIVES];
  const names = text.split(',').map((s) => s.trim());
  for (const n of names) {
    if (!valid.includes(n as CollectiveName)) throw new UsageError(`--collectives: "${n}" is not a collective; valid choices: ${valid.join(', ')}`);
  }
  return names as CollectiveName[];
}

function parseAlgorithms(text: string | undefined, collectives: readonly CollectiveName[]): string[] {
  if (!text) return [];
  const valid = new Set([NATIVE, AUTO, ...COLLECTIVES.filter((c) => collectives.includes(c.name)).flatMap((c) => c.algorithms.map((a) => a.name))]);
  const names = text.split(',').map((s) => s.trim());
  for (const n of names) {
    // The MPI's own names are checked against the MPI launched (src/bench/native-sweep.ts).
    if (n.startsWith(NATIVE_PREFIX) && /^[a-z][a-z0-9_]*$/.test(n.slice(NATIVE_PREFIX.length))) continue;
    if (!valid.has(n)) throw new UsageError(`--algorithms: "${n}" is not an algorithm of ${collectives.join(', ')}; valid choices: ${[...valid, 'native:NAME', 'native:all'].join(', ')}`);
  }
  return names;
}

function defaultRotateBytes(): number {
  const llc = lastLevelCacheBytes();
  return Math.min(64 << 20, 2 * (llc || 16 << 20));
}

export function sweepOptions(o: ParsedOptions): SweepOptions {
  const quick = o.quick === true;
  const collectives = parseCollectives(o.collectives as string | undefined);
  const timeMs = o['time-ms'] === undefined ? (quick ? 2 : 10) : Number(o['time-ms']);
  if (!(timeMs > 0) || timeMs > 60000) throw new UsageError(`--time-ms=${o['time-ms']} must be a number of milliseconds in (0, 60000]`);
  return {
    collectives,
    algorithms: parseAlgorithms(o.algorithms as string | undefined, collectives),
    sizes: o.sizes ? parseSizes(o.sizes as string) : quick ? [1, 64, 4096, 65536] : parseSizes('1..4M'),
    repetitions: (o.repetitions as number | undefined) ?? (quick ? 3 : 5),
    targetUs: Math.max(1, Math.round(timeMs * 1000)),
    timing: (o.timing as Timing | undefined) ?? 'loop',
    rotateBytes: o.rotate === undefined ? (quick ? 8 << 20 : defaultRotateBytes()) : parseBytes(o.rotate as string, '--rotate'),
    check: o.check === true,
    root: (o.root as number | undefined) ?? 0,
  };
}

/** Launches of `np` ranks of a topocoll command under the chosen MPI's launcher, as --np asks. */
export interface SelfLauncher {
  readonly flavour: Flavour;
  readonly np: number;
  /** Runs `topocoll <command> <args>` under the launcher, `env` added for the ranks; the job's exit code. */
  run(command: string, args: string[], env?: Record<string, string>): Promise<number>;
}

/**
 * Not started by mpirun: a launcher of the ranks (scripts/launcher.mjs's settings; the test
 * machine's with --test-machine); null when already inside a job.
 */
export async function selfLauncher(o: ParsedOptions): Promise<SelfLauncher | null> {
  if (launcherFlavour() !== null) return null;
  const np = (o.np as number | undefined) ?? 2;
  const wanted = (o.mpi as Flavour | undefined) ?? (envValue('TOPOCOLL_MPI') as Flavour | undefined);
  const mod = await launcherModule();
  const plan = (command: string, args: string[]) =>
    mod.planLaunch({
      flavour: wanted,
      launcher: 'mpirun',
      args: ['-np', String(np)],
      program: [process.execPath, path.join(packageRoot, 'bin', 'topocoll.js'), command, ...args],
      forward: [],
      testMachine: o['test-machine'] === true,
      measuring: true,
      env: process.env,
    });
  return {
    flavour: plan('bench', []).flavour, // the MPI the plan settles on (--mpi, TOPOCOLL_MPI, else the default)
    np,
    run(command, args, extra = {}) {
      const p = plan(command, args);
      const env = { ...p.env, ...(wanted ? { TOPOCOLL_MPI: wanted } : {}), TOPOCOLL_BENCH_TTY: process.stderr.isTTY ? '1' : '0', ...extra };
      return mod.runLauncher(p.command, p.args, env, { name: `topocoll ${command}` });
    },
  };
}

/** Not started by mpirun: runs this same command under the launcher and returns its exit code; null inside a job. */
export async function launchSelfIfNeeded(command: string, args: string[], o: ParsedOptions): Promise<number | null> {
  const launcher = await selfLauncher(o);
  return launcher && launcher.run(command, stripLaunchOptions(args));
}

function stripLaunchOptions(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--np' || a === '--mpi') {
      i++;
      continue;
    }
    if (a.startsWith('--np=') || a.startsWith('--mpi=') || a === '--test-machine') continue;
    out.push(a);
  }
  return out;
}
