// `topocoll tune`: sweeps turned into a rules file (TOPOCOLL_RULES) that picks the fastest
// algorithm per collective, size range and job shape; prints what it changes against the
// built-in defaults. The sweeps are measured here (under mpirun, or launched with --np: then
// the MPI's own algorithms too, `--algorithms native:all`), or read from saved reports (--from,
// several job shapes joining into ranges). `--export openmpi|mpich` also writes the choices the
// MPI can make itself as its own tuning file; `--convert FILE` prints a YAML rules file as the
// JSON a preloaded C/Fortran program reads.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stringify as toYaml } from 'yaml';
import { exportTable } from '../bench/export';
import { mpichDefaults, mpichSettings, mpichTree, mpichTuningText } from '../bench/export-mpich';
import { openmpiRulesText, openmpiSettings } from '../bench/export-openmpi';
import { warnIfLoaded } from '../bench/machine';
import { measureByLaunches, nativeNeedsLaunches, wantsNativeAlgorithms } from '../bench/native-sweep';
import { selfLauncher, SWEEP_OPTIONS, SWEEP_USAGE, sweepOptions } from '../bench/options';
import { maybeProgress } from '../bench/progress';
import { readReport } from '../bench/report';
import { runSweep, sweepSteps, type BenchReport } from '../bench/sweep';
import { describeChanges, describeKept, shapeOf, shapeTitle, tuneReports } from '../bench/tune';
import { getWorld } from '../mpi/comm';
import { init } from '../mpi/lifecycle';
import { MPI_FLAVOUR_TITLES, MPI_FLAVOURS, type MpiFlavour } from '../select/registry';
import { loadRules, rulesFromObject } from '../mpi/files';
import { NATIVE_PREFIX, RulesError, rulesToJson, type RulesFile } from '../select/rules';
import { parseOptions, UsageError, type ParsedOptions } from '../config/args';
import { writeReportJson } from './bench';
import type { Command } from './main';

const DEFAULT_OUTPUT = 'topocoll-rules.json';
const EXPORT_OUTPUT: Record<MpiFlavour, string> = { openmpi: 'topocoll-tuned.openmpi.conf', mpich: 'topocoll-tuned.mpich.json' };

/** The file's text: JSON for *.json (what every reader takes), YAML otherwise. */
function rulesText(file: RulesFile, output: string): string {
  if (output.endsWith('.json')) return rulesToJson(file);
  const header = '# topocoll rules (TOPOCOLL_RULES), written by `topocoll tune`; schema: schemas/rules.schema.json\n';
  return header + toYaml(file, { lineWidth: 0 });
}

/** What measures: every sweep option but --quiet, and --json (the measured sweep). */
const MEASURING = [...Object.keys(SWEEP_OPTIONS).filter((k) => k !== 'quiet'), 'json'];

/** Writes the MPI's own tuning file for the choices of `rules` it can make, and says how to use it. */
function exportRules(rules: RulesFile, o: ParsedOptions, source: string, measuredNodes: number | undefined): void {
  const mpi = o.export as MpiFlavour;
  const nodes = (o.nodes as number | undefined) ?? measuredNodes ?? 1;
  let table: ReturnType<typeof exportTable>;
  try {
    table = exportTable(rules.rules, mpi, nodes);
  } catch (e) {
    throw new Error(`${source}: ${(e as Error).message}`);
  }
  const file = path.resolve((o['export-output'] as string | undefined) ?? EXPORT_OUTPUT[mpi]);
  const title = MPI_FLAVOUR_TITLES[mpi];
  let settings: Array<[string, string]>;
  const notes = [...table.notes];
  if (mpi === 'openmpi') {
    writeFileSync(file, openmpiRulesText(table, source, file));
    settings = openmpiSettings(file);
  } else {
    const defaults = mpichDefaults(o['mpich-defaults'] as string | undefined);
    const { tree, notes: more } = mpichTree(table, defaults.tree);
    writeFileSync(file, mpichTuningText(tree));
    notes.push(...more, `MPICH's own choices (every collective and range not tuned) from ${defaults.source}`);
    settings = mpichSettings(table, file);
  }
  const what = table.collectives.map((c) => `${c.collective} (${c.ranks.length} communicator-size range${c.ranks.length === 1 ? '' : 's'})`);
  console.log(
    `wrote ${file}: ${title}'s own tuning, ${what.length ? what.join(', ') : `no choice ${title} can make itself: its own choices everywhere`}; ` +
      `communicators judged over ${nodes} node${nodes === 1 ? '' : 's'} (--nodes)`,
  );
  for (const n of notes) console.log(`  note: ${n}`);
  console.log('use it without the preload library:');
  if (mpi === 'openmpi') {
    console.log(`  mpirun ${settings.map(([k, v]) => `--mca ${k} ${v}`).join(' ')} PROGRAM`);
    console.log(`  (or in the environment: ${settings.map(([k, v]) => `OMPI_MCA_${k}=${v}`).join(' ')})`);
  } else {
    console.log(`  ${settings.map(([k, v]) => `${k}=${v}`).join(' ')} mpiexec PROGRAM`);
  }
}

