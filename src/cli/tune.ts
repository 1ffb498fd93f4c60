// `topocoll tune`: the bench sweep for this job's shape, turned into a rules file
// (TOPOCOLL_RULES) that picks the fastest algorithm per collective and size range; prints what
// it changes against the built-in defaults. `--convert FILE` prints a YAML rules file as the
// JSON a preloaded C/Fortran program reads.
import { writeFileSync } from 'node:fs';
import { stringify as toYaml } from 'yaml';
import { launchSelfIfNeeded, SWEEP_OPTIONS, SWEEP_USAGE, sweepOptions } from '../bench/options';
import { maybeProgress } from '../bench/progress';
import { runSweep, sweepSteps } from '../bench/sweep';
import { loadWarning } from '../bench/machine';
import { describeChanges, describeKept, tune as tuneRules } from '../bench/tune';
import { getWorld } from '../mpi/comm';
import { init } from '../mpi/lifecycle';
import { loadRules, RulesError, rulesFromObject, rulesToJson, type RulesFile } from '../select/rules';
import { parseOptions, UsageError } from './args';
import { writeReportJson } from './bench';
import type { Command } from './main';

const DEFAULT_OUTPUT = 'topocoll-rules.json';

/** The file's text: JSON for *.json (what every reader takes), YAML otherwise. */
function rulesText(file: RulesFile, output: string): string {
  if (output.endsWith('.json')) return rulesToJson(file);
  const header = '# topocoll rules (TOPOCOLL_RULES), written by `topocoll tune`; schema: schemas/rules.schema.json\n';
  return header + toYaml(file, { lineWidth: 0 });
}

export const tune: Command = {
  summary: 'measure this job shape and write a rules file (TOPOCOLL_RULES) choosing the fastest algorithm per size',
  usage: [
    'topocoll tune [options]   (under mpirun, or with --np N to launch itself)',
    '',
    SWEEP_USAGE,
    `  --output FILE        the rules file (default ${DEFAULT_OUTPUT}; .json = JSON, else YAML; a preloaded C/Fortran program reads JSON only)`,
    '  --noise PERCENT      differences below this are noise (default 3; the cell\'s own spread when larger)',
    '  --json FILE          also write the sweep (schemas/bench.schema.json)',
    '  --convert FILE       print rules FILE (YAML or JSON) as JSON and exit; no measurement',
  ].join('\n'),
  async run(args: string[]): Promise<number> {
    const spec = { ...SWEEP_OPTIONS, output: { type: 'string' as const }, noise: { type: 'string' as const }, json: { type: 'string' as const }, convert: { type: 'string' as const } };
    const { options: o } = parseOptions(args, spec);
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
    const sweep = sweepOptions(o);
    // Every algorithm is forced in turn (setAlgorithm), so a rules file in force changes only the
    // `auto` row, which tune measures but never chooses.
    const launched = await launchSelfIfNeeded('tune', args, o);
    if (launched !== null) return launched;

    // The sweep notices an algorithm that cannot run here itself (and reports it as not
    // measured); TOPOCOLL_FALLBACK=error would end the job instead.
    process.env.TOPOCOLL_FALLBACK = 'silent';
    init();
    const world = getWorld();
    if (world.rank === 0) {
      const warning = loadWarning('tune');
      if (warning) console.error(warning);
    }
    const progress = maybeProgress(world.rank, o.quiet === true, sweepSteps(sweep));
    const report = runSweep(world, sweep, progress);
    if (world.rank !== 0) return 0;
    const { file, decisions } = tuneRules(report, { noiseFloor: noise / 100 });
    rulesFromObject(file, 'the tuned rules'); // what we write, the readers accept
    const output = (o.output as string | undefined) ?? DEFAULT_OUTPUT;
    writeFileSync(output, rulesText(file, output));
    if (o.json) writeReportJson(report, o.json as string);
    const job = report.job;
    console.log(`topocoll tune: ${job.ranks} ranks on ${job.nodes} node${job.nodes === 1 ? '' : 's'}, ${report.mpi.library}`);
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
    return 0;
  },
};
