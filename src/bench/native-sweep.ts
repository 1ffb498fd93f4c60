// A sweep in launches (`bench`/`tune --np N`): the main launch measures ours, native and auto;
// the MPI's own algorithms (`--algorithms native:NAME|native:all`) each need a launch of their
// own, since the MPI reads its choice at MPI_Init (Open MPI's coll_tuned_<coll>_algorithm,
// MPICH's MPIR_CVAR_<COLL>_INTRA_ALGORITHM). One launch forces one algorithm of every collective
// at once, so a sweep takes as many extra launches as the collective with the most algorithms.
// Each launch is `topocoll bench` writing its report to a file (TOPOCOLL_BENCH_REPORT); the
// reports join into one, the MPI's algorithms as `native:<name>` rows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { UsageError } from '../config/args';
import { forcingEnvironment, nativeAlgorithms } from '../select/native-algorithms';
import { MPI_FLAVOUR_TITLES, NATIVE, type CollectiveName, type MpiFlavour } from '../select/registry';
import { NATIVE_PREFIX } from '../select/rules';
import { warnIfLoaded } from './machine';
import type { SelfLauncher } from './options';
import { readReport, withNativeLaunch } from './report';
import type { BenchReport, SkippedAlgorithm, SweepOptions } from './sweep';

/** `native:all` in --algorithms: every algorithm the MPI offers for each collective. */
const ALL = `${NATIVE_PREFIX}all`;

/** One launch of a native sweep: the MPI's algorithm forced per collective, and its environment. */
export interface NativeLaunch {
  names: Partial<Record<CollectiveName, string>>;
  env: Record<string, string>;
}

export function wantsNativeAlgorithms(sweep: SweepOptions): boolean {
  return sweep.algorithms.some((a) => a.startsWith(NATIVE_PREFIX));
}

/** Why `command` cannot measure the MPI's own algorithms inside a job someone else launched. */
export function nativeNeedsLaunches(command: string): string {
  return `native:NAME algorithms need a launch each (the MPI reads its choice at MPI_Init): run \`topocoll ${command} --np N ...\` outside mpirun, and it launches them`;
}

/**
 * The launches the MPI's algorithms asked for in `sweep` take on `np` ranks of `mpi`, and those
 * that cannot run there (not measured, with why). A name no measured collective has is a usage error.
 */
export function nativeLaunches(sweep: SweepOptions, mpi: MpiFlavour, np: number): { launches: NativeLaunch[]; skipped: SkippedAlgorithm[] } {
  const asked = sweep.algorithms.filter((a) => a.startsWith(NATIVE_PREFIX)).map((a) => a.slice(NATIVE_PREFIX.length));
  const all = sweep.algorithms.includes(ALL);
  for (const name of asked) {
    if (name === 'all' || sweep.collectives.some((c) => nativeAlgorithms(mpi, c).some((a) => a.name === name))) continue;
    const valid = [...new Set(sweep.collectives.flatMap((c) => nativeAlgorithms(mpi, c).map((a) => `${NATIVE_PREFIX}${a.name}`)))];
    throw new UsageError(`--algorithms: "${NATIVE_PREFIX}${name}" is not an algorithm of ${MPI_FLAVOUR_TITLES[mpi]} for ${sweep.collectives.join(', ')}; valid choices: ${[...valid, ALL].join(', ')}`);
  }
  const skipped: SkippedAlgorithm[] = [];
  const perCollective = sweep.collectives.map((coll) => {
    const names: string[] = [];
    for (const a of nativeAlgorithms(mpi, coll).filter((x) => all || asked.includes(x.name))) {
      const why = a.inPlaceOnly ? 'runs on in-place calls only (bench measures others)' : a.onlyRanks !== undefined && a.onlyRanks !== np ? `runs on ${a.onlyRanks} ranks only` : null;
      if (why) skipped.push({ collective: coll, algorithm: `${NATIVE_PREFIX}${a.name}`, why: `${MPI_FLAVOUR_TITLES[mpi]}'s ${a.name} ${why}` });
      else names.push(a.name);
    }
    return { coll, names };
  });
  const count = Math.max(0, ...perCollective.map((c) => c.names.length));
  const launches = Array.from({ length: count }, (_, k) => launchOf(mpi, perCollective.filter((c) => k < c.names.length).map((c) => [c.coll, c.names[k]] as const)));
  return { launches, skipped };
}