/**
 * Tunes `reports`, writes the rules file (and the MPI's, with --export) and says what changed;
 * `from`: the files they were read from, none when measured here.
 */
function finish(reports: readonly BenchReport[], o: ParsedOptions, noise: number, from: readonly string[] = []): number {
  const measured = from.length === 0;
  const { file, decisions } = tuneReports(reports, { noiseFloor: noise / 100 });
  rulesFromObject(file, 'the tuned rules'); // what we write, the readers accept
  const output = (o.output as string | undefined) ?? DEFAULT_OUTPUT;
  writeFileSync(output, rulesText(file, output));
  if (measured && o.json) writeReportJson(reports[0], o.json as string);
  const shapes = [...new Set(reports.map((r) => shapeTitle(shapeOf(r))))];
  console.log(`topocoll tune: ${shapes.join('; ')}${reports.length > 1 ? ` (${reports.length} reports)` : ''}; ${[...new Set(reports.map((r) => r.mpi.library))].join('; ')}`);
  const changes = describeChanges(decisions);
  if (changes.length === 0) {
    console.log('the built-in defaults are fastest (within the noise) everywhere measured: the rules restate them');
  } else {
    console.log('changes against the built-in defaults:');
    for (const line of changes) console.log(`  ${line}`);
  }
  const kept = describeKept(decisions);
  if (kept.length) {
    console.log('kept the defaults where a faster algorithm was within the noise:');
    for (const line of kept) console.log(`  ${line}`);
  }
  console.log(`wrote ${output} (${file.rules.length} rules); use it with TOPOCOLL_RULES=${output}`);
  const own = file.rules.filter((r) => r.algorithm.startsWith(NATIVE_PREFIX)).length;
  if (own) console.log(`  ${own} rule${own === 1 ? ' chooses' : 's choose'} the MPI's own algorithm (native:NAME): the engine hands those calls to the MPI, which runs NAME where its own tuning says so (--export)`);
  if (o.export) {
    const nodes = [...new Set(reports.map((r) => r.job.nodes))];
    exportRules(file, o, measured ? 'the sweep just measured' : from.join(', '), nodes.length === 1 ? nodes[0] : undefined);
  }
  return 0;
}

