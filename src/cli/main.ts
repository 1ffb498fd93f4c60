// `topocoll <command>`: one file per command under src/cli/, listed here.
import { UsageError } from './args';

export interface Command {
  readonly summary: string;
  readonly usage: string;
  /** It reads its own --help (`topocoll mpirun`: a --help after the launcher's options is the program's). */
  readonly ownsHelp?: boolean;
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

function help(): string {
  const lines = ['usage: topocoll <command> [options]', '', 'commands:'];
  for (const [name, load] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(9)} ${load().summary}`);
  lines.push('', 'Run `topocoll <command> --help` for its options.');
  return lines.join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(help());
    return name ? 0 : 2;
  }
  const load = COMMANDS[name];
  if (!load) {
    console.error(`topocoll: unknown command "${name}"; valid commands: ${Object.keys(COMMANDS).join(', ')}`);
    return 2;
  }
  const command = load();
  // What follows `--` is never ours (a program's own --help, say).
  const dash = rest.indexOf('--');
  const ours = dash < 0 ? rest : rest.slice(0, dash);
  if (!command.ownsHelp && (ours.includes('--help') || ours.includes('-h'))) {
    console.log(`usage: ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`topocoll ${name}: ${e.message}`);
    return 2;
  }
}