function launchOf(mpi: MpiFlavour, forced: ReadonlyArray<readonly [CollectiveName, string]>): NativeLaunch {
  return {
    names: Object.fromEntries(forced),
    env: Object.assign({}, ...forced.map(([coll, name]) => forcingEnvironment(mpi, coll, name))),
  };
}

/** `topocoll bench` arguments that measure `sweep` restricted to `collectives` and `algorithms` (empty: all). */
function benchArgs(sweep: SweepOptions, collectives: readonly CollectiveName[], algorithms: readonly string[], quiet: boolean): string[] {
  const args = ['--collectives', collectives.join(','), '--sizes', sweep.sizes.join(','), '--repetitions', String(sweep.repetitions)];
  args.push('--time-ms', String(sweep.targetUs / 1000), '--timing', sweep.timing ?? 'loop', '--rotate', String(sweep.rotateBytes), '--root', String(sweep.root));
  if (algorithms.length) args.push('--algorithms', algorithms.join(','));
  if (sweep.check) args.push('--check');
  if (quiet) args.push('--quiet');
  return args;
}

/**
 * Measures `sweep` for `command` (bench, tune) in launches of `launcher`: the main one, then the
 * native sweep's. A failed native launch of several collectives is tried again one collective at
 * a time; what still fails is reported as not measured. Resolves to the joined report, or the
 * main launch's exit code when it failed.
 */
export async function measureByLaunches(command: string, launcher: SelfLauncher, sweep: SweepOptions, quiet: boolean): Promise<BenchReport | number> {
  const { launches, skipped } = nativeLaunches(sweep, launcher.flavour, launcher.np);
  warnIfLoaded(command);
  const dir = mkdtempSync(path.join(tmpdir(), 'topocoll-sweep-'));
  try {
    let n = 0;
    const launch = async (collectives: readonly CollectiveName[], algorithms: readonly string[], env: Record<string, string> = {}) => {
      const file = path.join(dir, `launch-${n++}.json`);
      const code = await launcher.run('bench', benchArgs(sweep, collectives, algorithms, quiet), { ...env, TOPOCOLL_BENCH_REPORT: file });
      return code === 0 ? readReport(file, 'the launch\'s report') : code;
    };
    const ours = sweep.algorithms.filter((a) => !a.startsWith(NATIVE_PREFIX));
    // Only the MPI's algorithms asked for: the main launch measures native, what they are compared with.
    const main = await launch(sweep.collectives, ours.length || sweep.algorithms.length === 0 ? ours : [NATIVE]);
    if (typeof main === 'number') return main;
    let report: BenchReport = { ...main, options: { ...main.options, algorithms: sweep.algorithms }, skipped: [...main.skipped, ...skipped] };
    const runNative = async (l: NativeLaunch, i: number, of: number): Promise<void> => {
      const collectives = Object.keys(l.names) as CollectiveName[];
      if (!quiet) {
        const what = collectives.map((c) => `${c} ${l.names[c]}`).join(', ');
        process.stderr.write(`topocoll ${command}: launch ${i + 2} of ${of + 1}: ${MPI_FLAVOUR_TITLES[launcher.flavour]}'s own ${what} (${Object.entries(l.env).map(([k, v]) => `${k}=${v}`).join(' ')})\n`);
      }
      const got = await launch(collectives, [NATIVE], l.env);
      if (typeof got !== 'number') {
        report = withNativeLaunch(report, got, l.names, n - 1);
        return;
      }
      if (collectives.length > 1) {
        for (const c of collectives) await runNative(launchOf(launcher.flavour, [[c, l.names[c]!]]), i, of);
        return;
      }
      const [c] = collectives;
      const env = Object.entries(l.env).map(([k, v]) => `${k}=${v}`).join(' ');
      report.skipped.push({ collective: c, algorithm: `${NATIVE_PREFIX}${l.names[c]}`, why: `its launch failed (exit ${got}) with ${env}` });
    };
    for (let i = 0; i < launches.length; i++) await runNative(launches[i], i, launches.length);
    return report;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