export const tune: Command = {
  summary: 'measure this job shape (or read saved sweeps) and write a rules file (TOPOCOLL_RULES) choosing the fastest algorithm per size; --export the MPI\'s own',
  usage: [
    'topocoll tune [options]   (under mpirun, or with --np N to launch itself)',
    'topocoll tune --from REPORT [REPORT...] [options]   (saved `bench --json` sweeps; no measurement)',
    '',
    SWEEP_USAGE,
    `  --output FILE        the rules file (default ${DEFAULT_OUTPUT}; .json = JSON, else YAML; a preloaded C/Fortran program reads JSON only)`,
    '  --noise PERCENT      differences below this are noise (default 3; the cell\'s own spread when larger)',
    '  --json FILE          also write the sweep (schemas/bench.schema.json)',
    '  --from REPORT...     tune from saved sweeps instead of measuring: several job shapes (MPI, nodes, ranks)',
    '                       give rules over ranges of nodes and ranks, from each measured value to the next',
    '  --export openmpi|mpich  also write the choices the MPI can make itself as its own tuning file (Open MPI\'s',
    '                       coll_tuned_dynamic_rules_filename, MPICH\'s MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)',
    `  --export-output FILE where (default ${EXPORT_OUTPUT.openmpi} or ${EXPORT_OUTPUT.mpich})`,
    '  --rules FILE         with --export: export this rules file instead of tuning',
    '  --nodes N            with --export: the nodes communicators span, for rules on placement (default: the measured)',
    '  --mpich-defaults FILE  with --export mpich: MPICH\'s selection tree for what is not tuned (default: the installed libmpich\'s)',
    '  --convert FILE       print rules FILE (YAML or JSON) as JSON and exit; no measurement',
  ].join('\n'),
  async run(args: string[]): Promise<number> {
    const spec = {
      ...SWEEP_OPTIONS,
      output: { type: 'string' as const },
      noise: { type: 'string' as const },
      json: { type: 'string' as const },
      convert: { type: 'string' as const },
      from: { type: 'string' as const },
      export: { type: 'string' as const, choices: MPI_FLAVOURS },
      'export-output': { type: 'string' as const },
      rules: { type: 'string' as const },
      nodes: { type: 'int' as const, min: 1 },
      'mpich-defaults': { type: 'string' as const },
    };
    const { options: o, rest } = parseOptions(args, spec, { positionals: Infinity });
    if (rest.length && o.from === undefined) throw new UsageError(`unexpected argument "${rest[0]}" (only --from takes several files: --from a.json b.json)`);
    for (const k of ['export-output', 'rules', 'nodes', 'mpich-defaults']) {
      if (o[k] !== undefined && o.export === undefined) throw new UsageError(`--${k} goes with --export openmpi|mpich`);
    }
    if (o['mpich-defaults'] !== undefined && o.export !== 'mpich') throw new UsageError('--mpich-defaults goes with --export mpich');
    if (o.convert) {
      try {
        process.stdout.write(rulesToJson(loadRules(o.convert as string).file));
      } catch (e) {
        if (!(e instanceof RulesError)) throw e;
        console.error(`topocoll tune: ${e.message}`);
        return 1;
      }
      return 0;
    }
    const noise = o.noise === undefined ? 3 : Number(o.noise);
    if (!(noise >= 0 && noise < 100)) throw new UsageError(`--noise=${o.noise} must be a percentage in [0, 100)`);
    if (o.rules !== undefined || o.from !== undefined) {
      const measuring = MEASURING.find((k) => o[k] !== undefined);
      if (measuring) throw new UsageError(`--${o.rules !== undefined ? 'rules' : 'from'} measures nothing: --${measuring} does not go with it`);
    }
    if (o.rules !== undefined) {
      if (o.from !== undefined || o.output !== undefined) throw new UsageError(`--rules exports a rules file: --${o.from !== undefined ? 'from' : 'output'} does not go with it`);
      let rules: RulesFile;
      try {
        rules = loadRules(o.rules as string).file;
      } catch (e) {
        if (!(e instanceof RulesError)) throw e;
        console.error(`topocoll tune: ${e.message}`);
        return 1;
      }
      const job = rules.job as { nodes?: unknown } | undefined;
      exportRules(rules, o, o.rules as string, typeof job?.nodes === 'number' ? job.nodes : undefined);
      return 0;
    }
    if (o.from !== undefined) {
      const files = [o.from as string, ...rest];
      return finish(files.map((f) => readReport(f, 'topocoll tune: --from')), o, noise, files);
    }

    const sweep = sweepOptions(o);
    const launcher = await selfLauncher(o);
    if (launcher) {
      const report = await measureByLaunches('tune', launcher, sweep, o.quiet === true);
      return typeof report === 'number' ? report : finish([report], o, noise);
    }
    if (wantsNativeAlgorithms(sweep)) {
      throw new UsageError(nativeNeedsLaunches('tune'));
    }
    // Every algorithm is forced in turn (setAlgorithm), so a rules file in force changes only the
    // `auto` row, which tune measures but never chooses. The sweep notices an algorithm that
    // cannot run here itself (and reports it as not measured); TOPOCOLL_FALLBACK=error would end
    // the job instead.
    process.env.TOPOCOLL_FALLBACK = 'silent';
    init();
    const world = getWorld();
    if (world.rank === 0) warnIfLoaded('tune');
    const progress = maybeProgress(world.rank, o.quiet === true, sweepSteps(sweep), 'tune');
    const report = runSweep(world, sweep, progress);
    if (world.rank !== 0) return 0;
    return finish([report], o, noise);
  },
};
