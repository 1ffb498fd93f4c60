// `topocoll <command>`: one file per command under src/cli/, listed here. The conventions every
// command shares (README.md, "Command line"): `--help`, `help CMD` and `--version` everywhere;
// one option parser (args.ts); exit status 0 on success, 2 for a usage error (the command line
// is wrong: nothing was done), 1 for a runtime failure (a file, the MPI, the machine); commands
// that run a job (mpirun, cluster run, bench and tune with --np) exit with the job's status.
import { closest, suggestion } from '../config/closest';
import { HelpRequest, parseOptions, UsageError } from '../config/args';
import { versionText } from './version';

export interface Command {
  readonly summary: string;
  readonly usage: string;
  /** Resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}

/** Loaded lazily so that `topocoll preload` never loads MPI. */
const COMMANDS: Record<string, () => Command> = {
  info: () => require('./info').info,
  explain: () => require('./explain').explain,
  simulate: () => require('./simulate').simulate,
  bench: () => require('./bench').bench,
  tune: () => require('./tune').tune,
  preload: () => require('./preload').preload,
  mpirun: () => require('./mpirun').mpirun,
  topology: () => require('./topology').topology,
  cluster: () => require('./cluster').cluster,
};

export const COMMAND_NAMES = Object.keys(COMMANDS);

function help(): string {
  const lines = ['usage: topocoll <command> [options]', '', 'commands:'];
  for (const [name, load] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(9)} ${load().summary}`);
  lines.push(
    '',
    '`topocoll help <command>` (or `topocoll <command> --help`) for its options; `--version` for the version and the MPIs built.',
    'Exit status: 0 done, 2 usage error (nothing done), 1 failure; mpirun, cluster run, and bench/tune with --np: the job\'s.',
  );
  return lines.join('\n');
}

function commandHelp(command: Command): string {
  return `usage: ${command.usage}\n\n${command.summary}`;
}

function usageError(prefix: string, message: string, hint: string): number {
  // A message that shows the usage already needs no pointer to it.
  console.error(`${prefix}: ${message}${message.includes('usage:') ? '' : `\n${hint}`}`);
  return 2;
}

function unknownCommand(name: string): number {
  return usageError('topocoll', `unknown command "${name}"${suggestion(name, COMMAND_NAMES, 'commands')}`, 'Run `topocoll help` for the commands.');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    console.error(help());
    return 2;
  }
  if (name === '--help' || name === '-h') {
    console.log(help());
    return 0;
  }
  if (name === '--version') {
    console.log(await versionText());
    return 0;
  }
  if (name === 'help') {
    // `topocoll help CMD` is `topocoll CMD --help`.
    try {
      const { rest: what } = parseOptions(rest, {}, { positionals: 1 });
      if (what.length === 0 || what[0] === 'help') {
        console.log(help());
        return 0;
      }
      return COMMANDS[what[0]] ? main([what[0], '--help']) : unknownCommand(what[0]);
    } catch (e) {
      if (e instanceof HelpRequest) return main([e.what === 'help' ? '--help' : '--version']);
      if (e instanceof UsageError) return usageError('topocoll help', e.message, 'usage: topocoll help [<command>]');
      throw e;
    }
  }
  if (name.startsWith('-')) {
    const near = closest(name, ['--help', '--version']);
    return usageError('topocoll', `"${name}" is not a command${near ? `; did you mean ${near}?` : ''}`, 'Run `topocoll help` for the commands.');
  }
  const load = COMMANDS[name];
  if (!load) return unknownCommand(name);
  const command = load();
  try {
    return await command.run(rest);
  } catch (e) {
    if (e instanceof HelpRequest) {
      console.log(e.what === 'help' ? commandHelp(command) : await versionText());
      return 0;
    }
    if (e instanceof UsageError) return usageError(`topocoll ${name}`, e.message, `Run \`topocoll help ${name}\` for its options.`);
    // A runtime failure: its message, once (many already start with "topocoll").
    const message = e instanceof Error ? e.message : String(e);
    console.error(message.startsWith('topocoll') ? message : `topocoll ${name}: ${message}`);
    if (e instanceof Error && Number(process.env.TOPOCOLL_VERBOSE) >= 1 && e.stack) console.error(e.stack);
    return 1;
  }
}
